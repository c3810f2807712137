#include "ui/charts_panel.h"

#include "ui/chart_builders.h"
#include "ui/chart_view.h"
#include "ui/message_roles.h"
#include "ui/nice_ticks.h"
#include "ui/qt_text.h"
#include "ui/time_chart_view.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QColor>
#include <QGridLayout>
#include <QHorizontalStackedBarSeries>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QPen>
#include <QResizeEvent>
#include <QScatterSeries>
#include <QScrollArea>
#include <QTextDocument>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace coh::ui {
namespace {

// Below this width two charts side by side elide their legends and squeeze their plots.
constexpr int kTwoColumnWidth = 1000;
constexpr int kChartHeight = 300;
// A tier's capacity is drawn as a dashed line only while it is within this factor of the most blocks held: beyond
// it the occupancy would be a flat line along the bottom of the plot, so the capacity is told in words instead.
constexpr double kCapacityLineRatio = 4;
// What Qt Charts leaves above and below an axis label (ChartAxisElement::labelPadding) and around its text
// (ChartPresenter::textMargin, the label document's margin).
constexpr double kAxisLabelPadding = 4;
constexpr double kAxisTextMargin = 0.5;

double maxY(const QList<QPointF>& points)
{
    double m = 0;
    for (const QPointF& p : points)
        m = std::max(m, p.y());
    return m;
}

double endSeconds(const core::RunResult& run)
{
    core::SimTime end = 0;
    for (const auto& r : run.requests)
        end = std::max(end, r.finish);
    return core::toSeconds(end);
}

QList<QPointF> scaledY(QList<QPointF> points, double divisor)
{
    if (divisor != 1)
        for (QPointF& p : points)
            p.setY(p.y() / divisor);
    return points;
}

// Exact enough to read off a tooltip: three decimals for everyday magnitudes, grouped thousands.
QString exact(double v, int decimals = 3)
{
    return QLocale().toString(v, 'f', decimals);
}

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    const auto axes = chart->axes();
    for (QAbstractAxis* axis : axes) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QLineSeries* lineSeries(const QString& name, const QList<QPointF>& points)
{
    auto* series = new QLineSeries();
    series->setName(name);
    series->replace(points); // one call: one repaint, not one per point
    return series;
}

} // namespace

ChartsPanel::ChartsPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* content = new QWidget();
    m_grid = new QGridLayout(content);
    m_ttft = new TimeChartView(tr("Time to first token"), tr("TTFT (ms)"), content);
    m_tpot = new TimeChartView(tr("Time per output token"), tr("TPOT (ms)"), content);
    m_cdf = new ChartView(tr("Latency CDF"), content);
    m_split = new TimeChartView(tr("TPOT split per request"), tr("ms per output token"), content);
    m_kinds = new ChartView(tr("Messages by kind"), content);
    m_links = new TimeChartView(tr("Busiest link directions"), tr("utilisation (%)"), content);
    // Five "gpu0 → nvswitch" names do not fit side by side below a narrow plot: one per line beside it.
    m_links->chart()->legend()->setAlignment(Qt::AlignRight);
    m_tiers = new TimeChartView(tr("KV tier occupancy"), tr("KV blocks"), content);
    m_tiers->hide(); // only for runs with tiers
    m_availability = new TimeChartView(tr("Availability"), tr("serving instances up"), content);
    m_availability->hide(); // only for runs with failures
    m_batches = new TimeChartView(tr("Decode batches"), tr("sequences per iteration"), content);
    m_batches->hide(); // only for runs with a record of their decode iterations
    // Tall enough that a vertical axis title reads in full under the title and above the legend.
    for (ChartView* view : allViews())
        view->setMinimumHeight(kChartHeight);
    layoutCharts(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    for (TimeChartView* view : timeViews())
        connect(view, &TimeChartView::timeClicked, this, &ChartsPanel::timeClicked);
    // The title, legend and counts' axis around the plot change with the width (the legend wraps): measured anew.
    // Queued: the plot changes inside the chart view's resize, which a new minimum height would resize again, and the
    // outer resize would then end with the chart at its old height.
    connect(m_kinds->chart(), &QChart::plotAreaChanged, this, &ChartsPanel::fitKindLabels, Qt::QueuedConnection);
    setRun(nullptr);
}

