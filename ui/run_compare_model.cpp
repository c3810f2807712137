#include "ui/run_compare_model.h"

#include "ui/metric_format.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QApplication>
#include <QFont>
#include <QLocale>
#include <QStringList>

#include <cmath>

namespace coh::ui {

namespace {

// Each pair's error, in pair order: "+12.0%, −5.0%, +4.0%"; a count "equal" or its difference.
// A latency or rate beyond the simulator's goal that its costs moved as far as a calibration drifts reach: its error is
// not told apart from the calibration's own uncertainty. (A count must be equal whatever the costs.)
bool excusedByCosts(const core::MetricRow& metric)
{
    return !core::mustEqual(*metric.spec) && metric.verdicts.size() > 1 &&
           metric.verdicts[1] == core::Verdict::Beyond && metric.movedCostsReachReal();
}

// "+12.0%", "−5.0%": an error as a share, to a tenth of a percent.
QString signedPercent(double relative)
{
    return QStringLiteral("%1%2%").arg(relative < 0 ? QStringLiteral("−") : QStringLiteral("+"),
                                       QLocale().toString(100 * std::fabs(relative), 'f', 1));
}

QString pairErrorsText(const core::MetricRow& metric)
{
    QStringList errors;
    for (std::size_t p = 0; p < metric.pairDelta.size(); ++p) {
        const double delta = metric.pairDelta[p], relative = metric.pairRelative[p];
        if (std::fabs(delta) <= core::displayStep(metric.spec->unit) / 2)
            errors << RunCompareModel::tr("equal");
        else if (core::mustEqual(*metric.spec) || std::isnan(relative))
            errors << formatDelta(delta, relative, metric.spec->unit, true);
        else
            errors << signedPercent(relative);
    }
    return errors.join(QStringLiteral(", "));
}

} // namespace

RunCompareModel::RunCompareModel(core::RunComparison comparison, QObject* parent)
    : QAbstractTableModel(parent)
    , m_comparison(std::move(comparison))
{
    m_rows.push_back({Row::Group, tr("What ran"), -1});
    for (std::size_t i = 0; i < m_comparison.properties.size(); ++i)
        m_rows.push_back({Row::Property, tr(m_comparison.properties[i].label.c_str()), static_cast<int>(i)});
    QString group;
    for (std::size_t i = 0; i < m_comparison.metrics.size(); ++i) {
        const core::MetricSpec& spec = *m_comparison.metrics[i].spec;
        if (tr(spec.group) != group) {
            group = tr(spec.group);
            m_rows.push_back({Row::Group, group, -1});
        }
        m_rows.push_back({Row::Metric, tr(spec.label), static_cast<int>(i)});
    }
    // Tints and muted text are palette colours: tell the view when they change.
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                             {Qt::BackgroundRole, Qt::ForegroundRole});
    });
}

int RunCompareModel::rowOf(const QString& label) const
{
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].label == label)
            return static_cast<int>(r);
    return -1;
}

bool RunCompareModel::isGroupRow(int row) const
{
    return row >= 0 && row < rowCount() && m_rows[static_cast<std::size_t>(row)].kind == Row::Group;
}

int RunCompareModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunCompareModel::columnCount(const QModelIndex& parent) const
{
    // Metric, one value per run, one difference per run after the first; then own and moved costs where kept.
    if (parent.isValid() || runCount() == 0)
        return 0;
    return 2 * runCount() + (m_comparison.ownCosts ? 1 : 0) + (m_comparison.costSensitivity > 0 ? 1 : 0);
}

