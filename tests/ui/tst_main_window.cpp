// The main window offscreen: opens the default scenario, has its menus, runs it with F5 into a temporary
// database and shows it in Replay, undoes a Scenario panel edit and lists a bad bandwidth in Problems with Run
// disabled.
#include "core/coherence/protocol_registry.h"
#include "core/gpu/cuda_devices.h"
#include "core/store/run_store.h"
#include "dialog_answers.h"
#include "ui/coherence_form.h"
#include "ui/document_files.h"
#include "ui/instances_editor.h"
#include "ui/main_window.h"
#include "ui/replay_widget.h"
#include "ui/run_controller.h"
#include "ui/run_history_model.h"
#include "ui/run_history_widget.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/start_page.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/topology_view.h"
#include "ui/workload_form.h"
#include "window_fixture.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

using coh::ui::MainWindow;
using coh::ui::ScenarioDocument;

namespace {

QStringList problemLines(const QListWidget* list)
{
    QStringList lines;
    for (int i = 0; i < list->count(); ++i)
        lines << list->item(i)->text();
    return lines;
}

} // namespace

class TstMainWindow : public QObject, coh::ui::test::WindowFixture {
    Q_OBJECT
  private slots:
    void initTestCase() { isolate("tst_main_window"); }
    void init() { openWindow(); }
    void cleanup() { closeWindow(); }