QList<TimeChartView*> ChartsPanel::timeViews() const
{
    return {m_ttft, m_tpot, m_split, m_links, m_batches, m_tiers, m_availability};
}

QList<ChartView*> ChartsPanel::allViews() const
{
    return {m_ttft, m_tpot, m_cdf, m_split, m_kinds, m_links, m_batches, m_tiers, m_availability};
}

void ChartsPanel::layoutCharts(int columns, bool force)
{
    if (columns == m_columns && !force)
        return;
    m_columns = columns;
    QList<ChartView*> order = {m_ttft, m_tpot, m_cdf, m_split, m_kinds, m_links};
    // The batches', the tiers' and the availability charts take a place in the grid only when shown: else the grid is
    // as it was.
    for (TimeChartView* view : {m_batches, m_tiers, m_availability}) {
        m_grid->removeWidget(view);
        if (!view->isHidden())
            order.append(view);
    }
    for (int i = 0; i < order.size(); ++i) {
        m_grid->removeWidget(order[i]);
        m_grid->addWidget(order[i], i / columns, i % columns);
    }
}

void ChartsPanel::resizeEvent(QResizeEvent* event)
{
    layoutCharts(event->size().width() >= kTwoColumnWidth ? 2 : 1);
    QWidget::resizeEvent(event);
}

void ChartsPanel::setRun(std::shared_ptr<const core::RunResult> run)
{
    m_run = std::move(run);
    // A real run's clock is the simulator's, moved on by the copies and steps it measured.
    const bool real = m_run && m_run->summary.backend.real();
    for (TimeChartView* view : timeViews()) {
        view->clearData();
        view->setRanges(0, 0);
        view->axisX()->setTitleText(real ? tr("run time (s), from measured copies and steps")
                                         : tr("simulated time (s)"));
    }
    clearChart(m_cdf->chart());
    clearChart(m_kinds->chart());
    if (!m_run) {
        showEmpty(tr("No run to show: run the scenario (Run ▸ Run, F5) or open a run from History."));
    } else if (m_run->requests.empty()) {
        showEmpty(tr("No request completed in this run: there is nothing to chart."));
    } else {
        fillLatencyOverTime();
        fillCdf();
        fillSplit();
        fillKinds();
        fillLinks();
        fillTiers();
        fillAvailability();
        fillBatches();
    }
    for (ChartView* view : allViews())
        view->restyle();
    m_tiers->setVisible(m_run && m_run->summary.kvTiers.enabled);
    m_availability->setVisible(m_run && m_run->summary.failures.enabled);
    m_batches->setVisible(m_run && !m_run->iterations.empty());
    layoutCharts(m_columns, true);
    setCursorTime(m_cursorTime);
}

void ChartsPanel::showEmpty(const QString& why)
{
    for (ChartView* view : allViews())
        view->setEmptyText(why);
}

void ChartsPanel::setCursorTime(qint64 ns)
{
    m_cursorTime = ns;
    for (TimeChartView* view : timeViews())
        view->setCursorTime(ns);
}

void ChartsPanel::fillLatencyOverTime()
{
    const double end = endSeconds(*m_run);
    const struct {
        TimeChartView* view;
        QString metric, series, when;
        QList<QPointF> points;
    } views[] = {
        {m_ttft, tr("TTFT"), tr("TTFT by first-token time"), tr("first token"), charts::ttftOverTime(*m_run)},
        {m_tpot, tr("TPOT"), tr("TPOT by finish time"), tr("last token"), charts::tpotOverTime(*m_run)},
    };
    for (const auto& c : views) {
        const ScaledUnit unit = timeUnitForMilliseconds(maxY(c.points));
        auto* series = new QScatterSeries();
        series->setName(c.series);
        series->setMarkerSize(7); // a dot that reads at 1:1 without hiding its neighbours
        series->replace(scaledY(c.points, unit.divisor));
        c.view->addData(series);
        c.view->setYTitle(QStringLiteral("%1 (%2)").arg(c.metric, unit.unit));
        c.view->setRanges(end, maxY(c.points) / unit.divisor);
        c.view->hoverPoints(series, [metric = c.metric, when = c.when, unit](const QPointF& p) {
            return tr("%1 at %2 s: %3 %4 ms").arg(when, exact(p.x()), metric, exact(p.y() * unit.divisor));
        });
        c.view->setEmptyText(c.points.isEmpty() ? tr("No request produced more than one token.") : QString());
    }
}

