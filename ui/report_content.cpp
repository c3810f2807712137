#include "ui/report_content.h"

#include "core/base/input_error.h"
#include "core/compare/compare_summary.h"
#include "core/compare/run_comparison.h"
#include "core/serving/replayed_routes.h"
#include "core/store/sim_vs_real.h"
#include "ui/backend_description.h"
#include "ui/chart_builders.h"
#include "ui/chart_view.h"
#include "ui/charts_panel.h"
#include "ui/compare_cdf_chart.h"
#include "ui/metric_format.h"
#include "ui/qt_text.h"
#include "ui/report_study.h"
#include "ui/scenario_document.h"
#include "ui/time_chart_view.h"
#include "ui/topology_scene.h"

#include <nlohmann/json.hpp>

#include <QGraphicsView>
#include <QLineSeries>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace {

using json = nlohmann::json;

QString number(double v, int decimals = 3)
{
    return QString::number(v, 'f', decimals);
}

QString text(const json& value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_null())
        return QStringLiteral("—");
    return QString::fromStdString(value.dump());
}

const json* at(const json& root, const char* pointer)
{
    const json::json_pointer p(pointer);
    return root.contains(p) ? &root.at(p) : nullptr;
}

QStringList distribution(const QString& name, const core::Distribution& d)
{
    return {name, QString::number(d.count), number(d.mean), number(d.p50), number(d.p90), number(d.p99), number(d.max)};
}

// The scenario's topology as the editor draws it (TopologyScene over a document of the stored scenario), fitted to
// whatever size the report gives it.
class TopologyPicture : public QGraphicsView {
  public:
    explicit TopologyPicture(const std::string& scenarioJson)
        : m_document(new ScenarioDocument(this))
    {
        m_document->reset(nlohmann::ordered_json::parse(scenarioJson));
        auto* scene = new TopologyScene(m_document, this);
        scene->sync();
        setScene(scene);
        setFrameShape(QFrame::NoFrame);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setRenderHint(QPainter::Antialiasing);
    }
    bool empty() const { return scene()->items().isEmpty(); }

  protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QGraphicsView::resizeEvent(event);
        fitInView(scene()->itemsBoundingRect().adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    }

  private:
    ScenarioDocument* m_document;
};

void addScenario(ReportContent& report, const json& scenario, const std::string& scenarioJson)
{
    report.heading(QStringLiteral("Scenario"));
    if (const json* d = at(scenario, "/description"))
        report.paragraph(text(*d));
    try {
        auto picture = std::make_unique<TopologyPicture>(scenarioJson);
        if (!picture->empty())
            report.chart(picture.release(), QStringLiteral("The topology, as the editor draws it"), QSize(860, 420));
    } catch (const std::exception&) {
        // a stored scenario that no longer parses: its tables below say what they can
    }
    ReportTable facts;
    const std::pair<const char*, const char*> fields[] = {
        {"Model", "/model"},
        {"Workload", "/workload/type"},
        {"Trace", "/workload/path"},
        {"Requests", "/workload/max_requests"},
        {"Time scale", "/workload/time_scale"},
        {"Decode protocol", "/coherence/decode"},
        {"Prefill protocol", "/coherence/prefill"},
        {"Protocols per tier", "/coherence/tiers"},
        {"Router", "/serving/router"},
        {"Replication", "/serving/replication"},
        {"KV tiers", "/serving/kv_tiers"},
        {"Failures", "/failures"},
        {"SLOs", "/slo"},
        {"Seed", "/seed"},
    };
    for (const auto& [label, pointer] : fields)
        if (const json* v = at(scenario, pointer))
            facts.rows.append({QString::fromLatin1(label), text(*v)});
    report.table(facts);
    if (const json* nodes = at(scenario, "/topology/nodes"); nodes && nodes->is_array()) {
        report.subheading(QStringLiteral("Topology"));
        ReportTable table{
            {QStringLiteral("node"), QStringLiteral("kind"), QStringLiteral("role"), QStringLiteral("memory")}, {}};
        for (const json& n : *nodes) {
            QStringList tiers;
            if (const json* memory = at(n, "/memory"); memory && memory->is_array())
                for (const json& m : *memory)
                    tiers << text(m.value("tier", json())) + QStringLiteral(" ") + text(m.value("capacity", json()));
            table.rows.append({text(n.value("id", json())), text(n.value("kind", json())),
                               text(n.value("role", json())), tiers.join(QStringLiteral(", "))});
        }
        report.table(table);
    }
    if (const json* links = at(scenario, "/topology/links"); links && links->is_array()) {
        ReportTable table{{QStringLiteral("link"), QStringLiteral("between"), QStringLiteral("kind"),
                           QStringLiteral("bandwidth"), QStringLiteral("latency")},
                          {}};
        for (const json& l : *links)
            table.rows.append({text(l.value("id", json())),
                               text(l.value("a", json())) + QStringLiteral(" – ") + text(l.value("b", json())),
                               text(l.value("kind", json())), text(l.value("bandwidth", json())),
                               text(l.value("latency", json()))});
        report.table(table);
    }
}

