// The run charts against the RunResult they are drawn from: point counts, values, CDF ends, bar lengths,
// the time cursor and click-to-time; round ticks, link directions by node, empty states, hover tooltips with
// exact values, and charts that read (nothing clipped, elided or faint) at 680x440 and 1600x1000 in both palettes.
#include "core/engine/traffic_counts.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/chart_builders.h"
#include "ui/chart_view.h"
#include "ui/charts_panel.h"
#include "ui/main_actions.h"
#include "ui/message_roles.h"
#include "ui/nice_ticks.h"
#include "ui/time_chart_view.h"
#include "ui_checks.h"

#include <QAbstractBarSeries>
#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLayout>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>

#include <QTest>
#include <QValueAxis>
#include <map>

#include <algorithm>
#include <fstream>

using namespace coh;

namespace {

const std::string kScenarioPath = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";

std::shared_ptr<const core::RunResult> runDefault(bool msi)
{
    std::ifstream in(kScenarioPath);
    nlohmann::json json = nlohmann::json::parse(in);
    if (msi)
        json["coherence"] = {{"decode", "msi-directory"}};
    core::Scenario scenario = core::parseScenario(json, kScenarioPath);
    core::limitRequests(scenario.workload, 80);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    return std::make_shared<const core::RunResult>(core::runScenario(scenario, workload));
}

// Text items of the chart's scene that Qt Charts cut short with an ellipsis (axis labels, titles, legend).
QStringList elidedTexts(QChartView* view)
{
    QStringList out;
    for (QGraphicsItem* item : view->scene()->items()) {
        if (!item->isVisible())
            continue;
        QString text;
        if (auto* t = dynamic_cast<QGraphicsTextItem*>(item))
            text = t->toPlainText();
        else if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item))
            text = t->text();
        if (text.contains(QChar(0x2026)) || text.endsWith(QStringLiteral("...")))
            out << text;
    }
    return out;
}

QXYSeries* firstXY(QChart* chart, const QString& name = {})
{
    for (QAbstractSeries* s : chart->series())
        if (auto* xy = qobject_cast<QXYSeries*>(s); xy && xy->name() != QStringLiteral("replay time"))
            if (name.isEmpty() || xy->name() == name)
                return xy;
    return nullptr;
}

// Two tiers by hand: dram held 40 blocks from 1 s, 100 from 2 s, 10 from 3 s; cxl 25 from 1.5 s, none from 4 s.
core::KvTiersSummary twoTiers(std::uint64_t dramCapacity, std::uint64_t cxlCapacity)
{
    constexpr core::SimTime s = core::kSecond;
    core::KvTiersSummary tiers;
    tiers.enabled = true;
    tiers.tiers = {{.tier = "dram",
                    .protocol = "msi-directory",
                    .capacityBlocks = dramCapacity,
                    .peakBlocks = 100,
                    .occupancy = {{1 * s, 40}, {2 * s, 100}, {3 * s, 10}}},
                   {.tier = "cxl",
                    .protocol = "direct",
                    .capacityBlocks = cxlCapacity,
                    .peakBlocks = 25,
                    .occupancy = {{s + s / 2, 25}, {4 * s, 0}}}};
    return tiers;
}

QList<QLineSeries*> dataLines(ui::TimeChartView* view)
{
    QList<QLineSeries*> lines;
    for (QAbstractSeries* s : view->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line != view->cursor())
            lines.append(line);
    return lines;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void latencyOverTimeHoldsEveryRequest();
    void cdfEndsAtTheMaximum();
    void tpotSplitAddsUp();
    void messagesByKindMatchSummary();
    void messagesOfNoRoleAreOtherNotData();
    void busiestLinksAreTheTopFive();
    void bothDirectionsOfALinkAreToldApart();
    void ticksAreRound();
    void emptyStateInsteadOfBareAxes();
    void hoverShowsTheExactValue();
    void chartsReadAtEverySizeInBothPalettes();
    void pointsAndAreasAreDrawnInTheirOwnHue();
    void aCdfIsDrawnAsTheStaircaseItIs();
    void cursorFollowsTime();
    void clickOnATimeChartGivesItsTime();
    void tierStepPointsAreExact();
    void tierChartHasOneStaircasePerTier();
    void cleanupTestCase() { delete m_panel; }

  private:
    std::shared_ptr<const core::RunResult> m_run;
    ui::ChartsPanel* m_panel = nullptr;
};

void TestCharts::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_run = runDefault(true);
    QCOMPARE(m_run->requests.size(), std::size_t{80});
    m_panel = new ui::ChartsPanel();
    m_panel->resize(1200, 900);
    m_panel->setRun(m_run);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel));
}

