// A real run's charts (ui/charts_panel.h): its clock is the simulator's moved on by what it measured, and its copies
// took this machine's memory, not the scenario's links, so the link chart shows the rate they moved rather than a
// share of link bandwidths they never used (docs/gui-replay.md).
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/chart_builders.h"
#include "ui/charts_panel.h"
#include "ui/time_chart_view.h"

#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>

#include <fstream>

using namespace coh;

class TestRealRunCharts : public QObject {
    Q_OBJECT
  private slots:
    void aRealRunsLinksShowTheRateCopiedOnItsMeasuredClock();
};

void TestRealRunCharts::aRealRunsLinksShowTheRateCopiedOnItsMeasuredClock()
{
    const std::string path = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";
    std::ifstream in(path);
    core::Scenario scenario = core::parseScenario(nlohmann::json::parse(in), path);
    core::limitRequests(scenario.workload, 10);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    // The simulated run's figures, read as a real backend's: what the chart makes of them is all that is tested.
    auto real = std::make_shared<core::RunResult>(core::runScenario(scenario, workload));
    real->summary.backend.name = "real-cpu";
    ui::ChartsPanel panel;
    panel.setRun(real);
    QCOMPARE(panel.linkChart()->axisY()->titleText(), QStringLiteral("GB/s copied"));
    QCOMPARE(panel.linkChart()->axisX()->titleText(), QStringLiteral("run time (s), from measured copies and steps"));
    const auto lines = ui::charts::busiestLinks(*real);
    QVERIFY(!lines.empty());
    // The busiest direction's points are its bytes per bucket over the bucket's seconds, in GB/s.
    const core::LinkSeries* top = nullptr;
    for (const auto& s : real->linkSeries)
        if (!top || s.totalBytes > top->totalBytes)
            top = &s;
    const double seconds = core::toSeconds(real->linkInterval);
    QLineSeries* rate = nullptr;
    for (QAbstractSeries* s : panel.linkChart()->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() == lines.front().name)
            rate = line;
    QVERIFY(rate);
    for (int b = 0; b < rate->count(); ++b)
        QVERIFY(
            qFuzzyCompare(1 + rate->at(b).y(), 1 + top->bytesPerBucket[static_cast<std::size_t>(b)] / (1e9 * seconds)));
}

QTEST_MAIN(TestRealRunCharts)
#include "tst_real_run_charts.moc"