QString verdictWord(core::Verdict verdict)
{
    switch (verdict) {
    case core::Verdict::Baseline:
        return QStringLiteral("baseline");
    case core::Verdict::Same:
        return QStringLiteral("about the same");
    case core::Verdict::Better:
        return QStringLiteral("better");
    case core::Verdict::Worse:
        return QStringLiteral("worse");
    case core::Verdict::Differs:
        return QStringLiteral("differs");
    case core::Verdict::Within:
        return QStringLiteral("within the simulator's goal");
    case core::Verdict::Beyond:
        return QStringLiteral("beyond the simulator's goal");
    }
    return {};
}

QString simVsRealTitle(const core::RunInfo& real, const core::RunInfo& simulated)
{
    return QStringLiteral("Simulator against real execution: #%1 (%2) and #%3 (%4)")
        .arg(real.id)
        .arg(QString::fromStdString(real.backend))
        .arg(simulated.id)
        .arg(QString::fromStdString(simulated.backend));
}

// The simulator's error on the figures it is judged on, with the columns compare-real kept beside them (on the real
// run's own costs, and the error's range with the model's costs moved) and a note saying what those are.
void addSimVsRealTable(ReportContent& report, const core::RunSummary& real,
                       const std::vector<core::CostVariant>& realVariants, const core::RunSummary& simulated,
                       const std::vector<core::CostVariant>& simulatedVariants)
{
    const auto rows = core::simVsRealRows(real, simulated, realVariants, simulatedVariants);
    const bool own = core::ownCostsOf(realVariants) != nullptr;
    const double sensitivity = core::movedCostSensitivity(simulatedVariants);
    ReportTable error{
        {QStringLiteral("figure"), QStringLiteral("real"), QStringLiteral("simulated"), QStringLiteral("error %")}, {}};
    if (own)
        error.header << QStringLiteral("error % on own costs");
    if (sensitivity > 0)
        error.header << QStringLiteral("error % at costs ±%1%").arg(100 * sensitivity, 0, 'g', 3);
    const auto percent = [](double pct) { return std::isnan(pct) ? QStringLiteral("n/a") : number(pct, 1); };
    for (const core::SimVsRealRow& row : rows) {
        QStringList cells{QString::fromStdString(row.metric), QString::number(row.real, 'g', 6),
                          QString::number(row.simulated, 'g', 6), percent(row.errorPct())};
        if (own)
            cells << (row.count ? (row.ownCostEveryRunEqual ? QStringLiteral("equal")
                                                            : QString::number(row.ownCostSimulated, 'g', 6))
                                : percent(row.ownCostErrorPct()));
        if (sensitivity > 0)
            cells << (!row.movedCosts() ? QStringLiteral("n/a")
                      : row.movedCostsLowPct == 0 && row.movedCostsHighPct == 0
                          ? QStringLiteral("none")
                          : QStringLiteral("%1 to %2")
                                .arg(number(row.movedCostsLowPct, 1), number(row.movedCostsHighPct, 1)));
        error.rows.append(cells);
    }
    report.table(error);
    QStringList kept;
    if (own)
        kept << QStringLiteral("error % on own costs is the simulator's once more, on costs fitted over the real run's "
                               "own copies and decode steps (the machine's drift since the calibration left out)");
    // compare-real moves every cost by 1 ± s/2 and 1 ± s (movedCostFactors): the largest move says both.
    if (sensitivity > 0)
        kept << QStringLiteral("error % at costs ±%1% is its range with every calibrated cost moved %2% and %1% either "
                               "way; one that takes in 0 cannot tell the error from the calibration's own uncertainty")
                    .arg(100 * sensitivity, 0, 'g', 3)
                    .arg(50 * sensitivity, 0, 'g', 3);
    if (!kept.isEmpty())
        report.note(kept.join(QStringLiteral("; ")) + QStringLiteral(" (docs/real-backend.md)."));
}

