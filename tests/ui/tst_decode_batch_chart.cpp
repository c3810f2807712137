// The Charts tab's charts that only some runs have: the decode batches (a series per decode instance holding every
// recorded iteration at its start with its sequences, for runs that recorded their iterations) and the KV tiers'.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/charts_panel.h"
#include "ui/time_chart_view.h"

#include <QChart>
#include <QLayout>
#include <QScatterSeries>
#include <QStandardPaths>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

using namespace coh;

class DecodeBatchChartTest : public QObject {
    Q_OBJECT
  private slots:
    void batchesHoldEveryRecordedIterationAndOnlySomeRunsHaveTiers()
    {
        QStandardPaths::setTestModeEnabled(true);
        const std::string path = COH_DATASETS_DIR "/scenarios/default.json";
        std::ifstream in(path);
        core::Scenario scenario = core::parseScenario(nlohmann::json::parse(in), path);
        core::limitRequests(scenario.workload, 80);
        auto run = std::make_shared<const core::RunResult>(
            core::runScenario(scenario, core::buildWorkload(scenario.workload, scenario.seed)));
        ui::ChartsPanel panel;
        panel.resize(1200, 900);
        panel.setRun(run);
        ui::TimeChartView* view = panel.batchChart();
        QVERIFY(!run->iterations.empty());
        QVERIFY(!view->isHidden());
        std::map<std::uint32_t, std::size_t> perInstance;
        std::uint64_t sequences = 0;
        for (const core::DecodeIterationRecord& it : run->iterations) {
            ++perInstance[it.instance];
            sequences += it.sequences;
        }
        QList<QScatterSeries*> series;
        for (QAbstractSeries* s : view->chart()->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s))
                series.append(scatter);
        QCOMPARE(series.size(), static_cast<qsizetype>(perInstance.size()));
        // Fewer iterations than the downsampling limit: every one is a point, at its sequences.
        std::size_t points = 0;
        double sum = 0;
        for (QScatterSeries* s : series) {
            points += static_cast<std::size_t>(s->count());
            for (const QPointF& p : s->points())
                sum += p.y();
        }
        QCOMPARE(points, run->iterations.size());
        QCOMPARE(sum, static_cast<double>(sequences));
        QCOMPARE(series.front()->name(), QString::fromStdString(run->instanceIds[perInstance.begin()->first]));

        // A run without the record (stored before schema 8) has no such chart, and the grid has the six.
        auto old = std::make_shared<core::RunResult>(*run);
        old->iterations.clear();
        panel.setRun(old);
        QVERIFY(view->isHidden());
        QCOMPARE(view->parentWidget()->layout()->count(), 6);
        panel.setRun(run);
        QVERIFY(!view->isHidden());
        QCOMPARE(view->parentWidget()->layout()->count(), 7);

        // The tiers' chart: only a run with tiers brings it in; the next run without takes it out again.
        ui::TimeChartView* tiers = panel.tierChart();
        QLayout* grid = tiers->parentWidget()->layout();
        QVERIFY(tiers->isHidden() && grid->indexOf(tiers) == -1);
        auto tiered = std::make_shared<core::RunResult>(*run);
        tiered->summary.kvTiers.enabled = true;
        tiered->summary.kvTiers.tiers = {{.tier = "dram",
                                          .protocol = "direct",
                                          .capacityBlocks = 400,
                                          .peakBlocks = 25,
                                          .occupancy = {{core::kSecond, 25}}}};
        panel.setRun(tiered);
        QVERIFY(!tiers->isHidden());
        panel.setRun(run);
        QVERIFY(tiers->isHidden() && grid->indexOf(tiers) == -1);
        QCOMPARE(grid->count(), 7); // the six, and the decode batches
    }
};

QTEST_MAIN(DecodeBatchChartTest)
#include "tst_decode_batch_chart.moc"