void TestCharts::latencyOverTimeHoldsEveryRequest()
{
    auto* ttft = firstXY(m_panel->ttftChart()->chart());
    QVERIFY(ttft);
    QCOMPARE(ttft->count(), static_cast<int>(m_run->requests.size()));
    std::vector<std::pair<double, double>> expected;
    for (const auto& r : m_run->requests)
        expected.emplace_back(core::toSeconds(r.firstToken), static_cast<double>(r.ttft()) * 1e-6);
    std::stable_sort(expected.begin(), expected.end(), [](auto& a, auto& b) { return a.first < b.first; });
    const QList<QPointF> points = ttft->points();
    for (int i = 0; i < points.size(); ++i) {
        QCOMPARE(points[i].x(), expected[static_cast<std::size_t>(i)].first);
        QCOMPARE(points[i].y(), expected[static_cast<std::size_t>(i)].second);
    }
    const auto multiToken =
        std::count_if(m_run->requests.begin(), m_run->requests.end(), [](const auto& r) { return r.outputTokens > 1; });
    auto* tpot = firstXY(m_panel->tpotChart()->chart());
    QVERIFY(tpot);
    QCOMPARE(tpot->count(), static_cast<int>(multiToken));
}

void TestCharts::cdfEndsAtTheMaximum()
{
    QChart* chart = m_panel->cdfChart()->chart();
    auto* ttft = firstXY(chart, QStringLiteral("TTFT"));
    auto* tpot = firstXY(chart, QStringLiteral("TPOT"));
    auto* e2e = firstXY(chart, QStringLiteral("E2E"));
    QVERIFY(ttft && tpot && e2e);
    QCOMPARE(ttft->points().back().y(), 1.0);
    QVERIFY(qFuzzyCompare(ttft->points().back().x(), m_run->summary.ttftMs.max));
    QVERIFY(qFuzzyCompare(tpot->points().back().x(), m_run->summary.tpotMs.max));
    QVERIFY(qFuzzyCompare(e2e->points().back().x(), m_run->summary.e2eMs.max));
    // A staircase from 0 that rises once per request, by one request's share each time.
    const QList<QPointF> points = ttft->points();
    QCOMPARE(points.front().y(), 0.0);
    int rises = 0;
    for (int i = 1; i < points.size(); ++i) {
        QVERIFY(points[i].x() >= points[i - 1].x() && points[i].y() >= points[i - 1].y());
        if (points[i].y() > points[i - 1].y()) {
            ++rises;
            QVERIFY(
                qFuzzyCompare(points[i].y() - points[i - 1].y(), 1.0 / static_cast<double>(m_run->requests.size())));
        }
    }
    QCOMPARE(rises, static_cast<int>(m_run->requests.size()));
}

void TestCharts::tpotSplitAddsUp()
{
    QChart* chart = m_panel->splitChart()->chart();
    QList<QAreaSeries*> areas;
    for (QAbstractSeries* s : chart->series())
        if (auto* area = qobject_cast<QAreaSeries*>(s))
            areas.append(area);
    QCOMPARE(areas.size(), 4);
    QCOMPARE(areas[0]->name(), QStringLiteral("compute"));
    std::vector<const core::RequestMetrics*> requests;
    for (const auto& r : m_run->requests)
        if (r.outputTokens > 1)
            requests.push_back(&r);
    std::stable_sort(requests.begin(), requests.end(), [](auto* a, auto* b) { return a->finish < b->finish; });
    const QList<QPointF> compute = areas[0]->upperSeries()->points();
    const QList<QPointF> stall = areas[2]->upperSeries()->points();
    const QList<QPointF> total = areas[3]->upperSeries()->points();
    QCOMPARE(compute.size(), static_cast<int>(requests.size()));
    for (int i = 0; i < compute.size(); ++i) {
        const auto& r = *requests[static_cast<std::size_t>(i)];
        const double gaps = static_cast<double>(r.outputTokens - 1);
        QVERIFY(qFuzzyCompare(compute[i].y() + 1, static_cast<double>(r.decodeCompute) * 1e-6 / gaps + 1));
        const double expectedStall =
            static_cast<double>(r.decodeCompute + r.decodeTransfer + r.decodeStall) * 1e-6 / gaps;
        QVERIFY(qFuzzyCompare(stall[i].y() + 1, expectedStall + 1));
        // The stack's top is the request's mean token gap (the rest of it: waiting for a shared device).
        const double gap = static_cast<double>(r.finish - r.firstToken) * 1e-6 / gaps;
        QVERIFY(qFuzzyCompare(total[i].y() + 1, std::max(gap, expectedStall) + 1));
    }
}

