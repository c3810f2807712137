// The run charts against the RunResult they are drawn from: point counts, values, CDF ends, bar heights,
// the time cursor and click-to-time.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/chart_builders.h"
#include "ui/charts_panel.h"
#include "ui/time_chart_view.h"

#include <QAbstractBarSeries>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QValueAxis>

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

QXYSeries* firstXY(QChart* chart, const QString& name = {})
{
    for (QAbstractSeries* s : chart->series())
        if (auto* xy = qobject_cast<QXYSeries*>(s); xy && xy->name() != QStringLiteral("replay time"))
            if (name.isEmpty() || xy->name() == name)
                return xy;
    return nullptr;
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
    void busiestLinksAreTheTopFive();
    void downsampleKeepsExtremes();
    void cursorFollowsTime();
    void clickOnATimeChartGivesItsTime();
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
    QCOMPARE(ttft->count(), static_cast<int>(m_run->requests.size()));
    QCOMPARE(ttft->points().back().y(), 1.0);
    QVERIFY(qFuzzyCompare(ttft->points().back().x(), m_run->summary.ttftMs.max));
    QVERIFY(qFuzzyCompare(tpot->points().back().x(), m_run->summary.tpotMs.max));
    QVERIFY(qFuzzyCompare(e2e->points().back().x(), m_run->summary.e2eMs.max));
    const QList<QPointF> points = ttft->points();
    for (int i = 1; i < points.size(); ++i)
        QVERIFY(points[i].x() >= points[i - 1].x() && points[i].y() > points[i - 1].y());
    QVERIFY(qFuzzyCompare(points.front().y(), 1.0 / static_cast<double>(m_run->requests.size())));
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
    const auto& kinds = m_run->summary.messagesByKind;
    QVERIFY(kinds.size() >= 3);
    auto* axis = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Horizontal).front());
    QVERIFY(axis);
    QCOMPARE(axis->count(), static_cast<int>(kinds.size()));
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        QCOMPARE(axis->at(static_cast<int>(k)), QString::fromStdString(kinds[k].name));
        double height = 0;
        for (QBarSet* set : bars->barSets())
            height += set->at(static_cast<int>(k));
        QCOMPARE(height, static_cast<double>(kinds[k].count));
    }
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
    QVERIFY(lines.front()->name().startsWith(QString::fromStdString(m_run->linkIds[top.link])));
    QCOMPARE(lines.front()->count(), static_cast<int>(std::min<std::size_t>(top.bytesPerBucket.size(), 2000)));
    const double seconds = core::toSeconds(m_run->linkInterval);
    for (int b = 0; b < lines.front()->count(); ++b)
        QVERIFY(qFuzzyCompare(1 + lines.front()->at(b).y(), 1 + 100 * top.bytesPerBucket[static_cast<std::size_t>(b)] /
                                                                    (top.bandwidthBytesPerSec * seconds)));
}

void TestCharts::downsampleKeepsExtremes()
{
    QList<QPointF> many;
    for (int i = 0; i < 100000; ++i)
        many.append(QPointF(i, i == 77777 ? 1e6 : (i % 7)));
    const QList<QPointF> few = ui::charts::downsample(many);
    QVERIFY(few.size() <= ui::charts::kMaxPoints);
    QVERIFY(std::any_of(few.begin(), few.end(), [](const QPointF& p) { return p.y() == 1e6; }));
    QVERIFY(std::is_sorted(few.begin(), few.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); }));
    std::vector<double> values(50000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<double>(values.size() - i);
    const QList<QPointF> curve = ui::charts::cdf(values);
    QCOMPARE(curve.size(), ui::charts::kMaxPoints);
    QCOMPARE(curve.back(), QPointF(50000, 1.0));
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

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
