// History ▸ Export ▸ Profile of Its Costs…: a stored real run's own costs written as the profile `cohsim calibrate
// --from-run` writes, told measurement by measurement, cancellable, and refused for a run that has none, naming
// History; the action is there only for a completed real run.
#include "core/real/profile_json.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/run_and_store.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"
#include "core/workload/workload_builder.h"
#include "dialog_answers.h"
#include "ui/run_costs_profile.h"
#include "ui/run_history_model.h"
#include "ui/run_history_widget.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <fstream>

using namespace coh;

class TstRunCostsProfile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_real = 0, m_simulated = 0;
    core::RunResult m_realRun;
    std::optional<core::Scenario> m_scenario;

    QString file(const QString& name) const { return m_dir.filePath(name); }

  private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the folder the save dialog remembers is the test's own
        QApplication::setAttribute(Qt::AA_DontUseNativeDialogs); // a dialog the test can answer
        QVERIFY(m_dir.isValid());
        // A real-cpu run (its seals summed, as the app's real runs are by default) and a simulated one.
        m_db = file(QStringLiteral("runs.db"));
        std::ifstream in(COH_TEST_DATA_DIR "/scenarios/minimal.json");
        nlohmann::json json = nlohmann::json::parse(in);
        json["workload"]["requests"] = 3;
        m_scenario = core::parseScenario(json, "minimal.json");
        const core::Workload workload = core::buildWorkload(m_scenario->workload, m_scenario->seed);
        core::RunStore store(m_db.toStdString());
        core::RunOptions real;
        real.backend.name = "real-cpu";
        real.backend.realCpu.arenaBytes = 1 << 20;
        core::StoredRunHooks hooks;
        hooks.begun = [this](std::int64_t id) { m_real = id; };
        m_realRun = core::runAndStore(store, *m_scenario, workload, real, "real", hooks);
        hooks.begun = [this](std::int64_t id) { m_simulated = id; };
        core::runAndStore(store, *m_scenario, workload, {}, "simulated", hooks);
        QVERIFY(m_real > 0 && m_simulated > 0);
        QVERIFY(m_realRun.summary.backend.copyFit.measured());
    }

    void aRealRunsCostsAreWrittenAsAProfileForItsScenario()
    {
        const QString path = file(QStringLiteral("run-costs.json"));
        std::vector<std::pair<double, QString>> told;
        const ui::ProfileOutcome out =
            ui::writeRunCostsProfile(m_db, m_real, path, nullptr, [&told](double fraction, const QString& what) {
                told.emplace_back(fraction, what);
            });
        QVERIFY2(out.written, qPrintable(out.error));
        // Each measurement was told before it, in order, from the first.
        QVERIFY(told.size() >= 2);
        QCOMPARE(told.front(), (std::pair<double, QString>{0.0, QStringLiteral("attention")}));
        for (std::size_t i = 1; i < told.size(); ++i)
            QVERIFY(told[i].first > told[i - 1].first && told[i].first < 1);
        // Named after the run, its copies the run's own fit: what `cohsim calibrate --from-run` writes.
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(written.readAll().toStdString());
        QCOMPARE(json.at("costs_of_run").get<std::int64_t>(), m_real);
        const core::real::HardwareProfile profile = core::real::profileFromJson(json, path.toStdString());
        QCOMPARE(profile.copy.latencyNs, m_realRun.summary.backend.copyFit.fixedNs);
        QCOMPARE(profile.copy.bytesPerNs, m_realRun.summary.backend.copyFit.bytesPerNs);
        // It stands for the run's scenario on real-cpu, as Simulator Against Real checks a profile file.
        core::checkProfileFits(profile, "real-cpu", *m_scenario, core::real::RealCpuOptions{});
        QVERIFY2(out.summary.startsWith(QStringLiteral("From run %1's own costs: its copies").arg(m_real)),
                 qPrintable(out.summary));
        // Where its steps by size became the profile's curve, the simulator costs a step on it, as said.
        // Where it kept its steps by the traffic before them, the curve is the quiet steps' and what traffic added
        // is said too.
        const bool traffic = !profile.attentionAfterTraffic.empty();
        if (!profile.attentionCurve.empty())
            QVERIFY2(out.summary.contains(
                         QStringLiteral("its decode steps' %1 at %2 step sizes")
                             .arg(traffic ? QStringLiteral("time after no other traffic") : QStringLiteral("mean time"))
                             .arg(profile.attentionCurve.size())),
                     qPrintable(out.summary));
        if (traffic)
            QVERIFY2(out.summary.contains(QStringLiteral("what each of %1 amounts of other traffic did")
                                              .arg(profile.attentionAfterTraffic.size())),
                     qPrintable(out.summary));
        // The run summed its seals: said, since sim-against-real's runs do not.
        QCOMPARE(out.notes.size(), 1);
        QVERIFY2(out.notes.front().contains(QStringLiteral("summed its blocks' seals")), qPrintable(out.notes.front()));

        // The box that says so offers the file to Simulator Against Real.
        QString used;
        QPointer<QMessageBox> box =
            ui::runCostsProfileBox(nullptr, m_real, path, out, [&used](const QString& p) { used = p; });
        QVERIFY(box->text().contains(path));
        QVERIFY(box->informativeText().contains(out.summary) && box->informativeText().contains(out.notes.front()));
        auto* useIt = qobject_cast<QPushButton*>(box->defaultButton());
        QVERIFY(useIt);
        QCOMPARE(useIt->text(), QStringLiteral("Use for Simulator Against Real"));
        box->open();
        useIt->click();
        QCOMPARE(used, path);
        QTRY_VERIFY(box.isNull()); // closed, and deleted
    }

    void aRunWithoutCostsOrAFileThatCannotBeWrittenIsRefused()
    {
        const QString path = file(QStringLiteral("refused.json"));
        const ui::ProfileOutcome simulated = ui::writeRunCostsProfile(m_db, m_simulated, path);
        QVERIFY(!simulated.written && !simulated.cancelled);
        QVERIFY2(simulated.error.contains(QStringLiteral("History")) &&
                     simulated.error.contains(QStringLiteral("is simulated")) &&
                     simulated.error.contains(QStringLiteral("pick a completed real run")),
                 qPrintable(simulated.error));
        const ui::ProfileOutcome gone = ui::writeRunCostsProfile(m_db, 999, path);
        QVERIFY2(gone.error.contains(QStringLiteral("Run 999 is not in")), qPrintable(gone.error));
        QVERIFY(!QFile::exists(path));
        // A database moved away is not made again, empty, by asking it for a run.
        const QString movedAway = file(QStringLiteral("moved-away.db"));
        const ui::ProfileOutcome noDatabase = ui::writeRunCostsProfile(movedAway, m_real, path);
        QVERIFY2(noDatabase.error.contains(QStringLiteral("is not there any more")), qPrintable(noDatabase.error));
        QVERIFY(!QFile::exists(movedAway));
        // A folder that is not there: the file is named, nothing is left half written.
        const QString nowhere = file(QStringLiteral("no-such-folder/p.json"));
        const ui::ProfileOutcome unwritable = ui::writeRunCostsProfile(m_db, m_real, nowhere);
        QVERIFY(!unwritable.written);
        QVERIFY2(unwritable.error.contains(nowhere), qPrintable(unwritable.error));
    }

    void cancelledItWritesNothing()
    {
        const QString path = file(QStringLiteral("cancelled.json"));
        std::atomic<bool> cancel{false};
        int told = 0;
        const ui::ProfileOutcome out =
            ui::writeRunCostsProfile(m_db, m_real, path, &cancel, [&](double, const QString&) {
                ++told;
                cancel = true; // as Cancel pressed while the first measurement runs
            });
        QVERIFY(out.cancelled && !out.written);
        QCOMPARE(told, 1);
        QVERIFY(!QFile::exists(path));
    }

    void theMenuAsksForAFileMakesItAndOffersIt()
    {
        ui::RunHistoryWidget history;
        history.setDatabasePath(m_db);
        history.show();
        history.selectRun(m_real);
        QSignalSpy used(&history, &ui::RunHistoryWidget::useProfileForSimVsReal);
        const QString path = file(QStringLiteral("from-the-menu.json"));
        ui::test::answerNextSaveDialog(path);
        history.costsProfileAction()->trigger();
        // The calibration runs on a worker; the box comes once the file is written.
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = history.findChild<QMessageBox*>()) != nullptr, 60000);
        QVERIFY(QFile::exists(path));
        QVERIFY(box->text().contains(path));
        qobject_cast<QPushButton*>(box->defaultButton())->click();
        QCOMPARE(used.count(), 1);
        QCOMPARE(used.at(0).at(0).toString(), path);
    }

    void cancelledFromItsDialogItStopsWritesNothingAndMayBeMadeAgain()
    {
        ui::RunHistoryWidget history;
        history.setDatabasePath(m_db);
        history.show();
        history.selectRun(m_real);
        // Cancel pressed, then (a second time) the dialog closed: each stops the calibration at its next measurement,
        // and the dialog stays up, modal, until it has.
        for (const bool close : {false, true}) {
            const QString path = file(close ? QStringLiteral("closed.json") : QStringLiteral("cancelled.json"));
            ui::test::answerNextSaveDialog(path);
            history.costsProfileAction()->trigger();
            auto* progress = history.findChild<QProgressDialog*>();
            QVERIFY(progress && progress->isVisible());
            QVERIFY(ui::profileBeingMade());
            QVERIFY(!history.costsProfileAction()->isEnabled());
            if (close)
                progress->close();
            else
                emit progress->canceled();
            QVERIFY(progress->isVisible()); // the worker has not been heard from yet
            QVERIFY(progress->labelText().startsWith(QStringLiteral("Cancelling")));
            QTRY_VERIFY_WITH_TIMEOUT(history.costsProfileAction()->isEnabled(), 30000);
            QVERIFY(!ui::profileBeingMade());
            QVERIFY(!QFile::exists(path));
            QVERIFY(!history.findChild<QMessageBox*>()); // nothing to say, and nothing written
        }
    }

    void notBesideARun()
    {
        // A run going: its traffic would be measured, so the profile waits, saying why.
        ui::RunHistoryWidget history;
        history.setDatabasePath(m_db);
        history.show();
        history.selectRun(m_real);
        history.setCalibrationBlocker([] { return QStringLiteral("A run is going."); });
        QTimer::singleShot(0, [] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box);
            QCOMPARE(box->text(), QStringLiteral("A run is going."));
            box->accept();
        });
        history.costsProfileAction()->trigger();
        QVERIFY(!ui::profileBeingMade());
        QVERIFY(!history.findChild<QProgressDialog*>());
    }

    void theActionIsThereForOneCompletedRealRun()
    {
        ui::RunHistoryWidget history;
        history.setDatabasePath(m_db);
        QVERIFY(!history.costsProfileAction()->isEnabled()); // nothing selected
        history.selectRun(m_real);
        QVERIFY(history.costsProfileAction()->isEnabled());
        history.selectRun(m_simulated);
        QVERIFY(!history.costsProfileAction()->isEnabled());
        history.view()->selectAll();
        QVERIFY(!history.costsProfileAction()->isEnabled());
    }
};

QTEST_MAIN(TstRunCostsProfile)
#include "tst_run_costs_profile.moc"