QVariant RunCompareModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    if (role == GroupRole)
        return row.kind == Row::Group;
    if (index.column() == 0) {
        if (role == Qt::DisplayRole)
            return row.label;
        if (role == Qt::FontRole && row.kind == Row::Group) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    }
    if (row.kind == Row::Group)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (row.kind == Row::Property)
        return index.column() < 2 * runCount()
                   ? propertyData(m_comparison.properties[static_cast<std::size_t>(row.index)], index.column(), role)
                   : (role == VerdictRole ? QVariant(-1) : QVariant());
    const core::MetricRow& metric = m_comparison.metrics[static_cast<std::size_t>(row.index)];
    if (index.column() == ownCostsColumn())
        return ownCostsData(metric, role);
    if (index.column() == movedCostsColumn())
        return movedCostsData(metric, role);
    return metricData(metric, index.column(), role);
}

QVariant RunCompareModel::propertyData(const core::PropertyRow& property, int column, int role) const
{
    if (column > runCount())
        return role == VerdictRole ? QVariant(-1) : QVariant();
    const QString value = toQString(property.values[static_cast<std::size_t>(column - 1)]);
    switch (role) {
    case Qt::DisplayRole:
        return value;
    case Qt::FontRole:
        if (property.differs) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case VerdictRole:
        return -1;
    default:
        return {};
    }
}

QVariant RunCompareModel::ownCostsData(const core::MetricRow& metric, int role) const
{
    const core::MetricSpec& spec = *metric.spec;
    const bool within = metric.ownCostsVerdict == core::Verdict::Within;
    const QString real = toQString(m_comparison.titles[0]);
    switch (role) {
    case Qt::DisplayRole:
        if (core::mustEqual(spec))
            return within ? tr("equal") : formatMetric(metric.ownCostsValue, spec.unit);
        return std::isnan(metric.ownCostsRelative) ? tr("n/a") : signedPercent(metric.ownCostsRelative);
    case ValueRole:
        return metric.ownCostsValue;
    case VerdictRole:
        return static_cast<int>(metric.ownCostsVerdict);
    case Qt::BackgroundRole:
        return toneFill(within ? Tone::Good : Tone::Warning, QApplication::palette());
    case Qt::ToolTipRole: {
        const QString goal = QLocale().toString(100 * core::kSimulatorErrorGoal, 'g', 3);
        const QString value = formatMetric(metric.ownCostsValue, spec.unit);
        if (m_comparison.pairs > 1)
            return tr("The simulator on each real run's own costs, fitted over its copies and decode steps: %1 (the "
                      "median of its %2 runs), %3 the simulator's goal of ±%4% by the median of the pairs' errors. "
                      "It leaves out how far the machine moved since each calibration")
                .arg(value)
                .arg(m_comparison.pairs)
                .arg(within ? tr("within") : tr("beyond"), goal);
        return tr("The simulator on %1's own costs, fitted over its copies and decode steps: %2 against %3 measured, "
                  "%4 the simulator's goal of ±%5%. It leaves out how far the machine moved since the calibration")
            .arg(real, value, formatMetric(metric.values[0], spec.unit), within ? tr("within") : tr("beyond"), goal);
    }
    default:
        return {};
    }
}

QVariant RunCompareModel::movedCostsData(const core::MetricRow& metric, int role) const
{
    const QString moved = QLocale().toString(100 * m_comparison.costSensitivity, 'g', 3);
    switch (role) {
    case Qt::DisplayRole:
        if (!metric.movedCosts())
            return tr("n/a");
        // Counts and bytes come out the same unless transfers race: a range of none says so plainly.
        if (metric.movedCostsLow == 0 && metric.movedCostsHigh == 0)
            return tr("none");
        return tr("%1 to %2").arg(signedPercent(metric.movedCostsLow), signedPercent(metric.movedCostsHigh));
    case ValueRole:
        return metric.movedCostsHigh - metric.movedCostsLow;
    case VerdictRole:
        return -1;
    case Qt::FontRole:
        // A figure beyond the goal whose range takes in the real value: its error is not told apart from the
        // calibration's own uncertainty.
        if (excusedByCosts(metric)) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole: {
        if (!metric.movedCosts())
            return tr("No range: an error was not a share (the real value is 0)");
        QString text = tr("The simulator's error with every cost it took from the calibration moved %1% and %2% "
                          "either way: from %3 to %4")
                           .arg(QLocale().toString(50 * m_comparison.costSensitivity, 'g', 3), moved,
                                signedPercent(metric.movedCostsLow), signedPercent(metric.movedCostsHigh));
        if (m_comparison.pairs > 1)
            text += tr(" (each end the median of the %1 pairs')").arg(m_comparison.pairs);
        if (excusedByCosts(metric))
            text += tr(". Beyond the goal, but reached with costs moved no further than a calibration drifts: its "
                       "error is not told apart from the calibration's own uncertainty");
        return text;
    }
    default:
        return {};
    }
}

