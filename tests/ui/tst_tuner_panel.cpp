// The Tuner tab: a study file opens (or its problems show), runs off the GUI thread with progress, fills the
// scatter and the table from what core found, cancels cleanly, and a point opens its run.
#include "core/tune/study_analysis.h"
#include "ui/chart_view.h"
#include "ui/main_window.h"
#include "ui/parallel_coordinates.h"
#include "ui/scenario_document.h"
#include "ui/tuner_panel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace coh;

namespace {

// Three decode protocols × two block sizes over the loader tests' two-GPU scenario: tens of milliseconds a run.
QString writeSmallStudy(const QTemporaryDir& dir, const QString& name = QStringLiteral("small.json"))
{
    const nlohmann::json study = {
        {"name", "small"},
        {"scenario", std::string(COH_TEST_DATA_DIR) + "/scenarios/minimal.json"},
        {"parameters",
         {{{"field", "/coherence/decode"}, {"values", {"msi-directory", "lazy-causal", "sealed-lease"}}},
          {{"field", "/serving/block_tokens"}, {"values", {16, 32}}}}},
        {"objectives", {"tpot_p99_ms", "coherence_bytes_per_token"}},
    };
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString()) << study.dump(2);
    return path;
}

} // namespace

class TunerPanelTest : public QObject {
    Q_OBJECT
  private slots:
    void aStudyRunsAndItsPointsFillTheScatterAndTheTable()
    {
        QTemporaryDir dir;
        ui::TunerPanel panel;
        panel.setDatabasePath(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(panel.chartView()->isEmptyStateShown());
        QVERIFY(panel.openStudy(writeSmallStudy(dir)));
        // The axes follow the objectives: the second on X, the first on Y.
        QCOMPARE(panel.yAxisChoice()->currentData().toString(), QStringLiteral("tpot_p99_ms"));
        QCOMPARE(panel.xAxisChoice()->currentData().toString(), QStringLiteral("coherence_bytes_per_token"));

        QSignalSpy finished(&panel, &ui::TunerPanel::finished);
        panel.run();
        QVERIFY(panel.isRunning());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().front().toBool(), true);
        const core::StudyResult* result = panel.result();
        QVERIFY(result);
        QCOMPARE(result->points.size(), std::size_t{6});
        QCOMPARE(panel.table()->rowCount(), 6);
        // Every point is on the scatter once: front, feasible (no constraints: every point) or neither.
        const int shown =
            panel.pointsSeries()->count() + panel.feasibleSeries()->count() + panel.frontSeries()->count();
        QCOMPARE(shown, 6);
        QCOMPARE(panel.frontSeries()->count(), static_cast<int>(result->front.size()));
        QVERIFY(!panel.chartView()->isEmptyStateShown());
        // The front's points sit where core's metrics say.
        const auto& best = result->points[result->front.front()];
        bool found = false;
        for (const QPointF& p : panel.frontSeries()->points())
            found = found || (p.x() == core::metricValue(best, "coherence_bytes_per_token") &&
                              p.y() == core::metricValue(best, "tpot_p99_ms"));
        QVERIFY(found);

        // TPOT on Y: the scenario's TPOT SLO (minimal.json: the default 100 ms) is a horizontal line; no TTFT on X.
        QCOMPARE(panel.ySloLine()->count(), 2);
        QCOMPARE(panel.ySloLine()->at(0).y(), 100.0);
        QCOMPARE(panel.xSloLine()->count(), 0);
        // Another view of the same points: coherence bytes per token against TTFT p90.
        panel.yAxisChoice()->setCurrentIndex(panel.yAxisChoice()->findData(QStringLiteral("ttft_p90_ms")));
        bool moved = false;
        for (const QPointF& p : panel.frontSeries()->points())
            moved = moved || p.y() == core::metricValue(best, "ttft_p90_ms");
        QVERIFY(moved);

        // A click on a point (the front's first) asks for its run.
        QSignalSpy open(&panel, &ui::TunerPanel::openRunRequested);
        const QPointF at = panel.frontSeries()->points().front();
        emit panel.frontSeries()->clicked(at);
        QCOMPARE(open.count(), 1);
        QVERIFY(open.front().front().toLongLong() > 0);

        // The same points as parallel coordinates: an axis per field and objective, a line per point, the front's
        // marked, every line with its run.
        ui::ParallelCoordinatesView* parallel = panel.parallelView();
        QCOMPARE(parallel->axes().size(), std::size_t{4});
        QCOMPARE(parallel->axes()[0].categories,
                 (QStringList{QStringLiteral("msi-directory"), QStringLiteral("lazy-causal"),
                              QStringLiteral("sealed-lease")}));
        QVERIFY(parallel->axes()[2].smallerAtTop); // tpot_p99_ms, minimised
        QCOMPARE(parallel->lines().size(), std::size_t{6});
        std::size_t frontLines = 0;
        for (const ui::ParallelLine& line : parallel->lines()) {
            frontLines += line.kind == ui::ParallelLine::Kind::Front;
            QVERIFY(line.runId > 0);
        }
        QCOMPARE(frontLines, result->front.size());
        // Keep only sealed-lease (the top third of the protocol axis): two points, one per block size.
        parallel->setBrush(0, std::pair{2.0 / 3.0, 1.0});
        QCOMPARE(parallel->passingCount(), 2);

        // Run again: every point comes from the store.
        panel.run();
        QVERIFY(finished.wait(60000));
        QCOMPARE(panel.result()->ran, std::uint64_t{0});
        QCOMPARE(panel.result()->cached, std::uint64_t{6});
    }

