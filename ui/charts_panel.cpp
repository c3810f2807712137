#include "ui/charts_panel.h"

#include "ui/chart_builders.h"
#include "ui/message_roles.h"
#include "ui/qt_text.h"
#include "ui/time_chart_view.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QGridLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QScrollArea>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace coh::ui {
namespace {

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

QChartView* plainChartView(const QString& title, QWidget* parent)
{
    auto* chart = new QChart();
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(240);
    return view;
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
    auto* grid = new QGridLayout(content);
    m_ttft = new TimeChartView(tr("Time to first token"), tr("TTFT (ms)"), content);
    m_tpot = new TimeChartView(tr("Time per output token"), tr("TPOT (ms)"), content);
    m_cdf = plainChartView(tr("Latency CDF"), content);
    m_split = new TimeChartView(tr("TPOT split per request"), tr("ms per output token"), content);
    m_kinds = plainChartView(tr("Messages by kind"), content);
    m_links = new TimeChartView(tr("Busiest links"), tr("utilisation (%)"), content);
    grid->addWidget(m_ttft, 0, 0);
    grid->addWidget(m_tpot, 0, 1);
    grid->addWidget(m_cdf, 1, 0);
    grid->addWidget(m_split, 1, 1);
    grid->addWidget(m_kinds, 2, 0);
    grid->addWidget(m_links, 2, 1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    for (TimeChartView* view : {m_ttft, m_tpot, m_split, m_links})
        connect(view, &TimeChartView::timeClicked, this, &ChartsPanel::timeClicked);
}

void ChartsPanel::setRun(std::shared_ptr<const core::RunResult> run)
{
    m_run = std::move(run);
    for (TimeChartView* view : {m_ttft, m_tpot, m_split, m_links})
        view->clearData();
    clearChart(m_cdf->chart());
    clearChart(m_kinds->chart());
    if (m_run) {
        fillLatencyOverTime();
        fillCdf();
        fillSplit();
        fillKinds();
        fillLinks();
    }
    setCursorTime(m_cursorTime);
}

void ChartsPanel::setCursorTime(qint64 ns)
{
    m_cursorTime = ns;
    for (TimeChartView* view : {m_ttft, m_tpot, m_split, m_links})
        view->setCursorTime(ns);
}

void ChartsPanel::fillLatencyOverTime()
{
    const double end = endSeconds(*m_run);
    const QList<QPointF> ttft = charts::ttftOverTime(*m_run);
    auto* ttftSeries = new QScatterSeries();
    ttftSeries->setName(tr("TTFT by first-token time"));
    ttftSeries->setMarkerSize(5);
    ttftSeries->replace(ttft);
    m_ttft->addData(ttftSeries);
    m_ttft->setRanges(end, maxY(ttft));

    const QList<QPointF> tpot = charts::tpotOverTime(*m_run);
    auto* tpotSeries = new QScatterSeries();
    tpotSeries->setName(tr("TPOT by finish time"));
    tpotSeries->setMarkerSize(5);
    tpotSeries->replace(tpot);
    m_tpot->addData(tpotSeries);
    m_tpot->setRanges(end, maxY(tpot));
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
    // TPOT is milliseconds where E2E is seconds: a log axis shows all three; it needs positive values.
    QAbstractAxis* x = nullptr;
    if (xMin > 0) {
        auto* log = new QLogValueAxis();
        log->setBase(10);
        log->setLabelFormat(QStringLiteral("%g"));
        log->setRange(xMin, xMax);
        x = log;
    } else {
        auto* linear = new QValueAxis();
        linear->setRange(std::min(0.0, xMin), xMax > 0 ? xMax : 1);
        x = linear;
    }
    x->setTitleText(tr("latency (ms)"));
    auto* y = new QValueAxis();
    y->setTitleText(tr("fraction of requests"));
    y->setRange(0, 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (const auto& [name, values] : curves) {
        auto* series = lineSeries(name, charts::cdf(values));
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
}

void ChartsPanel::fillSplit()
{
    const charts::TpotSplit split = charts::tpotSplit(*m_run);
    const std::pair<QString, const QList<QPointF>*> layers[] = {{tr("compute"), &split.compute},
                                                                {tr("KV transfer"), &split.transfer},
                                                                {tr("coherence stall"), &split.stall},
                                                                {tr("waiting for a device"), &split.waiting}};
    const QList<QPointF>* below = nullptr;
    for (const auto& [name, upper] : layers) {
        QLineSeries* top = lineSeries(name, *upper);
        QLineSeries* bottom = below ? lineSeries(QString(), *below) : nullptr;
        auto* area = new QAreaSeries(top, bottom);
        // QAreaSeries does not own its edges; parenting them to it does.
        top->setParent(area);
        if (bottom)
            bottom->setParent(area);
        area->setName(name);
        m_split->addData(area);
        below = upper;
    }
    m_split->setRanges(endSeconds(*m_run), maxY(split.waiting));
}

void ChartsPanel::fillKinds()
{
    // One bar set per role, zero outside its kinds: each bar gets its role's colour and the legend names roles.
    const auto& kinds = m_run->summary.messagesByKind;
    QStringList categories;
    std::array<QBarSet*, kMessageRoleCount> sets{};
    auto* series = new QStackedBarSeries();
    for (MessageRole role : allMessageRoles()) {
        auto* set = new QBarSet(messageRoleLabel(role));
        set->setColor(messageRoleColor(role));
        sets[static_cast<std::size_t>(role)] = set;
    }
    double most = 0;
    for (const auto& kind : kinds) {
        categories << toQString(kind.name);
        const auto role = messageRoleFromName(kind.role);
        for (int r = 0; r < kMessageRoleCount; ++r)
            sets[static_cast<std::size_t>(r)]->append(
                static_cast<MessageRole>(r) == role ? static_cast<double>(kind.count) : 0.0);
        most = std::max(most, static_cast<double>(kind.count));
    }
    for (QBarSet* set : sets) {
        if (set->sum() > 0)
            series->append(set);
        else
            delete set;
    }
    QChart* chart = m_kinds->chart();
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis();
    x->append(categories);
    auto* y = new QValueAxis();
    y->setTitleText(tr("messages"));
    y->setRange(0, most > 0 ? most * 1.05 : 1);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void ChartsPanel::fillLinks()
{
    double yMax = 0;
    for (const auto& line : charts::busiestLinks(*m_run)) {
        m_links->addData(lineSeries(line.name, line.points));
        yMax = std::max(yMax, maxY(line.points));
    }
    const double buckets =
        m_run->linkSeries.empty() ? 0 : static_cast<double>(m_run->linkSeries.front().bytesPerBucket.size());
    m_links->setRanges(std::max(endSeconds(*m_run), buckets * core::toSeconds(m_run->linkInterval)), yMax);
}

} // namespace coh::ui
