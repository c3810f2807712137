// RunController end to end: a scenario runs off the GUI thread, is stored as `cohsim run` stores it, and shows
// in the history model; a cancelled run is stored as cancelled; an invalid scenario fails with core's message.
#include "core/gpu/cuda_devices.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_compare_model.h"
#include "ui/run_controller.h"
#include "ui/run_history_model.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>

using coh::ui::RunController;
using coh::ui::RunHistoryModel;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(COH_TEST_DATA_DIR "/scenarios/") + QString::fromUtf8(name);
}

nlohmann::ordered_json readJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::ordered_json::parse(in);
}

} // namespace

class TstRunController : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("xdg")).toUtf8());
        m_db = m_dir.filePath(QStringLiteral("runs.db"));
    }

    void defaultDatabaseFollowsXdg()
    {
        // The GUI and the CLI share core's default; in this test it lies under the temporary XDG_DATA_HOME.
        QVERIFY(RunController::defaultDatabasePath().startsWith(m_dir.path()));
    }

    void realCpuRunIsStoredWithItsBackend()
    {
        // The same controller on real-cpu: real copies and attention, stored as backend real-cpu.
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 3;
        RunController controller;
        QCOMPARE(controller.realMemoryMiB(), 64); // cohsim's --arena-mib default
        controller.setRealMemoryMiB(2);           // Execute On > Node Memory for Real Runs
        QVERIFY(controller.sumSeals());
        controller.setSumSeals(false);              // Execute On > Sum Block Seals on Every Read, unchecked
        QCOMPARE(controller.realPoolLimitMiB(), 0); // as far as memory allows
        controller.setRealPoolLimitMiB(2);          // Execute On > K/V Pool Limit for Real Runs: it may not grow
        QSignalSpy finished(&controller, &RunController::finished);
        QSignalSpy failed(&controller, &RunController::failed);
        QVERIFY(controller.start(json, fixture("minimal.json"), m_db, QStringLiteral("real-cpu")));
        QVERIFY(finished.wait(120000));
        QCOMPARE(failed.count(), 0);
        const qint64 id = finished.at(0).at(0).toLongLong();
        const auto result = finished.at(0).at(1).value<std::shared_ptr<const coh::core::RunResult>>();
        QCOMPARE(result->summary.backend.name, std::string("real-cpu"));
        QVERIFY(result->summary.backend.copies > 0);
        QVERIFY(result->summary.backend.decodeSteps > 0);
        // Every node ran with the memory chosen, and its reads were checked by their stamps, not summed.
        for (const auto& m : result->summary.backend.mapping)
            QVERIFY2(m.resource.find("2 MiB arena") != std::string::npos, m.resource.c_str());
        QVERIFY(result->summary.backend.blockReadsChecked > 0);
        QCOMPARE(result->summary.backend.blockSealsSummed, std::uint64_t{0});
        QCOMPARE(result->summary.backend.kvPoolStartBytes, std::uint64_t{2} << 20);
        coh::core::RunStore store(m_db.toStdString());
        QCOMPARE(store.runInfo(id)->backend, std::string("real-cpu"));

        // What real-cpu cannot run is refused at once, naming the field, before any row is stored: a pool limit
        // below where the pool starts, and a link failure.
        const auto before = store.listRuns().size();
        controller.setRealMemoryMiB(4);
        QVERIFY(!controller.start(json, fixture("minimal.json"), m_db, QStringLiteral("real-cpu")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("--pool-mib")));
        failed.clear();
        controller.setRealMemoryMiB(2);
        json["failures"] = {{"events", {{{"link", "gpu1-link"}, {"at", "1 s"}, {"repair", "1 s"}}}}};
        QVERIFY(!controller.start(json, fixture("minimal.json"), m_db, QStringLiteral("real-cpu")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("/failures/events/0/link")));
        QCOMPARE(store.listRuns().size(), before);
    }

    void simVsRealStoresBothRunsAndTheirComparison()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 3;
        RunController controller;
        QSignalSpy progress(&controller, &RunController::progress);
        QSignalSpy finished(&controller, &RunController::finished);
        QSignalSpy compared(&controller, &RunController::comparedWithReal);
        QSignalSpy failed(&controller, &RunController::failed);
        QVERIFY(controller.startSimVsReal(json, fixture("minimal.json"), m_db));
        QVERIFY(compared.wait(180000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.count(), 1);
        const qint64 realId = compared.at(0).at(0).toLongLong();
        const qint64 simId = compared.at(0).at(1).toLongLong();
        // The real run is the one finished() hands over (it opens in Replay), under its sim-against-real name.
        QCOMPARE(finished.at(0).at(0).toLongLong(), realId);
        QVERIFY(controller.runName().endsWith(QStringLiteral("real-cpu")));
        coh::core::RunStore store(m_db.toStdString());
        QCOMPARE(store.runInfo(realId)->backend, std::string("real-cpu"));
        QCOMPARE(store.runInfo(simId)->backend, std::string("simulated"));
        QVERIFY(
            QString::fromStdString(store.runInfo(simId)->name).endsWith(QStringLiteral("simulated on its profile")));
        const QString comparison = compared.at(0).at(2).toString();
        QVERIFY2(comparison.contains(QStringLiteral("TTFT p50 ")) && comparison.contains(QStringLiteral("TPOT p50")),
                 qPrintable(comparison));
        // It names the backend the profile measured, not a fixed one.
        QVERIFY2(comparison.contains(QStringLiteral("profile against real-cpu:")), qPrintable(comparison));
        // Beside each p50's error, the error on the real run's own costs, as compare-real's ON OWN COSTS column.
        const QRegularExpression ownCosts(
            QStringLiteral("; on the real runs' own costs TTFT p50 [-+][0-9.]+%, TPOT p50 [-+][0-9.]+%"));
        QVERIFY2(comparison.contains(ownCosts), qPrintable(comparison));
        // Compare opens the pair as the simulator's error against what real-cpu measured, not as two choices.
        coh::ui::RunCompareDialog dialog(m_db, {realId, simId});
        QVERIFY(dialog.model()->comparison().simulatorError);
        QCOMPARE(dialog.windowTitle(),
                 QStringLiteral("Simulator against real-cpu (runs #%1 and #%2)").arg(realId).arg(simId));
        QVERIFY2(dialog.summaryLabel()->text().startsWith(
                     QStringLiteral("The simulator's error against real-cpu: TTFT p50 ")),
                 qPrintable(dialog.summaryLabel()->text()));
        const auto* model = dialog.model();
        QCOMPARE(model->headerData(model->deltaColumn(1), Qt::Horizontal).toString(),
                 QStringLiteral("Simulator's error"));
        const int ttft = model->rowOf(QStringLiteral("TTFT p50"));
        const int verdict =
            model->index(ttft, model->deltaColumn(1)).data(coh::ui::RunCompareModel::VerdictRole).toInt();
        QVERIFY(verdict == int(coh::core::Verdict::Within) || verdict == int(coh::core::Verdict::Beyond));
        QVERIFY(model->index(ttft, model->deltaColumn(1)).data(Qt::BackgroundRole).isValid()); // tinted either way
        // Beside it, what compare-real kept with the pair: the error on the real run's own costs, and its range with
        // the costs moved 5% either way.
        QCOMPARE(model->ownCostsColumn(), 4);
        QCOMPARE(model->movedCostsColumn(), 5);
        QCOMPARE(model->columnCount(), 6);
        QCOMPARE(model->headerData(model->ownCostsColumn(), Qt::Horizontal).toString(), QStringLiteral("On own costs"));
        QCOMPARE(model->headerData(model->movedCostsColumn(), Qt::Horizontal).toString(),
                 QStringLiteral("At costs ±5%"));
        const QString own = model->index(ttft, model->ownCostsColumn()).data().toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^[−+][0-9.,]+%$")).match(own).hasMatch(), qPrintable(own));
        const QString movedRange = model->index(ttft, model->movedCostsColumn()).data().toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^[−+][0-9.,]+% to [−+][0-9.,]+%$")).match(movedRange).hasMatch(),
                 qPrintable(movedRange));
        QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("On the real run's own costs")),
                 qPrintable(dialog.summaryLabel()->text()));
        // History's run details say which runs pair up, so a user finds the pair again.
        RunHistoryModel history;
        history.setDatabasePath(m_db);
        const auto tip = [&](qint64 id) {
            return history.index(history.rowOfRun(id), RunHistoryModel::Backend)
                .data(RunHistoryModel::DetailsRole)
                .toString();
        };
        QVERIFY2(tip(simId).contains(QStringLiteral("It models real run #%1").arg(realId)), qPrintable(tip(simId)));
        QVERIFY2(tip(realId).contains(QStringLiteral("Run #%1 models it").arg(simId)), qPrintable(tip(realId)));
        // And what compare-real kept with each: the real run's own costs, the model's costs moved.
        QVERIFY2(tip(realId).contains(QStringLiteral("the simulator on this run's own costs")),
                 qPrintable(tip(realId)));
        QVERIFY2(tip(simId).contains(QStringLiteral("its costs moved up to 5% either way")), qPrintable(tip(simId)));
        QVERIFY2(!tip(simId).contains(QStringLiteral("own costs")), qPrintable(tip(simId)));
        // The model's compute is the profile's, not the roofline's, and its details say so (stored with it).
        QVERIFY2(
            tip(simId).contains(QStringLiteral("cost what a calibrated profile of this machine's real-cpu measured")),
            qPrintable(tip(simId)));
        QVERIFY2(!tip(simId).contains(QStringLiteral("network, compute is the roofline")), qPrintable(tip(simId)));
        // Each stage was announced: calibration, then each run.
        QStringList stages;
        for (const auto& p : progress)
            stages << p.at(1).toString();
        QVERIFY2(stages.join(QLatin1Char('\n')).contains(QStringLiteral("Calibrating")),
                 qPrintable(stages.join(QLatin1Char('\n'))));
    }

    void simVsRealRoutedAsTheRealRunSaysSoAndKeepsItWithTheModel()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 3;
        RunController controller;
        QVERIFY(!controller.simVsRealRoutes());
        controller.setSimVsRealRoutes(true);
        QSignalSpy compared(&controller, &RunController::comparedWithReal);
        QVERIFY(controller.startSimVsReal(json, fixture("minimal.json"), m_db));
        QVERIFY(compared.wait(180000));
        const qint64 realId = compared.at(0).at(0).toLongLong();
        const qint64 simId = compared.at(0).at(1).toLongLong();
        const QString comparison = compared.at(0).at(2).toString();
        QVERIFY2(comparison.contains(QStringLiteral(", routing each request as the real run did:")),
                 qPrintable(comparison));
        // The model's details say it, with its routing decisions: a prefill and a decode for each of 3 requests.
        RunHistoryModel history;
        history.setDatabasePath(m_db);
        const QString tip = history.index(history.rowOfRun(simId), RunHistoryModel::Backend)
                                .data(RunHistoryModel::DetailsRole)
                                .toString();
        QVERIFY2(tip.contains(QStringLiteral(
                     "It routed as the real run did: 6 of 6 routing decisions as the real run made them.")),
                 qPrintable(tip));
        coh::core::RunStore store(m_db.toStdString());
        const auto real = store.loadRun(realId), model = store.loadRun(simId);
        QCOMPARE(model.requests.size(), real.requests.size());
        for (std::size_t i = 0; i < real.requests.size(); ++i)
            QCOMPARE(model.requests[i].decodeInstance, real.requests[i].decodeInstance);
    }

    void simVsRealRunsOnAProfileFileChosenAndNamesABrokenOne()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 3;
        // A profile of this machine for the scenario, as `cohsim calibrate --from-run 7` would name it.
        const coh::core::Scenario scenario = coh::core::parseScenario(json, fixture("minimal.json").toStdString());
        coh::core::real::CalibrationOptions options =
            coh::core::calibrationFor(scenario, "real-cpu", coh::core::real::RealCpuOptions{});
        options.copy.rounds = options.attention.rounds = 1;
        coh::core::real::HardwareProfile profile = coh::core::real::calibrate(options);
        profile.costsOfRun = 7;
        const QString path = m_dir.filePath(QStringLiteral("run7.json"));
        std::ofstream(path.toStdString()) << coh::core::real::toJson(profile).dump(2);
        RunController controller;
        QVERIFY(controller.simVsRealProfile().isEmpty());
        controller.setSimVsRealProfile(path);
        QSignalSpy compared(&controller, &RunController::comparedWithReal);
        QSignalSpy progress(&controller, &RunController::progress);
        QVERIFY(controller.startSimVsReal(json, fixture("minimal.json"), m_db));
        QVERIFY(compared.wait(180000));
        const QString comparison = compared.at(0).at(2).toString();
        QVERIFY2(comparison.startsWith(QStringLiteral(
                     "the simulator on the profile in run7.json (the costs of real run #7) against real-cpu:")),
                 qPrintable(comparison));
        // It ran on that profile: no calibration.
        for (const auto& p : progress)
            QVERIFY2(!p.at(1).toString().contains(QStringLiteral("Calibrating")), qPrintable(p.at(1).toString()));
        // A profile file made before calibration left the caches as a run's traffic does: said, as compare-real says.
        QVERIFY(profile.copiesCachesLeft);
        coh::core::real::HardwareProfile madeBefore = profile;
        madeBefore.costsOfRun = 0;
        madeBefore.copiesCachesLeft = false;
        const QString beforePath = m_dir.filePath(QStringLiteral("before.json"));
        std::ofstream(beforePath.toStdString()) << coh::core::real::toJson(madeBefore).dump(2);
        controller.setSimVsRealProfile(beforePath);
        QSignalSpy comparedBefore(&controller, &RunController::comparedWithReal);
        QVERIFY(controller.startSimVsReal(json, fixture("minimal.json"), m_db));
        QVERIFY(comparedBefore.wait(180000));
        const QString said = comparedBefore.at(0).at(2).toString();
        QVERIFY2(said.contains(QStringLiteral("its copies were measured as a lone bench leaves the caches")),
                 qPrintable(said));
        QVERIFY2(!comparison.contains(QStringLiteral("lone bench")), qPrintable(comparison));
        // A file that does not read as a profile fails the run before anything runs, naming the file and the field.
        // A profile file edited by `edit` fails the run before anything is stored; returns what failed() said.
        const auto before = coh::core::RunStore(m_db.toStdString()).listRuns().size();
        const auto failure = [&](const char* name, const std::function<void(nlohmann::ordered_json&)>& edit) {
            const QString path = m_dir.filePath(QLatin1String(name));
            auto edited = coh::core::real::toJson(profile);
            edit(edited);
            std::ofstream(path.toStdString()) << edited.dump(2);
            controller.setSimVsRealProfile(path);
            QSignalSpy failed(&controller, &RunController::failed);
            if (!controller.startSimVsReal(json, fixture("minimal.json"), m_db) || !failed.wait(60000))
                return QStringLiteral("no failure");
            if (coh::core::RunStore(m_db.toStdString()).listRuns().size() != before)
                return QStringLiteral("a run was stored");
            return failed.at(0).at(0).toString();
        };
        // One that does not read: the file and the field.
        const QString broken = failure("broken.json", [](auto& j) { j["copy"]["bandwidth_gbps"] = -1; });
        QVERIFY2(broken.contains(QStringLiteral("broken.json")) &&
                     broken.contains(QStringLiteral("/copy/bandwidth_gbps")),
                 qPrintable(broken));
        // One that reads but was measured for other decode steps: named as the file chosen, with the menu's fix.
        const QString misfit = failure("other-model.json", [](auto& j) { j["attention"]["query_heads"] = 64; });
        QVERIFY2(misfit.contains(QStringLiteral("other-model.json")) &&
                     misfit.contains(QStringLiteral("Calibrate Just Before Simulator Against Real")),
                 qPrintable(misfit));
    }

    void simVsRealInPairsStoresEachPairAndSaysTheMedianOfTheirErrors()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 2;
        RunController controller;
        QCOMPARE(controller.simVsRealPairs(), 1);
        controller.setSimVsRealPairs(2);
        QSignalSpy progress(&controller, &RunController::progress);
        QSignalSpy compared(&controller, &RunController::comparedWithReal);
        QSignalSpy failed(&controller, &RunController::failed);
        const auto before = coh::core::RunStore(m_db.toStdString()).listRuns().size();
        QVERIFY(controller.startSimVsReal(json, fixture("minimal.json"), m_db));
        QVERIFY(compared.wait(180000));
        QCOMPARE(failed.count(), 0);
        // Two real runs and two simulated ones, each simulated run modelling its own real run.
        coh::core::RunStore store(m_db.toStdString());
        QCOMPARE(store.listRuns().size(), before + 4);
        const qint64 realId = compared.at(0).at(0).toLongLong();
        const qint64 simId = compared.at(0).at(1).toLongLong();
        QCOMPARE(store.runInfo(simId)->modelsRun, realId);
        QVERIFY(QString::fromStdString(store.runInfo(simId)->name)
                    .endsWith(QStringLiteral("simulated on its profile 1/2")));
        const QString comparison = compared.at(0).at(2).toString();
        QVERIFY2(comparison.startsWith(QStringLiteral("the simulator against real-cpu in 2 pairs")),
                 qPrintable(comparison));
        // Every pair's ids, real then simulated: Compare opens them all and shows the median of their errors, as
        // compare-real --repeat prints it.
        const auto paired = compared.at(0).at(3).value<QList<qint64>>();
        QCOMPARE(paired.size(), 4);
        QCOMPARE(paired.at(0), realId);
        QCOMPARE(paired.at(1), simId);
        QCOMPARE(store.runInfo(paired.at(3))->modelsRun, paired.at(2));
        coh::ui::RunCompareDialog dialog(m_db, paired);
        const auto& pairs = dialog.model()->comparison();
        QVERIFY(pairs.simulatorError);
        QCOMPARE(pairs.pairs, std::size_t(2));
        QCOMPARE(dialog.model()->runCount(), 2);
        QCOMPARE(dialog.windowTitle(),
                 QStringLiteral("Simulator against real-cpu in 2 pairs (runs #%1 and #%2, #%3 and "
                                "#%4)")
                     .arg(paired.at(0))
                     .arg(paired.at(1))
                     .arg(paired.at(2))
                     .arg(paired.at(3)));
        const auto* model = dialog.model();
        QCOMPARE(model->headerData(model->deltaColumn(1), Qt::Horizontal).toString(),
                 QStringLiteral("Simulator's error\n(median of 2 pairs)"));
        QCOMPARE(model->headerData(model->valueColumn(0), Qt::Horizontal).toString(),
                 QStringLiteral("real-cpu\n(median of 2 runs)"));
        const int ttft = model->rowOf(QStringLiteral("TTFT p50"));
        const QString tip = model->index(ttft, model->deltaColumn(1)).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("the median of the 2 pairs' errors (")), qPrintable(tip));
        // The median of two is the mean of the pairs' errors.
        const coh::core::MetricRow& row = pairs.metrics.front(); // TTFT p50
        QCOMPARE(QString::fromLatin1(row.spec->label), QStringLiteral("TTFT p50"));
        QCOMPARE(row.pairRelative.size(), std::size_t(2));
        QVERIFY(std::fabs(row.relative[1] - (row.pairRelative[0] + row.pairRelative[1]) / 2) < 1e-12);
        QVERIFY(model->rowOf(QStringLiteral("TTFT mean")) > 0); // and its parts, where its error comes from
        QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("the median of its errors in 2 pairs")),
                 qPrintable(dialog.summaryLabel()->text()));
        // Each pair kept its own and moved costs: their columns show the median of the pairs'.
        QVERIFY(pairs.ownCosts);
        QCOMPARE(model->headerData(model->ownCostsColumn(), Qt::Horizontal).toString(),
                 QStringLiteral("On own costs\n(median of 2 pairs)"));
        QVERIFY2(model->index(ttft, model->movedCostsColumn())
                     .data(Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("each end the median of the 2 pairs'")),
                 qPrintable(model->index(ttft, model->movedCostsColumn()).data(Qt::ToolTipRole).toString()));
        // Calibrated before each real run.
        int calibrations = 0;
        for (const auto& p : progress)
            calibrations += p.at(1).toString().startsWith(QStringLiteral("Calibrating")) ? 1 : 0;
        QCOMPARE(calibrations, 2);
        // The setting's bounds are compare-real --repeat's.
        controller.setSimVsRealPairs(0);
        QCOMPARE(controller.simVsRealPairs(), 1);
        controller.setSimVsRealPairs(99);
        QCOMPARE(controller.simVsRealPairs(), RunController::kMaxSimVsRealPairs);
    }

    void realCudaWithoutAGpuIsRefusedAtOnceSayingWhy()
    {
        if (!coh::core::probeGpus().devices.empty())
            QSKIP("this machine has a GPU");
        auto json = readJson(fixture("minimal.json"));
        RunController controller;
        QSignalSpy failed(&controller, &RunController::failed);
        const auto before = coh::core::RunStore(m_db.toStdString()).listRuns().size();
        // A run and a comparison alike, before any thread or stored row.
        QVERIFY(!controller.start(json, fixture("minimal.json"), m_db, QStringLiteral("real-cuda")));
        QVERIFY(!controller.startSimVsReal(json, fixture("minimal.json"), m_db, QStringLiteral("real-cuda")));
        QCOMPARE(failed.count(), 2);
        for (const auto& f : failed)
            QVERIFY2(f.at(0).toString().contains(QStringLiteral("real-cuda needs a GPU")),
                     qPrintable(f.at(0).toString()));
        QVERIFY(!controller.isRunning());
        QCOMPARE(coh::core::RunStore(m_db.toStdString()).listRuns().size(), before);
    }

    void smallRunCompletesAndIsStored()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 20;
        RunController controller;
        QSignalSpy started(&controller, &RunController::started);
        QSignalSpy finished(&controller, &RunController::finished);
        QSignalSpy failed(&controller, &RunController::failed);
        QVERIFY(controller.start(json, fixture("minimal.json"), m_db));
        QVERIFY(controller.isRunning());
        QVERIFY(finished.wait(60000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(started.count(), 1);
        QVERIFY(!controller.isRunning());
        const qint64 id = finished.at(0).at(0).toLongLong();
        QCOMPARE(started.at(0).at(0).toLongLong(), id);
        const auto result = finished.at(0).at(1).value<std::shared_ptr<const coh::core::RunResult>>();
        QVERIFY(result);
        QCOMPARE(result->summary.requests, 20u);

        coh::core::RunStore store(m_db.toStdString());
        const auto info = store.runInfo(id);
        QVERIFY(info);
        QCOMPARE(info->status, coh::core::RunStatus::Completed);
        // Named as `cohsim run` names it: "<scenario> · <decode protocol>".
        QCOMPARE(info->name, std::string("minimal \u00b7 direct"));
        QCOMPARE(info->decodeProtocol, std::string("direct"));
        QCOMPARE(info->requests, 20u);
        QCOMPARE(store.loadRun(id).summary.ttftMs.p50, result->summary.ttftMs.p50);

        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDatabasePath(m_db);
        const int row = model.rowOfRun(id);
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, RunHistoryModel::Status).data().toString(), QStringLiteral("completed"));
        QCOMPARE(model.index(row, RunHistoryModel::Requests).data().toULongLong(), 20u);
    }

    void cancelledRunIsStoredAsCancelled()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 200000; // minutes of simulation: it cannot finish before the cancel lands
        RunController controller;
        QSignalSpy started(&controller, &RunController::started);
        QSignalSpy cancelled(&controller, &RunController::cancelled);
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(controller.start(json, fixture("minimal.json"), m_db));
        QVERIFY(started.wait(60000));
        const qint64 id = started.at(0).at(0).toLongLong();
        controller.cancel();
        QVERIFY(cancelled.wait(60000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!controller.isRunning());

        coh::core::RunStore store(m_db.toStdString());
        const auto info = store.runInfo(id);
        QVERIFY(info);
        QCOMPARE(info->status, coh::core::RunStatus::Cancelled);
        QVERIFY(!info->error.empty());
    }

    void invalidScenarioFailsWithCoreMessage()
    {
        auto json = readJson(fixture("minimal.json"));
        json["topology"]["links"][0]["bandwidth"] = "-5 GB/s";
        RunController controller;
        QSignalSpy failed(&controller, &RunController::failed);
        QSignalSpy started(&controller, &RunController::started);
        const int before = int(coh::core::RunStore(m_db.toStdString()).listRuns().size());
        QVERIFY(!controller.start(json, fixture("minimal.json"), m_db));
        QCOMPARE(failed.count(), 1);
        const QString error = failed.at(0).at(0).toString();
        QVERIFY2(error.contains(QStringLiteral("/topology/links/0/bandwidth")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("minimal.json")), qPrintable(error));
        QVERIFY(!controller.isRunning());
        QCOMPARE(started.count(), 0);
        // Nothing is stored for a scenario that never started.
        QCOMPARE(int(coh::core::RunStore(m_db.toStdString()).listRuns().size()), before);
    }

    void unusableDatabaseFails()
    {
        auto json = readJson(fixture("minimal.json"));
        json["workload"]["requests"] = 5;
        const QString bad = m_dir.filePath(QStringLiteral("not-a-db.db"));
        {
            std::ofstream out(bad.toStdString());
            out << "this is not an SQLite database, just text long enough to have a header page\n";
        }
        RunController controller;
        QSignalSpy failed(&controller, &RunController::failed);
        QVERIFY(controller.start(json, fixture("minimal.json"), bad));
        QVERIFY(failed.wait(60000));
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("not-a-db.db")),
                 qPrintable(failed.at(0).at(0).toString()));
    }

  private:
    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_MAIN(TstRunController)
#include "tst_run_controller.moc"