void TestCharts::messagesByKindMatchSummary()
{
    QChart* chart = m_panel->kindChart()->chart();
    QCOMPARE(chart->series().size(), 1);
    auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().front());
    QVERIFY(bars);
    // Horizontal bars: the kinds' names on the left axis, read in full; kinds never sent are left out.
    auto* axis = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Vertical).front());
    QVERIFY(axis);
    std::vector<core::MessageKindStats> sent;
    for (const auto& k : m_run->summary.messagesByKind)
        if (k.count > 0)
            sent.push_back(k);
    QVERIFY(sent.size() >= 3);
    QCOMPARE(axis->count(), static_cast<int>(sent.size()));
    auto* counts = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
    QVERIFY(counts);
    const double divisor = counts->titleText().contains(QStringLiteral("thousand")) ? 1000.0 : 1.0;
    std::uint64_t total = 0;
    for (const auto& kind : sent) {
        const int k = static_cast<int>(axis->categories().indexOf(QString::fromStdString(kind.name)));
        QVERIFY2(k >= 0, kind.name.c_str());
        double length = 0;
        for (QBarSet* set : bars->barSets())
            length += set->at(k);
        QVERIFY(qFuzzyCompare(length * divisor, static_cast<double>(kind.count)));
        total += kind.count;
    }
    // Busiest on top.
    QCOMPARE(axis->at(axis->count() - 1),
             QString::fromStdString(
                 std::max_element(sent.begin(), sent.end(), [](auto& a, auto& b) { return a.count < b.count; })->name));
    QCOMPARE(total, core::trafficCounts(m_run->summary).messages);
}

void TestCharts::messagesOfNoRoleAreOtherNotData()
{
    // Every core role has its UI role of the same name, one to one; a name core does not know is core's Other, and
    // so the UI's: such messages used to be counted (and coloured) as data.
    QSet<ui::MessageRole> seen;
    for (int r = 0; r < core::coherence::kMessageRoles; ++r) {
        const auto role = static_cast<core::coherence::MessageRole>(r);
        const ui::MessageRole shown = ui::messageRoleOf(role);
        QCOMPARE(ui::messageRoleLabel(shown), QString::fromLatin1(core::coherence::messageRoleName(role)));
        QCOMPARE(ui::messageRoleFromName(core::coherence::messageRoleName(role)), shown);
        seen.insert(shown);
    }
    QCOMPARE(seen.size(), ui::kMessageRoleCount);
    QCOMPARE(ui::messageRoleFromName("other"), ui::MessageRole::Other);
    QCOMPARE(ui::messageRoleFromName("no-such-role"), ui::MessageRole::Other);

    // In the messages-by-kind chart a kind of role "other" is its own bar set, the data set does not grow.
    auto run = std::make_shared<core::RunResult>(*m_run);
    run->summary.messagesByKind.push_back({"Mystery", false, 7, 448, "other"});
    ui::ChartsPanel panel;
    panel.setRun(run);
    auto* bars = qobject_cast<QAbstractBarSeries*>(panel.kindChart()->chart()->series().front());
    QVERIFY(bars);
    double other = -1, data = 0;
    for (QBarSet* set : bars->barSets()) {
        if (set->label() == ui::messageRoleLabel(ui::MessageRole::Other)) {
            other = set->sum();
            QCOMPARE(set->color(), ui::messageRoleColor(ui::MessageRole::Other));
        }
        if (set->label() == ui::messageRoleLabel(ui::MessageRole::Data))
            data = set->sum();
    }
    auto* counts = qobject_cast<QValueAxis*>(panel.kindChart()->chart()->axes(Qt::Horizontal).front());
    const double divisor = counts->titleText().contains(QStringLiteral("thousand")) ? 1000.0 : 1.0;
    QVERIFY(qFuzzyCompare(other * divisor, 7.0));
    double dataSent = 0;
    for (const auto& kind : m_run->summary.messagesByKind)
        if (kind.role == "data")
            dataSent += static_cast<double>(kind.count);
    QVERIFY(qFuzzyCompare(data * divisor, dataSent));
}