// Compare's numbers (core/compare), as the History tab's Compare shows them: what differs, the sentences, every
// metric with each run's difference from the first and its verdict, and the latency CDFs overlaid.
void addComparison(ReportContent& report, const std::vector<const RunReportInput*>& runs)
{
    std::vector<core::ComparedRun> compared;
    for (const RunReportInput* r : runs)
        compared.push_back({r->info, &r->run->summary, &r->run->requests, &r->costVariants});
    const core::RunComparison comparison = core::compareRuns(compared);
    QStringList ids;
    for (const RunReportInput* r : runs)
        ids << QStringLiteral("#%1").arg(r->info.id);
    report.heading(QStringLiteral("Comparison of runs %1").arg(ids.join(QStringLiteral(", "))));
    for (const std::string& sentence : comparison.summary)
        report.paragraph(QString::fromStdString(sentence));
    // A column per run, or per side of pairs of a real run and its model (its runs' ids, then its title).
    QStringList titles;
    for (std::size_t c = 0; c < comparison.columns.size(); ++c) {
        QStringList columnIds;
        for (std::size_t i : comparison.columns[c])
            columnIds << ids[static_cast<qsizetype>(i)];
        QString title = QString::fromStdString(comparison.titles[c]);
        if (comparison.pairs > 1)
            title += QStringLiteral(" (median of %1 runs)").arg(comparison.pairs);
        titles << QStringLiteral("%1 %2").arg(columnIds.join(QStringLiteral(", ")), title);
    }
    ReportTable properties{QStringList{QStringLiteral("what ran")} + titles, {}};
    for (const core::PropertyRow& p : comparison.properties) {
        QStringList row{QString::fromStdString(p.label)};
        for (const std::string& v : p.values)
            row << QString::fromStdString(v);
        properties.rows.append(row);
    }
    report.table(properties);
    ReportTable metrics{QStringList{QStringLiteral("metric")} + titles, {}};
    for (const core::MetricRow& m : comparison.metrics) {
        QStringList row{
            QStringLiteral("%1: %2").arg(QString::fromLatin1(m.spec->group), QString::fromLatin1(m.spec->label))};
        for (std::size_t i = 0; i < m.values.size(); ++i) {
            QString text = formatMetric(m.values[i], m.spec->unit);
            // Over pairs a count is equal only if it is in every pair, whatever its medians.
            if (i > 0 && comparison.pairs > 1 && core::mustEqual(*m.spec)) {
                const std::size_t differ = core::pairsThatDiffer(m);
                text += QStringLiteral(" (%1; %2)")
                            .arg(differ == 0
                                     ? QStringLiteral("equal in every pair")
                                     : QStringLiteral("differs in %1 of %2 pairs").arg(differ).arg(comparison.pairs),
                                 verdictWord(m.verdicts[i]));
            } else if (i > 0)
                text += QStringLiteral(" (%1; %2)")
                            .arg(formatDelta(m.delta[i], m.relative[i], m.spec->unit, comparison.simulatorError),
                                 verdictWord(m.verdicts[i]));
            row << text;
        }
        metrics.rows.append(row);
    }
    report.table(metrics);
    // A real run against a simulated one: the simulator's error on the figures it is judged on (real-backend.md),
    // for each pair when the runs are pairs of a real run and its model.
    const auto isReal = [](const RunReportInput* r) { return r->run->summary.backend.real(); };
    const auto addSimVsReal = [&](const RunReportInput* real, const RunReportInput* simulated) {
        report.subheading(simVsRealTitle(real->info, simulated->info));
        addSimVsRealTable(report, real->run->summary, real->costVariants, simulated->run->summary,
                          simulated->costVariants);
    };
    // Only a real run and the simulated run that models it: any other simulated run stands for the scenario's
    // hardware, not this machine, and its difference is no error of the simulator's (RunComparison::otherMachines).
    if (comparison.pairs > 1) {
        for (std::size_t p = 0; p < comparison.pairs; ++p)
            addSimVsReal(runs[comparison.columns[0][p]], runs[comparison.columns[1][p]]);
    } else if (comparison.simulatorError) {
        for (std::size_t i = 1; i < runs.size(); ++i)
            if (isReal(runs[0]) != isReal(runs[i]))
                addSimVsReal(isReal(runs[0]) ? runs[0] : runs[i], isReal(runs[0]) ? runs[i] : runs[0]);
    }
    // A curve per column: the requests of all its runs.
    QStringList names;
    std::vector<std::vector<double>> ttft, tpot;
    for (std::size_t c = 0; c < comparison.columns.size(); ++c) {
        names << titles[static_cast<qsizetype>(c)];
        auto& t = ttft.emplace_back();
        auto& p = tpot.emplace_back();
        for (std::size_t i : comparison.columns[c]) {
            const auto runTtft = charts::ttftMs(*runs[i]->run), runTpot = charts::tpotMs(*runs[i]->run);
            t.insert(t.end(), runTtft.begin(), runTtft.end());
            p.insert(p.end(), runTpot.begin(), runTpot.end());
        }
    }
    report.chart(makeCompareCdfChart(QStringLiteral("TTFT"), QStringLiteral("TTFT"), names, ttft, nullptr),
                 QStringLiteral("TTFT of the compared runs"), QSize(860, 340));
    report.chart(makeCompareCdfChart(QStringLiteral("TPOT"), QStringLiteral("TPOT"), names, tpot, nullptr),
                 QStringLiteral("TPOT of the compared runs"), QSize(860, 340));
}

} // namespace