QVariant RunCompareModel::metricData(const core::MetricRow& metric, int column, int role) const
{
    const core::MetricSpec& spec = *metric.spec;
    const bool delta = column > runCount();
    const auto run = static_cast<std::size_t>(delta ? column - runCount() : column - 1);
    const core::Verdict verdict = metric.verdicts[run];
    const bool same = verdict == core::Verdict::Same;
    const bool error = m_comparison.simulatorError; // each difference is the simulator's error: always shown
    switch (role) {
    case Qt::DisplayRole:
        if (!delta)
            return formatMetric(metric.values[run], spec.unit);
        // Over pairs a count's median difference may be none where some pair differs: say in how many.
        if (error && m_comparison.pairs > 1 && core::mustEqual(spec))
            return verdict == core::Verdict::Within
                       ? tr("equal")
                       : tr("differs in %1 of %2 pairs").arg(core::pairsThatDiffer(metric)).arg(m_comparison.pairs);
        // Equal to the last digit shown (a count: equal); the tooltip has the exact difference.
        if (error && std::fabs(metric.delta[run]) <= core::displayStep(spec.unit) / 2)
            return tr("equal");
        return same ? tr("about the same") : formatDelta(metric.delta[run], metric.relative[run], spec.unit, error);
    case ValueRole:
        return delta ? metric.delta[run] : metric.values[run];
    case VerdictRole:
        return delta ? static_cast<int>(verdict) : -1;
    case Qt::BackgroundRole:
        if (delta && (verdict == core::Verdict::Better || verdict == core::Verdict::Within))
            return toneFill(Tone::Good, QApplication::palette());
        if (delta && (verdict == core::Verdict::Worse || verdict == core::Verdict::Beyond))
            return toneFill(Tone::Warning, QApplication::palette());
        return {};
    case Qt::ForegroundRole:
        if (delta && same) {
            const QPalette palette = QApplication::palette();
            return toneColor(Tone::Muted, palette, palette.color(QPalette::Base));
        }
        return {};
    case Qt::ToolTipRole: {
        if (!delta)
            return {};
        const QString exactDelta = formatDelta(metric.delta[run], metric.relative[run], spec.unit, error);
        const QString allowed = formatMetric(metric.allowance[run], spec.unit);
        const QString real = toQString(m_comparison.titles[0]);
        // Pairs: the cell holds the median of the pairs' errors; the tooltip lists them.
        if (error && m_comparison.pairs > 1 && core::mustEqual(spec))
            return verdict == core::Verdict::Within
                       ? tr("Equal in each of the %1 pairs, as the protocol's counts are when transfers do not race")
                             .arg(m_comparison.pairs)
                       : tr("Each pair, the simulated run against its real run: %1. Where they differ, most likely "
                            "transfers raced, and the real run's order of events followed its measured times")
                             .arg(pairErrorsText(metric));
        if (error && m_comparison.pairs > 1)
            return tr("%1, the median of the %2 pairs' errors (%3): %4 the simulator's goal of ±%5%")
                .arg(exactDelta)
                .arg(m_comparison.pairs)
                .arg(pairErrorsText(metric), verdict == core::Verdict::Within ? tr("within") : tr("beyond"),
                     QLocale().toString(100 * core::kSimulatorErrorGoal, 'g', 3));
        if (error && core::mustEqual(spec))
            return verdict == core::Verdict::Within
                       ? tr("Equal to %1's, as the protocol's counts are when transfers do not race").arg(real)
                       : tr("%1 from %2: most likely transfers raced, and the real run's order of events followed its "
                            "measured "
                            "times")
                             .arg(exactDelta, real);
        if (error) {
            QString text = tr("%1 from what %2 measured: %3 the simulator's goal of ±%4% (±%5)")
                               .arg(exactDelta, real, verdict == core::Verdict::Within ? tr("within") : tr("beyond"),
                                    QLocale().toString(100 * core::kSimulatorErrorGoal, 'g', 3), allowed);
            // A percentile of the real run is itself uncertain: say by how much.
            if (metric.noise[0] > 0)
                text +=
                    tr("; the real run's own 95% interval of it: ±%1").arg(formatMetric(metric.noise[0], spec.unit));
            return text;
        }
        if (same)
            return tr("%1 from %2: within ±%3, about the same")
                .arg(exactDelta, toQString(m_comparison.titles[0]), allowed);
        return tr("%1 from %2: beyond ±%3").arg(exactDelta, toQString(m_comparison.titles[0]), allowed);
    }
    default:
        return {};
    }
}