void TestCharts::busiestLinksAreTheTopFive()
{
    QChart* chart = m_panel->linkChart()->chart();
    QList<QLineSeries*> lines;
    for (QAbstractSeries* s : chart->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() != QStringLiteral("replay time"))
            lines.append(line);
    std::vector<const core::LinkSeries*> sorted;
    for (const auto& s : m_run->linkSeries)
        if (s.totalBytes > 0)
            sorted.push_back(&s);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->totalBytes > b->totalBytes; });
    QCOMPARE(lines.size(), static_cast<int>(std::min<std::size_t>(5, sorted.size())));
    const core::LinkSeries& top = *sorted.front();
    // Named by the nodes it runs between, in its direction.
    const auto ends = m_run->linkEnds.at(top.link);
    const QString from = QString::fromStdString(m_run->nodeIds[top.forward ? ends[0] : ends[1]]);
    const QString to = QString::fromStdString(m_run->nodeIds[top.forward ? ends[1] : ends[0]]);
    QCOMPARE(lines.front()->name(), from + QStringLiteral(" \u2192 ") + to);
    QCOMPARE(lines.front()->count(), static_cast<int>(std::min<std::size_t>(top.bytesPerBucket.size(), 2000)));
    const double seconds = core::toSeconds(m_run->linkInterval);
    for (int b = 0; b < lines.front()->count(); ++b)
        QVERIFY(qFuzzyCompare(1 + lines.front()->at(b).y(), 1 + 100 * top.bytesPerBucket[static_cast<std::size_t>(b)] /
                                                                    (top.bandwidthBytesPerSec * seconds)));
    QCOMPARE(m_panel->linkChart()->axisY()->titleText(), QStringLiteral("utilisation (%)"));
    QCOMPARE(m_panel->linkChart()->axisX()->titleText(), QStringLiteral("simulated time (s)"));
}

void TestCharts::bothDirectionsOfALinkAreToldApart()
{
    core::RunResult run;
    run.nodeIds = {"gpu0", "nvswitch", "gpu1"};
    run.linkIds = {"gpu0-nvswitch", "gpu1-nvswitch", "gpu0-nvswitch-b"};
    run.linkEnds = {{0, 1}, {2, 1}, {0, 1}};
    QCOMPARE(ui::charts::linkDirectionName(run, 1, true), QStringLiteral("gpu1 \u2192 nvswitch"));
    QCOMPARE(ui::charts::linkDirectionName(run, 1, false), QStringLiteral("nvswitch \u2192 gpu1"));
    // Two links between the same nodes: the link's id tells them apart.
    QCOMPARE(ui::charts::linkDirectionName(run, 2, false), QStringLiteral("nvswitch \u2192 gpu0 (gpu0-nvswitch-b)"));
    // Without the ends: the link id and a -> b / b -> a.
    run.linkEnds.clear();
    QCOMPARE(ui::charts::linkDirectionName(run, 0, false), QStringLiteral("gpu0-nvswitch b \u2192 a"));
}