RunReportInput loadRunForReport(core::RunStore& store, std::int64_t id, const std::string& field)
{
    const auto info = store.runInfo(id);
    if (!info)
        throw core::InputError(store.path(), field, "there is no run #" + std::to_string(id),
                               "see the runs with `cohsim runs list`");
    if (info->status != core::RunStatus::Completed)
        throw core::InputError(store.path(), field,
                               "run #" + std::to_string(id) + " has not completed: no figures to report",
                               "report a completed run (`cohsim runs list`)");
    RunReportInput input{*info, store.scenarioJson(id).value_or("{}"),
                         std::make_shared<const core::RunResult>(store.loadRun(id)), std::nullopt,
                         store.costVariants(id)};
    std::vector<std::int64_t> twins = store.modelsOf(id);
    if (info->modelsRun != 0)
        twins.insert(twins.begin(), info->modelsRun);
    for (const std::int64_t twin : twins) {
        const auto twinInfo = store.runInfo(twin);
        const auto summary = twinInfo ? store.runSummary(twin) : std::nullopt;
        if (summary) {
            input.twin = RunReportInput::Twin{*twinInfo, *summary, store.costVariants(twin)};
            break;
        }
    }
    return input;
}

ReportContent::ReportContent(QString title)
    : m_title(std::move(title))
{
}

ReportContent::~ReportContent() = default;
ReportContent::ReportContent(ReportContent&&) noexcept = default;
ReportContent& ReportContent::operator=(ReportContent&&) noexcept = default;

void ReportContent::add(ReportBlock::Kind kind, const QString& text)
{
    ReportBlock block;
    block.kind = kind;
    block.text = text;
    m_blocks.push_back(std::move(block));
}

void ReportContent::table(ReportTable table)
{
    ReportBlock block;
    block.kind = ReportBlock::Kind::Table;
    block.table = std::move(table);
    m_blocks.push_back(std::move(block));
}

void ReportContent::chart(QWidget* view, const QString& caption, QSize size)
{
    ReportBlock block;
    block.kind = ReportBlock::Kind::Chart;
    block.text = caption;
    block.chart = view;
    block.size = size;
    m_blocks.push_back(std::move(block));
    m_charts.emplace_back(view);
}

void ReportContent::charts(const std::shared_ptr<const core::RunResult>& run)
{
    auto panel = std::make_unique<ChartsPanel>();
    panel->setRun(run);
    for (TimeChartView* view :
         {panel->ttftChart(), panel->tpotChart(), panel->splitChart(), panel->linkChart(), panel->batchChart()})
        view->cursor()->setVisible(false); // the replay's time: nothing on a page
    std::vector<std::pair<QWidget*, QString>> charts = {
        {panel->ttftChart(), QStringLiteral("TTFT of each request over time")},
        {panel->tpotChart(), QStringLiteral("TPOT of each request over time")},
        {panel->cdfChart(), QStringLiteral("Latency CDFs")},
        {panel->splitChart(), QStringLiteral("Where each token's time went: compute, KV transfer, coherence stall")},
        {panel->linkChart(), QStringLiteral("Utilisation of the busiest link directions")},
        {panel->kindChart(), QStringLiteral("Messages by kind")},
    };
    if (!run->iterations.empty())
        charts.emplace_back(panel->batchChart(),
                            QStringLiteral("Sequences in each decode iteration (continuous batching), per instance"));
    for (const auto& [view, caption] : charts) {
        ReportBlock block;
        block.kind = ReportBlock::Kind::Chart;
        block.text = caption;
        block.chart = view;
        block.size = QSize(860, view == panel->kindChart() ? std::max(360, view->minimumHeight()) : 360);
        m_blocks.push_back(std::move(block));
    }
    m_panels.push_back(std::move(panel));
}