QVariant RunCompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString first = runCount() > 0 ? toQString(m_comparison.titles[0]) : QString();
    if (role == Qt::DisplayRole) {
        if (section == 0)
            return tr("Metric");
        if (section == ownCostsColumn())
            return m_comparison.pairs > 1 ? tr("On own costs\n(median of %1 pairs)").arg(m_comparison.pairs)
                                          : tr("On own costs");
        if (section == movedCostsColumn())
            return tr("At costs ±%1%").arg(QLocale().toString(100 * m_comparison.costSensitivity, 'g', 3));
        // Pairs: each column's value is a median, said on a line of its own so that a narrow column keeps it.
        if (section <= runCount() && m_comparison.pairs > 1)
            return tr("%1\n(median of %2 runs)")
                .arg(toQString(m_comparison.titles[static_cast<std::size_t>(section - 1)]))
                .arg(m_comparison.pairs);
        if (section <= runCount())
            return toQString(m_comparison.titles[static_cast<std::size_t>(section - 1)]);
        if (m_comparison.pairs > 1)
            return tr("Simulator's error\n(median of %1 pairs)").arg(m_comparison.pairs);
        if (m_comparison.simulatorError)
            return tr("Simulator's error");
        return tr("Δ %1").arg(toQString(m_comparison.titles[static_cast<std::size_t>(section - runCount())]));
    }
    if (role == Qt::ToolTipRole && section == ownCostsColumn())
        return tr("The simulator's error once more, on costs fitted over the real run's own copies and decode steps "
                  "(compare-real's ON OWN COSTS): what is left once the machine's drift since the calibration is out "
                  "of it");
    if (role == Qt::ToolTipRole && section == movedCostsColumn())
        return tr("How far the simulator's error moves with every cost it took from the calibration moved as far as "
                  "two calibrations minutes apart differ (compare-real's AT COSTS column); bold where a figure beyond "
                  "the goal is reached");
    if (role == Qt::ToolTipRole && section > runCount() && m_comparison.pairs > 1)
        return tr("Each pair's error is its simulated run's difference from its real run, as a share of it; this is "
                  "their median, as compare-real takes it (hover a cell for each pair's)");
    if (role == Qt::ToolTipRole && section > runCount() && m_comparison.simulatorError)
        return tr("The simulated run's difference from what %1 measured, absolute and relative (hover a cell for the "
                  "goal)")
            .arg(first);
    if (role == Qt::ToolTipRole && section > runCount())
        return tr("Difference from %1, absolute and relative; \"about the same\" when within the metric's "
                  "threshold (hover a cell for it)")
            .arg(first);
    return {};
}

} // namespace coh::ui