void ChartsPanel::fillCdf()
{
    QChart* chart = m_cdf->chart();
    const std::pair<QString, std::vector<double>> curves[] = {
        {tr("TTFT"), charts::ttftMs(*m_run)}, {tr("TPOT"), charts::tpotMs(*m_run)}, {tr("E2E"), charts::e2eMs(*m_run)}};
    double xMin = 0, xMax = 0;
    bool first = true;
    for (const auto& curve : curves) {
        for (double v : curve.second) {
            xMin = first ? v : std::min(xMin, v);
            xMax = first ? v : std::max(xMax, v);
            first = false;
        }
    }
    const ScaledUnit unit = timeUnitForMilliseconds(xMax);
    // TPOT is milliseconds where E2E is seconds: a log axis shows all three; it needs positive values. Its ends
    // are powers of ten, so every tick is one (1, 10, 100 ms) and reads as a round number.
    QAbstractAxis* x = nullptr;
    if (xMin > 0) {
        auto* log = new QLogValueAxis();
        log->setBase(10);
        log->setLabelFormat(QStringLiteral("%g"));
        log->setMinorTickCount(-1);
        log->setRange(std::pow(10.0, std::floor(std::log10(xMin / unit.divisor))),
                      std::pow(10.0, std::ceil(std::log10(xMax / unit.divisor))));
        x = log;
    } else {
        auto* linear = new QValueAxis();
        setNiceRange(linear, 0, xMax > 0 ? xMax / unit.divisor : 1);
        x = linear;
    }
    x->setTitleText(tr("latency (%1, log scale)").arg(unit.unit));
    auto* y = new QValueAxis();
    y->setTitleText(tr("fraction of requests"));
    setNiceRange(y, 0, 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (const auto& [name, values] : curves) {
        // Half the points a series may hold: its staircase draws each twice.
        QList<QPointF> points = charts::cdf(values, (charts::kMaxPoints - 1) / 2);
        for (QPointF& p : points)
            p.setX(p.x() / unit.divisor);
        auto* series = lineSeries(name, charts::cdfSteps(points));
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
        m_cdf->hoverPoints(series, [name, points, unit](const QPointF& at) {
            const QPointF p = charts::nearestByX(points, at.x());
            return tr("%1: %2% of requests within %3 ms").arg(name, exact(100 * p.y(), 1), exact(p.x() * unit.divisor));
        });
    }
    m_cdf->setEmptyText({});
}

void ChartsPanel::fillSplit()
{
    const charts::TpotSplit split = charts::tpotSplit(*m_run);
    const ScaledUnit unit = timeUnitForMilliseconds(maxY(split.waiting));
    const std::pair<QString, const QList<QPointF>*> layers[] = {{tr("compute"), &split.compute},
                                                                {tr("KV transfer"), &split.transfer},
                                                                {tr("coherence stall"), &split.stall},
                                                                {tr("waiting for a device"), &split.waiting}};
    const QList<QPointF>* below = nullptr;
    for (const auto& [name, upper] : layers) {
        QLineSeries* top = lineSeries(name, scaledY(*upper, unit.divisor));
        QLineSeries* bottom = below ? lineSeries(QString(), scaledY(*below, unit.divisor)) : nullptr;
        auto* area = new QAreaSeries(top, bottom);
        // QAreaSeries does not own its edges; parenting them to it does.
        top->setParent(area);
        if (bottom)
            bottom->setParent(area);
        area->setName(name);
        m_split->addData(area);
        // The layer's own share at the request nearest the mouse: its upper edge less the one below it.
        m_split->hoverArea(area, [name, upper = *upper, below = below ? *below : QList<QPointF>()](const QPointF& at) {
            const QPointF top = charts::nearestByX(upper, at.x());
            const double base = below.isEmpty() ? 0.0 : charts::nearestByX(below, top.x()).y();
            return tr("%1: %2 ms per token (request finishing at %3 s)")
                .arg(name, exact(top.y() - base, 4), exact(top.x()));
        });
        below = upper;
    }
    m_split->setYTitle(tr("%1 per output token").arg(unit.unit));
    m_split->setRanges(endSeconds(*m_run), maxY(split.waiting) / unit.divisor);
    m_split->setEmptyText(split.compute.isEmpty() ? tr("No request produced more than one token.") : QString());
}

void ChartsPanel::fillKinds()
{
    // Horizontal bars, busiest on top, so every kind's name reads in full on the left. One bar set per role,
    // zero outside its kinds: each bar gets its role's colour and the legend names roles.
    std::vector<core::MessageKindStats> kinds;
    for (const auto& kind : m_run->summary.messagesByKind)
        if (kind.count > 0)
            kinds.push_back(kind);
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.count < b.count; });
    QChart* chart = m_kinds->chart();
    if (kinds.empty()) {
        m_kinds->setEmptyText(tr("This run sent no messages."));
        return;
    }
    double most = 0;
    for (const auto& kind : kinds)
        most = std::max(most, static_cast<double>(kind.count));
    const ScaledUnit unit = countUnit(most);

    QStringList categories;
    std::array<QBarSet*, kMessageRoleCount> sets{};
    auto* series = new QHorizontalStackedBarSeries();
    for (MessageRole role : allMessageRoles()) {
        auto* set = new QBarSet(messageRoleLabel(role));
        set->setColor(messageRoleColor(role));
        sets[static_cast<std::size_t>(role)] = set;
    }
    for (const auto& kind : kinds) {
        categories << toQString(kind.name);
        const auto role = messageRoleFromName(kind.role);
        for (int r = 0; r < kMessageRoleCount; ++r)
            sets[static_cast<std::size_t>(r)]->append(
                static_cast<MessageRole>(r) == role ? static_cast<double>(kind.count) / unit.divisor : 0.0);
    }
    for (QBarSet* set : sets) {
        if (set->sum() > 0) {
            series->append(set);
            m_kinds->hoverBars(set, [kinds](int index) {
                const auto& k = kinds[static_cast<std::size_t>(index)];
                return tr("%1 (%2): %3 messages, %4 bytes")
                    .arg(toQString(k.name), toQString(k.role), QLocale().toString(static_cast<qulonglong>(k.count)),
                         QLocale().toString(k.bytes, 'f', 0));
            });
        } else {
            delete set;
        }
    }
    chart->addSeries(series);
    auto* names = new QBarCategoryAxis();
    names->append(categories);
    auto* counts = new QValueAxis();
    counts->setTitleText(unit.unit.isEmpty() ? tr("messages") : tr("messages (%1)").arg(unit.unit));
    setNiceRange(counts, 0, most / unit.divisor);
    chart->addAxis(names, Qt::AlignLeft);
    chart->addAxis(counts, Qt::AlignBottom);
    series->attachAxis(names);
    series->attachAxis(counts);
    m_kinds->setEmptyText({});
    fitKindLabels();
}