ReportContent buildRunReport(const RunReportInput& input, const std::vector<RunReportInput>& others,
                             const StudyReportInput* study)
{
    const core::RunInfo& info = input.info;
    const core::RunSummary& s = input.run->summary;
    json scenario = json::object();
    try {
        scenario = json::parse(input.scenarioJson);
    } catch (const std::exception&) {
        // a stored scenario that no longer parses: the report goes on without its section's details
    }
    ReportContent report(QString::fromStdString(info.name));
    report.note(QStringLiteral("Run #%1 · scenario %2 · %3 backend · %4 · seed %5 · Coherence Studio %6")
                    .arg(info.id)
                    .arg(QString::fromStdString(info.scenarioName), QString::fromStdString(info.backend),
                         QString::fromStdString(info.createdAt))
                    .arg(info.seed)
                    .arg(QString::fromStdString(info.version)));

    report.heading(QStringLiteral("Headline"));
    ReportTable latency{{QStringLiteral("ms"), QStringLiteral("count"), QStringLiteral("mean"), QStringLiteral("p50"),
                         QStringLiteral("p90"), QStringLiteral("p99"), QStringLiteral("max")},
                        {}};
    latency.rows = {distribution(QStringLiteral("TTFT"), s.ttftMs),
                    distribution(QStringLiteral("TPOT"), s.tpotMs),
                    distribution(QStringLiteral("ITL"), s.itlMs),
                    distribution(QStringLiteral("E2E"), s.e2eMs),
                    distribution(QStringLiteral("TPOT compute"), s.tpotComputeMs),
                    distribution(QStringLiteral("TPOT transfer"), s.tpotTransferMs),
                    distribution(QStringLiteral("TPOT coherence stall"), s.tpotStallMs)};
    report.table(latency);
    ReportTable figures;
    figures.rows = {
        {QStringLiteral("Requests"), QStringLiteral("%1 of %2 completed").arg(s.completed).arg(s.requests)},
        {QStringLiteral("Output tokens"), QString::number(s.outputTokens)},
        {QStringLiteral("Throughput"), number(s.throughputTokensPerSec, 1) + QStringLiteral(" tokens/s")},
        {QStringLiteral("Goodput"), number(s.goodputRequestsPerSec, 3) + QStringLiteral(" requests/s")},
        {QStringLiteral("SLO attainment"), number(100 * s.sloAttainment, 1) + QStringLiteral(" %")},
        {QStringLiteral("KV protocol"), QString::fromStdString(s.protocol)},
    };
    if (const auto& iterations = input.run->iterations; !iterations.empty()) {
        const charts::IterationMeans means = charts::iterationMeans(iterations);
        figures.rows.append({QStringLiteral("Decode iterations"),
                             QStringLiteral("%1 (of %2 recorded: mean batch %3 sequences, mean coherence wait %4 ms)")
                                 .arg(s.decodeIterations)
                                 .arg(iterations.size())
                                 .arg(number(means.sequences, 2), number(means.waitMs, 3))});
    }
    report.table(figures);

    // What executed it: for a real run its copies, K/V rows, costs and mapping, as History shows them.
    const BackendFacts backend = backendFacts(s.backend);
    report.heading(QStringLiteral("Backend"));
    report.paragraph(QStringLiteral("%1: %2").arg(backend.name, backend.headline));
    if (!backend.lines.isEmpty()) {
        ReportTable lines;
        for (const auto& [label, text] : backend.lines)
            lines.rows.append({label, text});
        report.table(lines);
    }
    if (!backend.mapping.isEmpty()) {
        ReportTable mapping{{QStringLiteral("node"), QStringLiteral("ran on")}, {}};
        for (const auto& [node, resource] : backend.mapping)
            mapping.rows.append({node, resource});
        report.table(mapping);
    }
    for (const auto& [label, text] : backend.after)
        report.paragraph(label.isEmpty() ? text : QStringLiteral("%1: %2").arg(label, text));
    if (s.replayedRoutes.on)
        report.paragraph(
            QStringLiteral("Routes: routed as the real run it models did: %1 (cohsim compare-real --real-routes).")
                .arg(toQString(core::describeReplayedRoutes(s.replayedRoutes))));

    // The run's compare-real twin, unless it is compared below anyway.
    const bool twinCompared = input.twin && std::any_of(others.begin(), others.end(), [&](const RunReportInput& other) {
                                  return other.info.id == input.twin->info.id;
                              });
    if (input.twin && !twinCompared) {
        const bool real = s.backend.real();
        const core::RunInfo& realInfo = real ? info : input.twin->info;
        const core::RunInfo& simulatedInfo = real ? input.twin->info : info;
        report.heading(simVsRealTitle(realInfo, simulatedInfo));
        report.paragraph(QStringLiteral("cohsim compare-real ran the scenario for real and on the simulator with this "
                                        "machine's calibrated profile; error = (simulated − real) / real."));
        const RunReportInput::Twin& twin = *input.twin;
        if (real)
            addSimVsRealTable(report, s, input.costVariants, twin.summary, twin.costVariants);
        else
            addSimVsRealTable(report, twin.summary, twin.costVariants, s, input.costVariants);
    }

    if (!others.empty()) {
        std::vector<const RunReportInput*> runs{&input};
        for (const RunReportInput& other : others)
            runs.push_back(&other);
        addComparison(report, runs);
    }
    if (study)
        addStudy(report, *study);

    addScenario(report, scenario, input.scenarioJson);

    report.heading(QStringLiteral("Charts"));
    report.charts(input.run);

    report.heading(QStringLiteral("Coherence traffic"));
    ReportTable kinds{{QStringLiteral("kind"), QStringLiteral("role"), QStringLiteral("carries"),
                       QStringLiteral("messages"), QStringLiteral("bytes")},
                      {}};
    for (const core::MessageKindStats& k : s.messagesByKind)
        if (k.count > 0)
            kinds.rows.append({QString::fromStdString(k.name), QString::fromStdString(k.role),
                               k.data ? QStringLiteral("data") : QStringLiteral("control"), QString::number(k.count),
                               formatMetric(k.bytes, core::MetricUnit::Bytes)});
    report.table(kinds);
    // A real run's copies take this machine's memory, not the scenario's links: their bytes and mean rate, no share
    // of a link bandwidth they never used.
    const bool real = s.backend.real();
    ReportTable links{real ? QStringList{QStringLiteral("link"), QStringLiteral("direction"), QStringLiteral("bytes"),
                                         QStringLiteral("mean rate")}
                           : QStringList{QStringLiteral("link"), QStringLiteral("direction"), QStringLiteral("bytes"),
                                         QStringLiteral("mean utilisation %"), QStringLiteral("peak utilisation %")},
                      {}};
    for (const core::LinkTotal& l : s.links) {
        QStringList row{QString::fromStdString(l.link), l.forward ? QStringLiteral("a→b") : QStringLiteral("b→a"),
                        formatMetric(l.bytes, core::MetricUnit::Bytes)};
        if (real)
            row << (s.makespan > 0 ? formatMetric(l.bytes / core::toSeconds(s.makespan), core::MetricUnit::Bytes) +
                                         QStringLiteral("/s")
                                   : QStringLiteral("–"));
        else
            row << number(100 * l.meanUtilization, 2) << number(100 * l.peakUtilization, 2);
        links.rows.append(row);
    }
    report.table(links);

    report.heading(QStringLiteral("Staleness and failures"));
    ReportTable health;
    health.rows = {
        {QStringLiteral("Stale block reads (decode)"), QString::number(s.staleness.staleReads)},
        {QStringLiteral("Requests given up after failures"), QString::number(s.failures.failed)},
        {QStringLiteral("Availability"), number(100 * s.failures.availability, 2) + QStringLiteral(" %")},
    };
    report.table(health);
    report.note(QStringLiteral("Made by Coherence Studio from the run database; every figure is the stored run's."));
    return report;
}

} // namespace coh::ui