    void realRunsNodeMemoryIsAskedForAndKept()
    {
        // Execute On > Node Memory for Real Runs: the dialog's value goes to the runs started next and to the
        // settings, from which the next window starts.
        QCOMPARE(m_window->runController()->realMemoryMiB(), 64);
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            QCOMPARE(dialog->intMaximum(), 4096);
            dialog->setIntValue(256);
            dialog->accept();
        });
        m_window->actions().realMemory->trigger();
        QCOMPARE(m_window->runController()->realMemoryMiB(), 256);
        closeWindow();
        openWindow();
        QCOMPARE(m_window->runController()->realMemoryMiB(), 256);
        QSettings().remove(QStringLiteral("run/realMemoryMiB"));
    }

    void realRunsPoolLimitIsAskedForCheckedAndKept()
    {
        // Execute On > K/V Pool Limit for Real Runs: as far as memory allows by default (0, shown as such); a limit
        // below the node memory is refused where it is chosen; one at or above it goes to the runs started next and is
        // kept for the next window.
        QCOMPARE(m_window->runController()->realPoolLimitMiB(), 0);
        bool refused = false;
        QTimer::singleShot(0, [&refused] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto* spin = dialog->findChild<QSpinBox*>();
            QVERIFY(spin);
            // With what that comes to for the default scenario on this machine.
            QVERIFY2(spin->text().startsWith(QStringLiteral("As far as memory allows (")), qPrintable(spin->text()));
            QVERIFY2(spin->text().endsWith(QStringLiteral(" MiB here)")), qPrintable(spin->text()));
            QCOMPARE(dialog->intMaximum(), coh::ui::MainWindow::kMaxPoolLimitMiB);
            dialog->setIntValue(16);
            QTimer::singleShot(0, [&refused] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                refused = box->text().contains(QStringLiteral("starts at the node memory (64 MiB)"));
                box->accept();
            });
            dialog->accept();
        });
        m_window->actions().realPoolLimit->trigger();
        QVERIFY(refused);
        QCOMPARE(m_window->runController()->realPoolLimitMiB(), 0);
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->setIntValue(512);
            dialog->accept();
        });
        m_window->actions().realPoolLimit->trigger();
        QCOMPARE(m_window->runController()->realPoolLimitMiB(), 512);
        closeWindow();
        openWindow();
        QCOMPARE(m_window->runController()->realPoolLimitMiB(), 512);
        QSettings().remove(QStringLiteral("run/poolLimitMiB"));
    }

    void simVsRealPairsAreAskedForAndKept()
    {
        // Execute On > Pairs for Simulator Against Real: one by default; the number chosen goes to the next
        // sim-against-real run and is kept for the next window.
        QCOMPARE(m_window->runController()->simVsRealPairs(), 1);
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            QCOMPARE(dialog->intMaximum(), coh::ui::RunController::kMaxSimVsRealPairs);
            dialog->setIntValue(3);
            dialog->accept();
        });
        m_window->actions().simVsRealPairs->trigger();
        QCOMPARE(m_window->runController()->simVsRealPairs(), 3);
        closeWindow();
        openWindow();
        QCOMPARE(m_window->runController()->simVsRealPairs(), 3);
        QSettings().remove(QStringLiteral("run/simVsRealPairs"));
    }

    void realRunsSealSumsAreAChoiceKeptForTheNextSession()
    {
        // Execute On > Sum Block Seals on Every Read: on by default; off goes to the runs started next and is kept.
        QVERIFY(m_window->actions().sumSeals->isCheckable());
        QVERIFY(m_window->actions().sumSeals->isChecked());
        QVERIFY(m_window->runController()->sumSeals());
        m_window->actions().sumSeals->trigger();
        QVERIFY(!m_window->runController()->sumSeals());
        closeWindow();
        openWindow();
        QVERIFY(!m_window->actions().sumSeals->isChecked());
        QVERIFY(!m_window->runController()->sumSeals());
        QSettings().remove(QStringLiteral("run/sumSeals"));
    }

    void simVsRealRoutesAreAChoiceKeptForTheNextSession()
    {
        // Execute On > Simulator Against Real Routes as the Real Run: off by default; on goes to the next
        // sim-against-real and is kept.
        QVERIFY(m_window->actions().realRoutes->isCheckable());
        QVERIFY(!m_window->actions().realRoutes->isChecked());
        QVERIFY(!m_window->runController()->simVsRealRoutes());
        m_window->actions().realRoutes->trigger();
        QVERIFY(m_window->runController()->simVsRealRoutes());
        closeWindow();
        openWindow();
        QVERIFY(m_window->actions().realRoutes->isChecked());
        QVERIFY(m_window->runController()->simVsRealRoutes());
        QSettings().remove(QStringLiteral("run/simVsRealRoutes"));
    }

    void aProfileForSimVsRealIsKeptUntilForgotten()
    {
        // Execute On > Profile for Simulator Against Real...: none by default (calibrate just before). Forgotten
        // however the test ends, so no later sim-against-real runs on a file that is not there.
        const auto forget = qScopeGuard([] { QSettings().remove(QStringLiteral("run/simVsRealProfile")); });
        QVERIFY(m_window->runController()->simVsRealProfile().isEmpty());
        QVERIFY(!m_window->actions().forgetSimVsRealProfile->isEnabled());
        m_window->setSimVsRealProfile(QStringLiteral("/somewhere/run7.json"));
        QCOMPARE(m_window->runController()->simVsRealProfile(), QStringLiteral("/somewhere/run7.json"));
        QVERIFY(m_window->actions().simVsRealProfile->text().contains(QStringLiteral("run7.json")));
        QVERIFY(m_window->actions().forgetSimVsRealProfile->isEnabled());
        closeWindow();
        openWindow();
        QCOMPARE(m_window->runController()->simVsRealProfile(), QStringLiteral("/somewhere/run7.json"));
        m_window->actions().forgetSimVsRealProfile->trigger();
        QVERIFY(m_window->runController()->simVsRealProfile().isEmpty());
        QVERIFY(!m_window->actions().forgetSimVsRealProfile->isEnabled());
        QVERIFY(!QSettings().contains(QStringLiteral("run/simVsRealProfile")));
        // History ▸ Export ▸ Profile of Its Costs…, once written, offers its file: taken, it is the one chosen.
        auto* history = m_window->findChild<coh::ui::RunHistoryWidget*>();
        QVERIFY(history);
        emit history->useProfileForSimVsReal(QStringLiteral("/somewhere/run-9-costs.json"));
        QCOMPARE(m_window->runController()->simVsRealProfile(), QStringLiteral("/somewhere/run-9-costs.json"));
        QVERIFY(m_window->actions().forgetSimVsRealProfile->isEnabled());
    }

    void calibratingThisMachineMakesAProfileSimVsRealMayRunOn()
    {
        // Execute On > Calibrate This Machine to a Profile File...: a file asked for, the default scenario's
        // profile measured and written, then offered; taken, it is the one sim-against-real runs on.
        const auto forget = qScopeGuard([] { QSettings().remove(QStringLiteral("run/simVsRealProfile")); });
        QApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
        const QString path = m_dir.filePath(QStringLiteral("default-real-cpu-profile.json"));
        coh::ui::test::answerNextSaveDialog(path);
        QAction* calibrate = m_window->actions().calibrateProfile;
        calibrate->trigger();
        QVERIFY(!calibrate->isEnabled()); // one at a time
        // No run beside it: each would measure the other.
        m_window->runScenario();
        QVERIFY(!m_window->runController()->isRunning());
        QVERIFY2(m_window->statusText().contains(QStringLiteral("is being measured")),
                 qPrintable(m_window->statusText()));
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = m_window->findChild<QMessageBox*>()) != nullptr, 60000);
        QVERIFY(QFile::exists(path));
        QVERIFY2(box->informativeText().startsWith(QStringLiteral("real-cpu on ")), qPrintable(box->informativeText()));
        qobject_cast<QPushButton*>(box->defaultButton())->click();
        QCOMPARE(m_window->runController()->simVsRealProfile(), path);
        QVERIFY(calibrate->isEnabled());
    }

    void opensTheDefaultScenario()
    {
        QCOMPARE(m_window->document()->json().value("name", std::string()), std::string("default"));
        QVERIFY(m_window->windowTitle().contains(QStringLiteral("Coherence Studio")));
        QVERIFY(m_window->windowTitle().contains(QStringLiteral("default")));
        QVERIFY(!m_window->isWindowModified());
        QVERIFY(m_window->actions().run->isEnabled());
        QCOMPARE(m_window->statusText(), QStringLiteral("Validated"));
        QStringList tabs;
        for (int i = 0; i < m_window->tabs()->count(); ++i)
            tabs << m_window->tabs()->tabText(i);
        QVERIFY(tabs.contains(QStringLiteral("History")));
    }

    void menusAndShortcutsExist()
    {
        QStringList menus;
        const auto actions = m_window->menuBar()->actions();
        for (const QAction* a : actions)
            menus << a->text().remove(QLatin1Char('&'));
        QCOMPARE(menus, (QStringList{QStringLiteral("File"), QStringLiteral("Edit"), QStringLiteral("View"),
                                     QStringLiteral("Run"), QStringLiteral("Help")}));
        const auto& a = m_window->actions();
        QCOMPARE(a.run->shortcut(), QKeySequence(Qt::Key_F5));
        QCOMPARE(a.cancel->shortcut(), QKeySequence(Qt::Key_Escape));
        QCOMPARE(a.open->shortcut(), QKeySequence(QKeySequence::Open));
        QVERIFY(!a.cancel->isEnabled());
        QVERIFY(a.presets->actions().size() >= 1); // one per datasets/presets/*.json

        // Run > Execute On: the simulator unless real CPU is picked; Run's tooltip says which.
        QVERIFY(a.onSimulator->isChecked());
        QCOMPARE(a.backend(), QStringLiteral("simulated"));
        QVERIFY(a.run->toolTip().startsWith(QStringLiteral("Simulate")));
        a.onRealCpu->setChecked(true);
        QVERIFY(!a.onSimulator->isChecked());
        QCOMPARE(a.backend(), QStringLiteral("real-cpu"));
        QVERIFY(a.run->toolTip().contains(QStringLiteral("this machine's CPU")));
        // ... and says so where Run is pressed, not only in its tooltip: the toolbar's Run and the Start page.
        QCOMPARE(a.run->text(), QStringLiteral("&Run on Real CPU"));
        QCOMPARE(m_window->startPage()->runButton()->text(), QStringLiteral("Run it on the real CPU (F5)"));
        // Real GPU is offered only where there is one; otherwise it is disabled and says why.
        const coh::core::GpuInventory gpus = coh::core::probeGpus();
        QCOMPARE(a.onRealCuda->isEnabled(), !gpus.devices.empty());
        QCOMPARE(a.onSimVsRealGpu->isEnabled(), !gpus.devices.empty());
        if (gpus.devices.empty()) {
            QVERIFY(a.onRealCuda->toolTip().startsWith(QStringLiteral("No GPU here: ")));
        } else {
            a.onRealCuda->setChecked(true);
            QCOMPARE(a.backend(), QStringLiteral("real-cuda"));
            QVERIFY(a.run->toolTip().contains(QStringLiteral("this machine's GPU")));
        }
        // ... or both, compared: the real run goes first, so its backend is real-cpu.
        a.onSimVsReal->setChecked(true);
        QVERIFY(!a.onRealCpu->isChecked() && a.simVsReal());
        QCOMPARE(a.backend(), QStringLiteral("real-cpu"));
        QVERIFY(a.run->toolTip().contains(QStringLiteral("store both and compare them")));
        if (!gpus.devices.empty()) {
            a.onSimVsRealGpu->setChecked(true);
            QVERIFY(a.simVsReal());
            QCOMPARE(a.backend(), QStringLiteral("real-cuda"));
            QVERIFY(a.run->toolTip().contains(QStringLiteral("this machine's GPU, then simulate")));
        }
        QCOMPARE(a.run->text(),
                 QStringLiteral("&Run: Simulator Against Real %1")
                     .arg(a.backend() == QStringLiteral("real-cuda") ? QStringLiteral("GPU") : QStringLiteral("CPU")));
        a.onSimulator->setChecked(true);
        QVERIFY(!a.simVsReal());
        QCOMPARE(a.run->text(), QStringLiteral("&Run"));
        QCOMPARE(m_window->startPage()->runButton()->text(), QStringLiteral("Run it (F5)"));

        // A preset opens untitled (Save must not overwrite the shipped file) and validates as shipped.
        QAction* preset = a.presets->actions().constFirst();
        preset->trigger();
        QVERIFY(m_window->document()->filePath().isEmpty());
        QCOMPARE(QString::fromStdString(m_window->document()->json().value("name", std::string())), preset->text());
        QVERIFY2(a.run->isEnabled(), qPrintable(a.run->toolTip()));
    }

    void f5RunsTheScenarioToCompletion()
    {
        QSignalSpy finished(m_window->runController(), &coh::ui::RunController::finished);
        QSignalSpy failed(m_window->runController(), &coh::ui::RunController::failed);
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->runController()->isRunning());
        QVERIFY(!m_window->actions().run->isEnabled());
        QVERIFY(m_window->actions().cancel->isEnabled());
        QSignalSpy shownAfterRun(m_window.get(), &coh::ui::MainWindow::runShown);
        QVERIFY2(finished.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        const qint64 id = finished.at(0).at(0).toLongLong();
        // The finished run opens in Replay, as the docs say.
        QCOMPARE(m_window->tabs()->tabText(m_window->tabs()->currentIndex()), QStringLiteral("Replay"));
        QCOMPARE(shownAfterRun.count(), 1);
        QCOMPARE(shownAfterRun.at(0).at(0).toLongLong(), id);
        QTRY_VERIFY(m_window->findChild<coh::ui::ReplayWidget*>()->run()); // its model is built on a worker
        QVERIFY(m_window->actions().run->isEnabled());
        QVERIFY(m_window->statusText().contains(QStringLiteral("#%1").arg(id)));
        // The status bar's label holds the message in its tooltip too, whole where the window's edge cuts it.
        const auto statusLabels = m_window->statusBar()->findChildren<QLabel*>();
        QVERIFY(std::any_of(statusLabels.begin(), statusLabels.end(), [&](const QLabel* label) {
            return label->text() == m_window->statusText() && label->toolTip() == m_window->statusText();
        }));
        QCOMPARE(coh::core::RunStore(m_db.toStdString()).runInfo(id)->status, coh::core::RunStatus::Completed);
        const auto* model = m_window->historyWidget()->model();
        const int row = model->rowOfRun(id);
        QVERIFY(row >= 0);
        QCOMPARE(model->index(row, coh::ui::RunHistoryModel::Status).data().toString(), QStringLiteral("completed"));
        QVERIFY(m_window->actions().exportRun->isEnabled());

        // History > Open in Replay loads the stored run into the Replay tab.
        m_window->tabs()->setCurrentWidget(m_window->historyWidget());
        m_window->historyWidget()->selectRun(id);
        QSignalSpy open(m_window->historyWidget(), &coh::ui::RunHistoryWidget::openRun);
        QSignalSpy shown(m_window.get(), &coh::ui::MainWindow::runShown);
        m_window->historyWidget()->openSelected();
        QCOMPARE(open.count(), 1);
        QVERIFY(shown.wait(20000)); // loaded on a worker thread
        QCOMPARE(shown.at(0).at(0).toLongLong(), id);
        QCOMPARE(m_window->tabs()->tabText(m_window->tabs()->currentIndex()), QStringLiteral("Replay"));
        QVERIFY(m_window->statusText().contains(QStringLiteral("#%1").arg(id)));
    }

    void undoRevertsAScenarioPanelEdit()
    {
        QLineEdit* name = m_window->scenarioPanel()->nameEdit();
        name->setFocus();
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("edited"));
        QTest::keyClick(name, Qt::Key_Return);
        QCOMPARE(m_window->document()->json().value("name", std::string()), std::string("edited"));
        QVERIFY(m_window->isWindowModified());
        QAction* undo = m_window->actions().undo;
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QCOMPARE(m_window->document()->json().value("name", std::string()), std::string("default"));
        QCOMPARE(name->text(), QStringLiteral("default"));
        QVERIFY(!m_window->isWindowModified());
    }

    void runCommitsAPendingFieldEdit()
    {
        QLineEdit* name = m_window->scenarioPanel()->nameEdit();
        name->setFocus();
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("typed-not-entered"));
        QSignalSpy finished(m_window->runController(), &coh::ui::RunController::finished);
        m_window->runScenario();
        QCOMPARE(m_window->document()->json().value("name", std::string()), std::string("typed-not-entered"));
        QVERIFY(finished.wait(120000));
        const qint64 id = finished.at(0).at(0).toLongLong();
        QCOMPARE(coh::core::RunStore(m_db.toStdString()).runInfo(id)->scenarioName, std::string("typed-not-entered"));
    }

    void problemsShowANegativeBandwidth()
    {
        m_window->document()->setValue("/topology/links/0/bandwidth", "-5 GB/s", QStringLiteral("bad bandwidth"));
        // The debounce timer re-validates shortly after the change; wait for it rather than calling it.
        QTRY_VERIFY_WITH_TIMEOUT(problemLines(m_window->problemsList())
                                     .join(QLatin1Char('\n'))
                                     .contains(QStringLiteral("/topology/links/0/bandwidth")),
                                 10000);
        QVERIFY(!m_window->actions().run->isEnabled());
        QVERIFY(m_window->actions().run->toolTip().contains(QStringLiteral("bandwidth")));
        // Start's "Run it" follows: disabled, and its tooltip says why.
        auto* startRun = m_window->findChild<QPushButton*>(QStringLiteral("startRun"));
        QVERIFY(startRun);
        QVERIFY(!startRun->isEnabled());
        QVERIFY(startRun->toolTip().contains(QStringLiteral("bandwidth")));
        // F5 does nothing while the scenario is invalid.
        m_window->runScenario();
        QVERIFY(!m_window->runController()->isRunning());
        // Activating the problem selects the link it names on the canvas.
        QListWidgetItem* problem = nullptr;
        for (int i = 0; i < m_window->problemsList()->count(); ++i)
            if (m_window->problemsList()->item(i)->data(Qt::UserRole).toString() ==
                QLatin1String("/topology/links/0/bandwidth"))
                problem = m_window->problemsList()->item(i);
        QVERIFY(problem);
        m_window->tabs()->setCurrentIndex(0);
        emit m_window->problemsList()->itemActivated(problem);
        QCOMPARE(m_window->tabs()->tabText(m_window->tabs()->currentIndex()), QStringLiteral("Topology"));
        auto* editor = m_window->findChild<coh::ui::TopologyEditor*>();
        QVERIFY(editor);
        const std::string linkId = m_window->document()->json()["topology"]["links"][0]["id"].get<std::string>();
        QCOMPARE(editor->scene()->selectedLinkIds(), QStringList{QString::fromStdString(linkId)});
        m_window->document()->undoStack()->undo();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->actions().run->isEnabled(), 10000);
        QVERIFY(startRun->isEnabled());
        QVERIFY(startRun->toolTip().contains(QStringLiteral("F5")));
    }

    void coherencePickerExplainsAndOpensTheLab()
    {
        coh::ui::CoherenceForm* form = m_window->scenarioPanel()->coherenceForm();
        QComboBox* combo = form->protocolCombo();
        QCOMPARE(combo->currentData().toString(), QStringLiteral("msi-directory")); // the default scenario's
        QVERIFY(combo->findData(QStringLiteral("msi-directory-broken-noinv")) < 0); // bug hunts are Lab-only
        const int moesi = combo->findData(QStringLiteral("moesi-directory"));
        QVERIFY(moesi >= 0);
        combo->setCurrentIndex(moesi);
        emit combo->activated(moesi);
        QCOMPARE(m_window->document()->json()["coherence"]["decode"].get<std::string>(),
                 std::string("moesi-directory"));
        const auto& protocol = coh::core::coherence::findProtocol("moesi-directory");
        QVERIFY(
            form->explanation()->text().contains(QString::fromStdString(protocol.whenToPick).left(40).toHtmlEscaped()));

        QSignalSpy lab(m_window->scenarioPanel(), &coh::ui::ScenarioPanel::openInLab);
        auto* button = form->findChild<QPushButton*>();
        QVERIFY(button && button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(lab.count(), 1);
        QCOMPARE(lab.at(0).at(0).toString(), QStringLiteral("moesi-directory"));

        // Prefill's protocol is a picker; without a prefix pool, Problems says it would govern nothing.
        QComboBox* prefill = form->prefillCombo();
        QVERIFY(prefill->isEnabled());
        const int msi = prefill->findData(QStringLiteral("msi-directory"));
        prefill->setCurrentIndex(msi);
        emit prefill->activated(msi);
        m_window->validateNow();
        bool noPool = false;
        for (int i = 0; i < m_window->problemsList()->count(); ++i)
            noPool |= m_window->problemsList()->item(i)->text().contains(QStringLiteral("share no blocks"));
        QVERIFY(noPool);
        m_window->actions().undo->trigger();
        // A tier protocol is set through its picker; without a prefix pool in that tier, Problems says why.
        QCOMPARE(form->tierCombos().size(), std::size_t{3});
        QComboBox* cxl = form->tierCombos()[1];
        QCOMPARE(cxl->objectName(), QStringLiteral("tier_cxl"));
        const int sealed = cxl->findData(QStringLiteral("sealed-lease"));
        QVERIFY(sealed > 0);
        cxl->setCurrentIndex(sealed);
        emit cxl->activated(sealed);
        QCOMPARE(m_window->document()->json()["coherence"]["tiers"]["cxl"].get<std::string>(),
                 std::string("sealed-lease"));
        m_window->validateNow();
        QVERIFY(!m_window->actions().run->isEnabled());
        bool explained = false;
        for (int i = 0; i < m_window->problemsList()->count(); ++i)
            explained |=
                m_window->problemsList()->item(i)->text().contains(QStringLiteral("no KV lives in the cxl tier"));
        QVERIFY(explained);
        m_window->actions().undo->trigger();
        m_window->actions().undo->trigger();
        QCOMPARE(combo->currentData().toString(), QStringLiteral("msi-directory"));
    }

    void workloadTypeSwitchKeepsTheOtherKind()
    {
        coh::ui::WorkloadForm* form = m_window->scenarioPanel()->workloadForm();
        const auto trace = m_window->document()->json()["workload"];
        QCOMPARE(form->typeCombo()->currentData().toString(), QStringLiteral("trace"));
        form->typeCombo()->setCurrentIndex(0);
        emit form->typeCombo()->activated(0);
        QCOMPARE(m_window->document()->json()["workload"]["type"].get<std::string>(), std::string("synthetic"));
        m_window->validateNow();
        // core says what a synthetic workload still needs
        QVERIFY(problemLines(m_window->problemsList()).join(QLatin1Char(' ')).contains(QStringLiteral("/workload")));
        QVERIFY(!m_window->actions().run->isEnabled());
        form->typeCombo()->setCurrentIndex(1);
        emit form->typeCombo()->activated(1);
        QCOMPARE(m_window->document()->json()["workload"], trace);
    }

    void topologyIsFramedWhenItsTabFirstShows()
    {
        // The scenario opened while the Start tab was showing, with the Topology view hidden and not yet sized:
        // framing it then shrank the topology to a dot. It is framed when the tab first shows instead.
        auto* editor = m_window->findChild<coh::ui::TopologyEditor*>();
        QVERIFY(editor);
        QVERIFY(m_window->tabs()->currentWidget() != editor);
        m_window->tabs()->setCurrentWidget(editor);
        coh::ui::TopologyView* view = editor->view();
        const auto framed = [view] {
            const QRect shown = view->mapFromScene(view->scene()->itemsBoundingRect()).boundingRect();
            // The whole topology in view, and filling it rather than a speck in the middle.
            return view->viewport()->rect().contains(shown) &&
                   (shown.width() > view->viewport()->width() / 2 || shown.height() > view->viewport()->height() / 2);
        };
        QTRY_VERIFY(framed());
    }

    void instancesCanBeListedExplicitly()
    {
        coh::ui::InstancesEditor* editor = m_window->scenarioPanel()->instancesEditor();
        QVERIFY(!editor->explicitCheck()->isChecked());
        QVERIFY(!m_window->document()->value("/serving/instances"));
        const auto derived = m_window->document()->validate().scenario->serving.instances;
        const auto nodesAt = [this](int row) {
            const auto v = m_window->document()->value("/serving/instances/" + std::to_string(row) + "/nodes");
            return v ? v->size() : std::size_t(0);
        };

        // Turning the list on starts from what core derived: same ids, roles and nodes, still valid.
        editor->explicitCheck()->setChecked(true);
        QCOMPARE(editor->table()->rowCount(), static_cast<int>(derived.size()));
        auto listed = m_window->document()->validate().scenario;
        QVERIFY(listed);
        QCOMPARE(listed->serving.instances.size(), derived.size());
        for (std::size_t i = 0; i < derived.size(); ++i) {
            QCOMPARE(listed->serving.instances[i].id, derived[i].id);
            QCOMPARE(listed->serving.instances[i].role, derived[i].role);
            QCOMPARE(listed->serving.instances[i].nodes, derived[i].nodes);
        }

        // A tensor-parallel group: the first decode instance takes the second's node too, and that one goes.
        int firstDecode = -1;
        for (int r = 0; r < editor->table()->rowCount() && firstDecode < 0; ++r)
            if (derived[static_cast<std::size_t>(r)].role == coh::core::InstanceRole::Decode)
                firstDecode = r;
        QVERIFY(firstDecode >= 0 && firstDecode + 1 < editor->table()->rowCount());
        const QString second = editor->table()->item(firstDecode + 1, coh::ui::InstancesEditor::Nodes)->text();
        QTableWidgetItem* nodes = editor->table()->item(firstDecode, coh::ui::InstancesEditor::Nodes);
        nodes->setText(nodes->text() + QStringLiteral(", ") + second);
        QTRY_COMPARE(nodesAt(firstDecode), std::size_t(2)); // committed once the edit's signal has returned
        editor->table()->selectRow(firstDecode + 1);
        editor->removeButton()->click();
        const auto group = m_window->document()->validate().scenario;
        QVERIFY(group);
        QCOMPARE(group->serving.instances.size(), derived.size() - 1);
        QCOMPARE(group->serving.instances[static_cast<std::size_t>(firstDecode)].nodes.size(), std::size_t(2));

        // An instance on an unknown node: Problems names the field, and Run waits.
        editor->addButton()->click();
        const int added = editor->table()->rowCount() - 1;
        editor->table()->item(added, coh::ui::InstancesEditor::Nodes)->setText(QStringLiteral("nowhere"));
        QTRY_COMPARE(nodesAt(added), std::size_t(1));
        m_window->validateNow();
        QVERIFY(problemLines(m_window->problemsList()).join(QLatin1Char(' ')).contains(QStringLiteral("nowhere")));
        QVERIFY(!m_window->actions().run->isEnabled());

        // Every step was one undo step: undoing them all gives back the derived instances.
        for (int i = 0; i < 5; ++i)
            m_window->actions().undo->trigger();
        QVERIFY(!m_window->document()->value("/serving/instances"));
        QVERIFY(!editor->explicitCheck()->isChecked());
    }
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