void ChartsPanel::fitKindLabels()
{
    // Qt Charts gives each label of a vertical category axis the plot's height over (categories + 2), less the
    // padding above and below it (VerticalAxis::updateGeometry), and cuts a label taller than that to "..." however
    // wide the axis is. So the chart is as tall as the plot must be for one line per kind plus what is around the
    // plot (title, legend, counts' axis, margins), measured from the current layout.
    if (m_kinds->isEmptyStateShown())
        return;
    const auto axes = m_kinds->chart()->axes(Qt::Vertical);
    auto* names = axes.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(axes.front());
    const QRectF plot = m_kinds->chart()->plotArea();
    if (!names || names->count() == 0 || plot.height() <= 0)
        return;
    // A label's height as Qt measures it: a text document in the labels' font with Qt's margin.
    QTextDocument line;
    line.setDocumentMargin(kAxisTextMargin);
    line.setDefaultFont(names->labelsFont());
    line.setPlainText(names->categories().front());
    const double perLabel = line.size().height() + 2 * kAxisLabelPadding + 1; // 1: Qt's own rounding
    const double around = m_kinds->height() - plot.height();
    const int height = std::max(kChartHeight, static_cast<int>(std::ceil((names->count() + 2) * perLabel + around)));
    if (height != m_kinds->minimumHeight())
        m_kinds->setMinimumHeight(height);
}