void TestCharts::ticksAreRound()
{
    const auto ticks = [](double lo, double hi) {
        const ui::NiceTicks t = ui::niceTicks(lo, hi);
        QList<double> values;
        for (int i = 0; i < t.count; ++i)
            values << std::round((t.min + i * t.step) * 1e9) / 1e9; // 3 x 0.2 is 0.6000000000000001
        return values;
    };
    QCOMPARE(ticks(0, 10), (QList<double>{0, 2, 4, 6, 8, 10}));
    QCOMPARE(ticks(0, 9.38), (QList<double>{0, 2, 4, 6, 8, 10})); // not 3.13/6.25/9.38
    QCOMPARE(ticks(0, 12.5), (QList<double>{0, 2.5, 5, 7.5, 10, 12.5}));
    QCOMPARE(ticks(0, 1), (QList<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
    QCOMPARE(ticks(0, 137.3), (QList<double>{0, 50, 100, 150}));
    QCOMPARE(ui::niceTicks(0, 12.5).decimals, 1);
    QCOMPARE(ui::niceTicks(0, 137.3).decimals, 0);
    QCOMPARE(ui::niceTicks(0, 0.05).decimals, 2);
    // 40,000 ms reads as 40 s: the unit switches instead of labels like 4e+04.
    QCOMPARE(ui::timeUnitForMilliseconds(40000).unit, QStringLiteral("s"));
    QCOMPARE(ui::timeUnitForMilliseconds(40000).divisor, 1000.0);
    QCOMPARE(ticks(0, 40000 / 1000.0), (QList<double>{0, 10, 20, 30, 40}));
    QCOMPARE(ui::timeUnitForMilliseconds(136).unit, QStringLiteral("ms"));
    QCOMPARE(ui::countUnit(56137).unit, QStringLiteral("thousand"));
    // Every axis of the panel is on round ticks: its range is a whole number of its tick steps.
    for (ui::TimeChartView* view :
         {m_panel->ttftChart(), m_panel->tpotChart(), m_panel->splitChart(), m_panel->linkChart()}) {
        for (QValueAxis* axis : {view->axisX(), view->axisY()}) {
            const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
            const ui::NiceTicks t = ui::niceTicks(axis->min(), axis->max());
            QVERIFY2(qFuzzyCompare(step, t.step), qPrintable(axis->titleText()));
            QVERIFY(axis->labelFormat().endsWith(QLatin1Char('f')));
        }
    }
}

void TestCharts::emptyStateInsteadOfBareAxes()
{
    ui::ChartsPanel empty;
    empty.resize(700, 900);
    empty.show();
    QVERIFY(QTest::qWaitForWindowExposed(&empty));
    const QList<ui::ChartView*> views = {empty.ttftChart(),  empty.tpotChart(), empty.cdfChart(),
                                         empty.splitChart(), empty.kindChart(), empty.linkChart()};
    for (ui::ChartView* view : views) {
        QVERIFY(view->isEmptyStateShown());
        QVERIFY(view->emptyLabel()->isVisible());
        QVERIFY(view->emptyLabel()->text().contains(QStringLiteral("No run")));
        for (QAbstractAxis* axis : view->chart()->axes())
            QVERIFY(!axis->isVisible());
    }
    // A run brings the charts back.
    empty.setRun(m_run);
    for (ui::ChartView* view : views) {
        QVERIFY(!view->isEmptyStateShown());
        for (QAbstractAxis* axis : view->chart()->axes())
            QVERIFY(axis->isVisible());
    }
    // A run without link traffic says so on that chart only.
    auto quiet = std::make_shared<core::RunResult>(*m_run);
    quiet->linkSeries.clear();
    empty.setRun(quiet);
    QVERIFY(empty.linkChart()->isEmptyStateShown());
    QVERIFY(empty.linkChart()->emptyLabel()->text().contains(QStringLiteral("No link")));
    QVERIFY(!empty.ttftChart()->isEmptyStateShown());
}

void TestCharts::hoverShowsTheExactValue()
{
    // A TTFT point: its time and latency, exactly.
    auto* ttft = qobject_cast<QScatterSeries*>(firstXY(m_panel->ttftChart()->chart()));
    QVERIFY(ttft);
    const QPointF p = ttft->at(3);
    emit ttft->hovered(p, true);
    QCOMPARE(m_panel->ttftChart()->hoverText(),
             QStringLiteral("first token at %1 s: TTFT %2 ms")
                 .arg(QLocale().toString(p.x(), 'f', 3), QLocale().toString(p.y(), 'f', 3)));
    emit ttft->hovered(p, false);
    QVERIFY(m_panel->ttftChart()->hoverText().isEmpty());

    // A bar: the kind's exact count, also when the axis is in thousands.
    auto* bars = qobject_cast<QAbstractBarSeries*>(m_panel->kindChart()->chart()->series().front());
    auto* axis = qobject_cast<QBarCategoryAxis*>(m_panel->kindChart()->chart()->axes(Qt::Vertical).front());
    QBarSet* set = bars->barSets().front();
    int index = 0;
    while (set->at(index) == 0)
        ++index;
    emit set->hovered(true, index);
    const QString name = axis->at(index);
    std::uint64_t count = 0;
    for (const auto& k : m_run->summary.messagesByKind)
        if (QString::fromStdString(k.name) == name)
            count = k.count;
    QVERIFY(m_panel->kindChart()->hoverText().startsWith(name + QStringLiteral(" (")));
    QVERIFY2(m_panel->kindChart()->hoverText().contains(QLocale().toString(static_cast<qulonglong>(count)) +
                                                        QStringLiteral(" messages")),
             qPrintable(m_panel->kindChart()->hoverText()));

    // A line: the nearest recorded point, not the mouse position between two.
    QLineSeries* link = nullptr;
    for (QAbstractSeries* s : m_panel->linkChart()->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line != m_panel->linkChart()->cursor())
            link = line;
    QVERIFY(link && link->count() > 2);
    const QPointF recorded = link->at(1);
    emit link->hovered(QPointF(recorded.x() + 1e-6, recorded.y() + 3), true);
    QVERIFY2(m_panel->linkChart()->hoverText().contains(QLocale().toString(recorded.y(), 'f', 2) + QStringLiteral("%")),
             qPrintable(m_panel->linkChart()->hoverText()));
}

void TestCharts::chartsReadAtEverySizeInBothPalettes()
{
    for (const bool dark : {false, true}) {
        ui::MainActions::applyPalette(dark);
        for (const QSize size : {QSize(680, 440), QSize(1600, 1000)}) {
            m_panel->resize(size);
            // The grid changes columns on resize; its new size reaches the scroll area on the next layout pass.
            QCoreApplication::processEvents();
            QCoreApplication::processEvents();
            QCOMPARE(m_panel->columns(), size.width() >= 1000 ? 2 : 1);
            const QString where = QStringLiteral("%1x%2 %3")
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"));
            const QStringList cut = ui::test::clippedControls(m_panel);
            QVERIFY2(cut.isEmpty(), qPrintable(where + QStringLiteral(": ") + cut.join(QStringLiteral("; "))));
            const QStringList faint = ui::test::lowContrastTexts(m_panel);
            QVERIFY2(faint.isEmpty(), qPrintable(where + QStringLiteral(": ") + faint.join(QStringLiteral("; "))));
            // Nothing a reader needs is cut short: no axis label, title or legend entry ends in an ellipsis.
            for (ui::ChartView* view :
                 {static_cast<ui::ChartView*>(m_panel->ttftChart()), static_cast<ui::ChartView*>(m_panel->tpotChart()),
                  m_panel->cdfChart(), static_cast<ui::ChartView*>(m_panel->splitChart()), m_panel->kindChart(),
                  static_cast<ui::ChartView*>(m_panel->linkChart()),
                  static_cast<ui::ChartView*>(m_panel->batchChart())}) {
                const QStringList elided = elidedTexts(view);
                QVERIFY2(elided.isEmpty(), qPrintable(where + QStringLiteral(" ") + view->chart()->title() +
                                                      QStringLiteral(": ") + elided.join(QStringLiteral(", "))));
                // The chart is drawn in the palette: its background is the palette's base.
                QCOMPARE(view->chart()->backgroundBrush().color(), QApplication::palette().color(QPalette::Base));
                QCOMPARE(view->chart()->titleBrush().color(), QApplication::palette().color(QPalette::Text));
            }
        }
    }
    ui::MainActions::applyPalette(false);
    m_panel->resize(1200, 900);
}

void TestCharts::pointsAndAreasAreDrawnInTheirOwnHue()
{
    // Qt's theme ringed points and edged areas in white: white circles on the dark palette, pale dots on the light
    // one. Each mark is now its own hue, 3:1 against the chart's background (WCAG's figure for graphics).
    for (const bool dark : {false, true}) {
        ui::MainActions::applyPalette(dark);
        const QColor base = QApplication::palette().color(QPalette::Base);
        const QString where = dark ? QStringLiteral("dark") : QStringLiteral("light");
        int points = 0;
        for (ui::TimeChartView* view : {m_panel->ttftChart(), m_panel->tpotChart()}) {
            for (QAbstractSeries* s : view->chart()->series()) {
                auto* scatter = qobject_cast<QScatterSeries*>(s);
                if (!scatter)
                    continue;
                ++points;
                QVERIFY(scatter->markerSize() >= 7);
                QCOMPARE(scatter->pen().style(), Qt::NoPen);
                QVERIFY2(ui::contrastRatio(scatter->color(), base) >= 3.0,
                         qPrintable(where + QStringLiteral(" ") + scatter->color().name()));
            }
        }
        QCOMPARE(points, 2);
        QList<QColor> fills;
        for (QAbstractSeries* s : m_panel->splitChart()->chart()->series()) {
            auto* area = qobject_cast<QAreaSeries*>(s);
            if (!area)
                continue;
            const QColor fill = area->brush().color();
            // The edge is the fill itself, never the near-white (dark) or the background (light) of the theme.
            QCOMPARE(area->pen().color(), fill);
            QVERIFY(area->pen().widthF() <= 1.5);
            QVERIFY2(ui::contrastRatio(fill, base) >= 3.0, qPrintable(where + QStringLiteral(" ") + fill.name()));
            QVERIFY2(!fills.contains(fill), qPrintable(area->name()));
            fills << fill;
        }
        QCOMPARE(fills.size(), 4); // compute, KV transfer, coherence stall, waiting
    }
    // The dark fills are the same after a round trip through the light palette: made from the series' hue each time.
    QList<QColor> before;
    for (QAbstractSeries* s : m_panel->splitChart()->chart()->series())
        if (auto* area = qobject_cast<QAreaSeries*>(s))
            before << area->color();
    ui::MainActions::applyPalette(false);
    ui::MainActions::applyPalette(true);
    QList<QColor> after;
    for (QAbstractSeries* s : m_panel->splitChart()->chart()->series())
        if (auto* area = qobject_cast<QAreaSeries*>(s))
            after << area->color();
    QCOMPARE(after, before);
    ui::MainActions::applyPalette(false);
}

void TestCharts::aCdfIsDrawnAsTheStaircaseItIs()
{
    // The Charts tab draws its CDFs as staircases (charts::cdfSteps, tst_chart_builders): every segment flat or
    // upright, from 0.
    QLineSeries* curve = nullptr;
    for (QAbstractSeries* s : m_panel->cdfChart()->chart()->series())
        if ((curve = qobject_cast<QLineSeries*>(s)))
            break;
    QVERIFY(curve);
    const QList<QPointF> drawn = curve->points();
    QVERIFY(drawn.size() >= 2);
    QCOMPARE(drawn.front().y(), 0.0);
    for (qsizetype i = 1; i < drawn.size(); ++i)
        QVERIFY2(drawn[i].x() == drawn[i - 1].x() || drawn[i].y() == drawn[i - 1].y(),
                 qPrintable(QStringLiteral("a slope between points %1 and %2").arg(i - 1).arg(i)));
}

void TestCharts::cursorFollowsTime()
{
    const qint64 t = m_run->requests[m_run->requests.size() / 2].firstToken;
    m_panel->setCursorTime(t);
    QCOMPARE(m_panel->cursorTime(), t);
    for (ui::TimeChartView* view :
         {m_panel->ttftChart(), m_panel->tpotChart(), m_panel->splitChart(), m_panel->linkChart()}) {
        const QList<QPointF> cursor = view->cursor()->points();
        QCOMPARE(cursor.size(), 2);
        QCOMPARE(cursor[0].x(), core::toSeconds(t));
        QCOMPARE(cursor[1].x(), core::toSeconds(t));
        QCOMPARE(cursor[0].y(), view->axisY()->min());
        QCOMPARE(cursor[1].y(), view->axisY()->max());
    }
}

void TestCharts::clickOnATimeChartGivesItsTime()
{
    ui::TimeChartView* view = m_panel->ttftChart();
    QSignalSpy spy(m_panel, &ui::ChartsPanel::timeClicked);
    const QRectF plot = view->chart()->plotArea();
    // The point 3/4 across the plot area maps to 3/4 of the x axis range.
    const QPointF inChart(plot.left() + 0.75 * plot.width(), plot.center().y());
    const QPoint inViewport = view->mapFromScene(view->chart()->mapToScene(inChart));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, inViewport);
    QCOMPARE(spy.count(), 1);
    const double expected = view->axisX()->min() + 0.75 * (view->axisX()->max() - view->axisX()->min());
    const double got = static_cast<double>(spy.front().at(0).toLongLong()) * 1e-9;
    QVERIFY2(qAbs(got - expected) < 0.01 * (view->axisX()->max() - view->axisX()->min()),
             qPrintable(QStringLiteral("%1 vs %2").arg(got).arg(expected)));
    // Outside the plot area (the title) nothing is emitted.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(spy.count(), 1);
}

void TestCharts::tierStepPointsAreExact()
{
    const std::vector<core::BlockCountStep> steps = {{core::kSecond, 3}, {2 * core::kSecond, 5}, {2500000000, 0}};
    // 0 before the first step, two corners a step, the last count held to the end.
    const QList<QPointF> points = ui::charts::stepPoints(steps, 4.0);
    QCOMPARE(points, (QList<QPointF>{{0, 0}, {1, 0}, {1, 3}, {2, 3}, {2, 5}, {2.5, 5}, {2.5, 0}, {4, 0}}));
    for (const auto& [x, y] : {std::pair{0.5, 0.0}, {1.0, 3.0}, {2.2, 5.0}, {3.0, 0.0}})
        QCOMPARE(ui::charts::stepValueAt(points, x), y);
    QCOMPARE(ui::charts::stepPoints({}, 4.0), (QList<QPointF>{{0, 0}, {4, 0}}));
    // Many steps: within kMaxPoints, still a staircase (each x twice), through the peak.
    std::vector<core::BlockCountStep> many;
    for (int i = 1; i <= 4096; ++i)
        many.push_back({i * core::kMillisecond, i == 3000 ? 900.0 : static_cast<double>(i % 50)});
    const QList<QPointF> few = ui::charts::stepPoints(many, 5.0);
    QVERIFY(few.size() <= ui::charts::kMaxPoints);
    QVERIFY(std::any_of(few.begin(), few.end(), [](const QPointF& p) { return p.y() == 900; }));
    for (int i = 1; i + 1 < few.size(); i += 2)
        QCOMPARE(few[i].x(), few[i + 1].x());
    // The run's tiers, named by tier and protocol, each up to the run's last finish.
    core::RunResult run;
    run.requests.emplace_back().finish = 5 * core::kSecond;
    run.summary.kvTiers = twoTiers(400, 300);
    const auto series = ui::charts::kvTierOccupancy(run);
    QCOMPARE(series.size(), std::size_t{2});
    QCOMPARE(series[0].name, QStringLiteral("dram (msi-directory)"));
    QCOMPARE(series[1].name, QStringLiteral("cxl (direct)"));
    QCOMPARE(series[1].points, (QList<QPointF>{{0, 0}, {1.5, 0}, {1.5, 25}, {4, 25}, {4, 0}, {5, 0}}));
    run.summary.kvTiers.enabled = false;
    QVERIFY(ui::charts::kvTierOccupancy(run).empty());
}

void TestCharts::tierChartHasOneStaircasePerTier()
{
    auto run = std::make_shared<core::RunResult>(*m_run);
    run->summary.kvTiers = twoTiers(400, 300); // near the peak: dashed capacity lines
    ui::ChartsPanel panel;
    panel.resize(1200, 900);
    panel.setRun(run);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ui::TimeChartView* view = panel.tierChart();
    QVERIFY(view->isVisible() && !view->isEmptyStateShown());
    QCOMPARE(view->parentWidget()->layout()->indexOf(view), 7); // after the six charts of every run and the batches
    QCOMPARE(view->axisY()->titleText(), QStringLiteral("KV blocks"));
    QCOMPARE(view->axisX()->titleText(), panel.ttftChart()->axisX()->titleText());
    QList<QLineSeries*> lines = dataLines(view);
    QCOMPARE(lines.size(), 4);
    const auto expected = ui::charts::kvTierOccupancy(*run);
    QCOMPARE(lines[0]->name(), QStringLiteral("dram (msi-directory)"));
    QCOMPARE(lines[0]->points(), expected[0].points);
    QCOMPARE(lines[1]->name(), QStringLiteral("dram (msi-directory) capacity"));
    QCOMPARE(lines[1]->pen().style(), Qt::DashLine);
    QCOMPARE(lines[1]->at(0).y(), 400.0);
    QCOMPARE(lines[2]->name(), QStringLiteral("cxl (direct)"));
    QCOMPARE(lines[2]->points(), expected[1].points);
    // The points follow the steps: the value held at each step's time is its count.
    for (const auto& step : run->summary.kvTiers.tiers[0].occupancy)
        QCOMPARE(ui::charts::stepValueAt(lines[0]->points(), core::toSeconds(step.at)), step.blocks);
    QVERIFY(view->axisY()->max() >= 400);
    // Hover: the count held at the mouse's time, exactly.
    emit lines[0]->hovered(QPointF(2.5, 77), true);
    QCOMPARE(view->hoverText(), QStringLiteral("dram (msi-directory): 100 blocks at %1 s (capacity 400 blocks)")
                                    .arg(QLocale().toString(2.5, 'f', 3)));
    // Round ticks, the replay's cursor and a click that gives a time, as on the other time charts.
    for (QValueAxis* axis : {view->axisX(), view->axisY()}) {
        const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
        QVERIFY(qFuzzyCompare(step, ui::niceTicks(axis->min(), axis->max()).step));
    }
    panel.setCursorTime(2 * core::kSecond);
    QCOMPARE(view->cursor()->at(0).x(), 2.0);
    QSignalSpy spy(&panel, &ui::ChartsPanel::timeClicked);
    const QPointF centre = view->chart()->mapToScene(view->chart()->plotArea().center());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(centre));
    QCOMPARE(spy.count(), 1); // the middle of the plot: the middle of the time axis
    QVERIFY(qAbs(spy.front().at(0).toLongLong() * 1e-9 - view->axisX()->max() / 2) < 0.01 * view->axisX()->max());
    // Capacity a thousand times the peak: no line squashing the staircase; the legend tells it.
    run->summary.kvTiers = twoTiers(400000, 300);
    panel.setRun(run);
    lines = dataLines(view);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0]->name(),
             QStringLiteral("dram (msi-directory), capacity %1 blocks").arg(QLocale().toString(400000)));
    QVERIFY(view->axisY()->max() < 400);
    QCoreApplication::processEvents();
    QVERIFY(ui::test::clippedControls(&panel).isEmpty());
    QVERIFY2(elidedTexts(view).isEmpty(), qPrintable(elidedTexts(view).join(QStringLiteral(", "))));
}

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
