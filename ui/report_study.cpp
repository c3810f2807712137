#include "ui/report_study.h"

#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"
#include "core/tune/study_parser.h"
#include "ui/chart_view.h"
#include "ui/report_content.h"

#include <nlohmann/json.hpp>

#include <QChart>
#include <QScatterSeries>
#include <QValueAxis>

namespace coh::ui {

namespace {

using json = nlohmann::json;

QString paramsText(const std::string& paramsJson)
{
    QStringList parts;
    try {
        const json params = json::parse(paramsJson); // items() only refers to it
        for (const auto& [pointer, value] : params.items())
            parts << QStringLiteral("%1 = %2").arg(
                QString::fromStdString(pointer.substr(pointer.rfind('/') + 1)),
                QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump()));
    } catch (const std::exception&) {
        return QString::fromStdString(paramsJson);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

std::optional<StudyReportInput> loadStudyForReport(core::RunStore& store, std::int64_t id)
{
    auto info = store.studyInfo(id);
    if (!info)
        return std::nullopt;
    StudyReportInput input{*info, store.studyPoints(id), {}};
    for (const core::StudyPoint& p : input.points)
        input.summaries.push_back(p.runId ? store.runSummary(*p.runId) : std::nullopt);
    return input;
}

void addStudy(ReportContent& report, const StudyReportInput& input)
{
    report.heading(QStringLiteral("Study #%1: %2").arg(input.info.id).arg(QString::fromStdString(input.info.name)));
    json study;
    try {
        study = json::parse(input.info.json);
    } catch (const std::exception&) {
        report.paragraph(QStringLiteral("The stored study file cannot be read."));
        return;
    }
    // A capacity study's points are the runs its searches chose (the probes are runs of History), each with the
    // capacity found; a study stored before schema 8 has none marked.
    const bool capacity = study.contains("capacity");
    core::StudySpec spec;
    try {
        spec = core::parseStudyGoals(study, "study #" + std::to_string(input.info.id));
    } catch (const std::exception& e) {
        report.paragraph(QStringLiteral("Its objectives cannot be read: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    // The study's points as the tuner saw them: full-workload runs with their metrics.
    core::StudyResult result;
    std::vector<const core::StudyPoint*> stored;
    for (std::size_t i = 0; i < input.points.size(); ++i) {
        const core::StudyPoint& p = input.points[i];
        if (capacity && !p.capacityAtSlo)
            continue; // a probe the search did not choose
        core::PointOutcome outcome;
        outcome.requests = p.requests;
        outcome.runId = p.runId;
        if (input.summaries[i]) {
            outcome.metrics = core::readMetrics(*input.summaries[i]);
            if (capacity)
                outcome.metrics.at(core::metricIndex("capacity_at_slo")) = *p.capacityAtSlo;
        }
        result.points.push_back(std::move(outcome));
        stored.push_back(&p);
    }
    if (capacity && result.points.empty()) {
        report.paragraph(QStringLiteral("A capacity study with no point's search finished (or stored before Coherence "
                                        "Studio recorded the capacities found): `cohsim tune` prints its front."));
        return;
    }
    core::analyseStudy(spec, result);
    QStringList goals;
    for (const core::Objective& o : spec.objectives)
        goals << QStringLiteral("%1 (%2)").arg(QString::fromStdString(o.metric),
                                               o.direction == core::Direction::Minimize ? QStringLiteral("minimised")
                                                                                        : QStringLiteral("maximised"));
    report.paragraph(QStringLiteral("%1 points, %2 meeting the constraints, %3 on the Pareto front of %4. Status: "
                                    "%5.")
                         .arg(result.points.size())
                         .arg(result.feasible.size())
                         .arg(result.front.size())
                         .arg(goals.join(QStringLiteral(", ")))
                         .arg(QString::fromLatin1(core::toString(input.info.status))));
    ReportTable front{QStringList{QStringLiteral("run"), QStringLiteral("varied fields")}, {}};
    for (const core::Objective& o : spec.objectives)
        front.header << QString::fromStdString(o.metric);
    for (const std::size_t i : result.front) {
        QStringList row{QStringLiteral("#%1").arg(result.points[i].runId.value_or(0)),
                        paramsText(stored[i]->paramsJson)};
        for (const core::Objective& o : spec.objectives)
            row << QString::number(core::metricValue(result.points[i], o.metric), 'g', 6);
        front.rows.append(row);
    }
    report.table(front);

    // The first two objectives (or the one against coherence bytes per token), every point and the front.
    const std::string xMetric = spec.objectives.size() > 1 ? spec.objectives[1].metric : "coherence_bytes_per_token";
    const std::string yMetric = spec.objectives.front().metric;
    auto* view = new ChartView(QStringLiteral("Study points"));
    auto* all = new QScatterSeries;
    all->setName(QStringLiteral("points meeting the constraints"));
    all->setMarkerSize(7);
    auto* onFront = new QScatterSeries;
    onFront->setName(QStringLiteral("Pareto front"));
    onFront->setMarkerSize(12);
    for (const std::size_t i : result.feasible) {
        const QPointF at(core::metricValue(result.points[i], xMetric), core::metricValue(result.points[i], yMetric));
        (std::find(result.front.begin(), result.front.end(), i) != result.front.end() ? onFront : all)->append(at);
    }
    view->chart()->addSeries(all);
    view->chart()->addSeries(onFront);
    view->chart()->createDefaultAxes();
    const auto axes = view->chart()->axes();
    for (QAbstractAxis* axis : axes) {
        auto* values = qobject_cast<QValueAxis*>(axis);
        if (!values)
            continue;
        values->applyNiceNumbers();
        values->setTitleText(QString::fromStdString(axis->orientation() == Qt::Horizontal ? xMetric : yMetric));
    }
    view->restyle();
    report.chart(view,
                 QStringLiteral("%1 against %2: every point meeting the constraints, the front larger")
                     .arg(QString::fromStdString(yMetric), QString::fromStdString(xMetric)),
                 QSize(860, 380));
}

} // namespace coh::ui