    void applyBestWritesThePointIntoTheScenarioAsOneUndoStep()
    {
        QTemporaryDir dir;
        ui::MainWindow window(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(window.openScenario(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json")));
        auto* document = window.document();
        auto* panel = window.tunerPanel();
        QVERIFY(!panel->applyBestButton()->isEnabled());
        QVERIFY(panel->openStudy(writeSmallStudy(dir)));
        QSignalSpy finished(panel, &ui::TunerPanel::finished);
        panel->run();
        QVERIFY(finished.wait(60000));
        QVERIFY(panel->applyBestButton()->isEnabled());
        const auto best = panel->result()->points[*panel->result()->best].point.values;
        const int steps = document->undoStack()->count();
        panel->applyBestButton()->click();
        QVERIFY(document->value("/coherence/decode") == nlohmann::ordered_json(best[0].get<std::string>()));
        QVERIFY(document->value("/serving/block_tokens") == nlohmann::ordered_json(best[1].get<int>()));
        QCOMPARE(document->undoStack()->count(), steps + 1);
        document->undoStack()->undo();
        QVERIFY(!document->value("/coherence/decode")); // minimal.json has no coherence section
        QVERIFY(document->value("/serving/block_tokens") == nlohmann::ordered_json(32));
    }

    void aBadStudyShowsItsProblemsAndCannotRun()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        std::ofstream(path.toStdString()) << R"({"scenario": "nowhere.json", "parameters": [], "objectives": ["x"]})";
        ui::TunerPanel panel;
        QVERIFY(!panel.openStudy(path));
        QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("/scenario")));
        QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("/objectives/0")));
    }

    void cancelLeavesTheFinishedPointsAndSaysSo()
    {
        QTemporaryDir dir;
        ui::TunerPanel panel;
        panel.setDatabasePath(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(panel.openStudy(writeSmallStudy(dir)));
        QSignalSpy finished(&panel, &ui::TunerPanel::finished);
        panel.run();
        panel.cancel();
        QVERIFY(finished.wait(60000));
        // It may have finished before the cancel was seen; either way the panel says how it ended.
        if (!finished.front().front().toBool())
            QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("Cancelled")));
        QVERIFY(!panel.isRunning());
    }
};

QTEST_MAIN(TunerPanelTest)
#include "tst_tuner_panel.moc"