void ChartsPanel::fillLinks()
{
    double yMax = 0;
    const auto lines = charts::busiestLinks(*m_run);
    const bool rate = charts::linksAsRate(*m_run);
    m_links->setYTitle(rate ? tr("GB/s copied") : tr("utilisation (%)"));
    for (const auto& line : lines) {
        QLineSeries* series = lineSeries(line.name, line.points);
        m_links->addData(series);
        m_links->hoverPoints(series, [name = line.name, points = line.points, rate](const QPointF& at) {
            const QPointF p = charts::nearestByX(points, at.x());
            return rate ? tr("%1: %2 GB/s copied at %3 s").arg(name, exact(p.y(), 2), exact(p.x()))
                        : tr("%1: %2% of its bandwidth at %3 s").arg(name, exact(p.y(), 2), exact(p.x()));
        });
        yMax = std::max(yMax, maxY(line.points));
    }
    const double buckets =
        m_run->linkSeries.empty() ? 0 : static_cast<double>(m_run->linkSeries.front().bytesPerBucket.size());
    m_links->setRanges(std::max(endSeconds(*m_run), buckets * core::toSeconds(m_run->linkInterval)), yMax);
    m_links->setEmptyText(lines.empty() ? tr("No link carried traffic in this run.") : QString());
}

void ChartsPanel::fillTiers()
{
    const auto tiers = charts::kvTierOccupancy(*m_run);
    double end = endSeconds(*m_run), peak = 0, capacity = 0;
    for (const auto& tier : tiers) {
        peak = std::max({peak, tier.peakBlocks, maxY(tier.points)});
        capacity = std::max(capacity, tier.capacityBlocks);
        if (!tier.points.isEmpty())
            end = std::max(end, tier.points.back().x());
    }
    const bool capacityLines = capacity > 0 && capacity <= kCapacityLineRatio * peak;
    const double yMax = capacityLines ? std::max(peak, capacity) : peak;
    const ScaledUnit unit = countUnit(yMax);
    for (const auto& tier : tiers) {
        const QString blocks = QLocale().toString(tier.capacityBlocks, 'f', 0);
        // Off the plot, the capacity is in the legend: "dram (msi-directory), capacity 476,837 blocks".
        QLineSeries* series =
            lineSeries(capacityLines ? tier.name : tr("%1, capacity %2 blocks").arg(tier.name, blocks),
                       scaledY(tier.points, unit.divisor));
        m_tiers->addData(series);
        m_tiers->hoverPoints(series, [name = tier.name, points = tier.points, blocks](const QPointF& at) {
            return tr("%1: %2 blocks at %3 s (capacity %4 blocks)")
                .arg(name, exact(charts::stepValueAt(points, at.x()), 0), exact(at.x()), blocks);
        });
        if (capacityLines && tier.capacityBlocks > 0) {
            const double y = tier.capacityBlocks / unit.divisor;
            QLineSeries* line = lineSeries(tr("%1 capacity").arg(tier.name), {QPointF(0, y), QPointF(end, y)});
            m_tiers->addData(line);
            line->setPen(QPen(series->color(), 1.5, Qt::DashLine));
            m_tiers->hoverPoints(line, [name = tier.name, blocks](const QPointF&) {
                return tr("%1 capacity: %2 blocks").arg(name, blocks);
            });
        }
    }
    m_tiers->setYTitle(unit.unit.isEmpty() ? tr("KV blocks") : tr("KV blocks (%1)").arg(unit.unit));
    m_tiers->setRanges(end, yMax / unit.divisor);
    m_tiers->setEmptyText(tiers.empty() ? tr("This run has no KV tiers.")
                          : peak <= 0   ? tr("The KV tiers held no blocks: no sequence was taken off HBM.")
                                        : QString());
}

void ChartsPanel::fillAvailability()
{
    const charts::Availability a = charts::availability(*m_run);
    QLineSeries* line = lineSeries(tr("instances up (%1% available)").arg(exact(100 * a.availability, 1)), a.up);
    m_availability->addData(line);
    m_availability->hoverPoints(line, [points = a.up](const QPointF& at) {
        return tr("%1 serving instances up at %2 s").arg(exact(charts::stepValueAt(points, at.x()), 0), exact(at.x()));
    });
    // Each failure's moments as marks on the staircase, in hues that say what happened.
    const struct {
        const charts::FailureMarks* marks;
        QString name, verb;
        QColor hue;
        QScatterSeries::MarkerShape shape;
    } kinds[] = {
        {&a.failed, tr("failed"), tr("failed"), QColor(0xd6, 0x27, 0x28), QScatterSeries::MarkerShapeTriangle},
        {&a.detected, tr("failure detected"), tr("declared dead"), QColor(0xff, 0x7f, 0x0e),
         QScatterSeries::MarkerShapeRectangle},
        {&a.repaired, tr("repaired"), tr("repaired"), QColor(0x2c, 0xa0, 0x2c), QScatterSeries::MarkerShapeCircle},
    };
    for (const auto& kind : kinds) {
        if (kind.marks->points.isEmpty())
            continue;
        auto* marks = new QScatterSeries();
        marks->setName(kind.name);
        marks->setMarkerShape(kind.shape);
        marks->setMarkerSize(11);
        marks->setColor(kind.hue);
        marks->replace(kind.marks->points);
        m_availability->addData(marks);
        m_availability->hoverPoints(marks, [mine = *kind.marks, verb = kind.verb](const QPointF& at) {
            const qsizetype i = mine.points.indexOf(charts::nearestByX(mine.points, at.x()));
            return tr("%1 %2 at %3 s").arg(i >= 0 ? mine.nodes[i] : QString(), verb, exact(at.x()));
        });
    }
    double end = endSeconds(*m_run);
    if (!a.up.isEmpty())
        end = std::max(end, a.up.back().x());
    m_availability->setRanges(end, maxY(a.up) + 1); // the full count below the top of the plot, not on its edge
    m_availability->setEmptyText(!m_run->summary.failures.enabled ? tr("This run has no node failures.")
                                 : a.up.isEmpty()                 ? tr("The run recorded no count of the instances up.")
                                                                  : QString());
}

void ChartsPanel::fillBatches()
{
    const auto batches = charts::decodeBatches(*m_run);
    double yMax = 0;
    for (const charts::DecodeBatchSeries& instance : batches) {
        auto* series = new QScatterSeries();
        series->setName(instance.name);
        series->setMarkerSize(5);
        series->setPen(Qt::NoPen);
        series->replace(instance.points);
        m_batches->addData(series);
        m_batches->hoverPoints(series, [name = instance.name, mean = instance.means.sequences,
                                        wait = instance.means.waitMs](const QPointF& at) {
            return tr("%1: %2 sequences in the iteration starting at %3 s (over the run: %4 a batch, %5 ms of "
                      "coherence wait before computing)")
                .arg(name, exact(at.y(), 0), exact(at.x()), exact(mean, 1), exact(wait));
        });
        yMax = std::max(yMax, maxY(instance.points));
    }
    const bool sampled = m_run->summary.decodeIterations > m_run->iterations.size();
    m_batches->setYTitle(sampled
                             ? tr("sequences per iteration (a sample of %1)")
                                   .arg(QLocale().toString(static_cast<qulonglong>(m_run->summary.decodeIterations)))
                             : tr("sequences per iteration"));
    m_batches->setRanges(endSeconds(*m_run), yMax + 1);
    m_batches->setEmptyText(batches.empty() ? tr("This run has no record of its decode iterations.") : QString());
}

} // namespace coh::ui
