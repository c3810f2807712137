#pragma once
// Coherence Studio's main window: the scenario document, its editors (Topology tab, Scenario dock), the
// Problems dock, running (Run F5 / Cancel Esc) and the tabs that show runs (Replay, Charts, History, Lab).

#include "core/engine/run_result.h"
#include "ui/main_actions.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QMainWindow>
#include <QString>

#include <memory>
#include <string>

class QDockWidget;
class QToolBar;
class QLabel;
class QListWidget;
class QProgressBar;
class QTabWidget;
class QTimer;

namespace coh::ui {

class ChartsPanel;
class DockLayout;
class HelpWindow;
class DocumentFiles;
class LabWidget;
class ReplayWidget;
class RunController;
class RunHistoryWidget;
class ScenarioDocument;
class ScenarioPanel;
class StartPage;
class TopologyEditor;
class TunerPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // `databasePath` empty: core's defaultRunDatabasePath(), shared with `cohsim`.
    explicit MainWindow(const QString& databasePath = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a scenario file (asks to save unsaved changes first); false with the error shown when it fails.
    bool openScenario(const QString& path);

    ScenarioDocument* document() const { return m_document; }
    RunController* runController() const { return m_runner; }
    StartPage* startPage() const { return m_start; }
    RunHistoryWidget* historyWidget() const { return m_history; }
    TunerPanel* tunerPanel() const { return m_tuner; }
    ScenarioPanel* scenarioPanel() const { return m_panel; }
    QListWidget* problemsList() const { return m_problems; }
    QTabWidget* tabs() const { return m_tabs; }
    QToolBar* toolBar() const { return m_toolBar; }
    QDockWidget* scenarioDock() const { return m_scenarioDock; }
    QDockWidget* problemsDock() const { return m_problemsDock; }
    DockLayout* dockLayout() const { return m_dockLayout; }
    HelpWindow* helpWindow() const { return m_help; } // null until help is first shown
    const MainActions& actions() const { return m_actions; }
    static constexpr int kMaxPoolLimitMiB = 1 << 20; // the K/V pool limit's largest, as cohsim --pool-mib's
    QString statusText() const;

  public slots:
    void runScenario();
    void cancelRun();
    // Execute On > Node Memory for Real Runs: asks for the MiB and keeps it (QSettings "run/realMemoryMiB").
    void chooseRealMemory();
    // Execute On > K/V Pool Limit for Real Runs: asks for the MiB, 0 for as far as memory allows, and keeps it
    // (QSettings "run/poolLimitMiB").
    void chooseRealPoolLimit();
    // Execute On > Pairs for Simulator Against Real: asks how many and keeps it (QSettings "run/simVsRealPairs").
    void chooseSimVsRealPairs();
    // The profile file sim-against-real runs on (empty: calibrate just before), kept for the next session.
    void setSimVsRealProfile(const QString& path);
    // Execute On > Calibrate This Machine to a Profile File: a profile of this machine for the scenario open
    // (machineProfileWithDialog), offered as the one sim-against-real runs on.
    void calibrateForSimVsReal();
    void openRun(qint64 runId);
    void validateNow(); // what the debounce timer calls; tests call it to skip the wait
    // Shows where a problem is: the node or link on the canvas, or the Scenario dock for other fields.
    void showProblem(const QString& pointer);
    // View → Reset Layout: toolbar and docks where they belong, docks at their default sizes (DockLayout).
    void resetLayout();
    // Shows a guide ("scenario-format.md", "gui.md#...") in the help window.
    void showHelp(const QString& file);

  signals:
    // A stored run is in the Replay and Charts tabs, Replay showing: after a run completes, or after openRun()
    // (which loads it off the GUI thread).
    void runShown(qint64 runId);
    // Sim against real finished: both runs are stored and open side by side in a Compare dialog over the window.
    void comparedWithReal(qint64 realRunId, qint64 simulatedRunId);

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    std::string realBackendPicked() const; // "real-cuda" where a GPU backend is picked, else "real-cpu"
    QString calibrationBlocker() const;    // why a profile may not be measured now (a run is going); empty: it may
    void buildTabs();
    void buildDocks();
    void connectActions();
    void connectRunner();
    void exportCurrentRun();
    void refreshRecent();
    void updateTitle();
    void updateRunEnabled();
    void setStatus(const QString& text);
    void showRun(qint64 runId, std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenario,
                 const QString& runName, const QString& scenarioFile = {});

    ScenarioDocument* m_document = nullptr;
    RunController* m_runner = nullptr;
    DocumentFiles* m_files = nullptr;
    MainActions m_actions;
    QTabWidget* m_tabs = nullptr;
    ScenarioPanel* m_panel = nullptr;
    RunHistoryWidget* m_history = nullptr;
    TunerPanel* m_tuner = nullptr;
    ReplayWidget* m_replay = nullptr;
    ChartsPanel* m_charts = nullptr;
    LabWidget* m_lab = nullptr;
    StartPage* m_start = nullptr;
    TopologyEditor* m_topology = nullptr;
    QDockWidget* m_scenarioDock = nullptr;
    QDockWidget* m_problemsDock = nullptr;
    DockLayout* m_dockLayout = nullptr;
    QToolBar* m_toolBar = nullptr;
    HelpWindow* m_help = nullptr;
    QListWidget* m_problems = nullptr;
    QTimer* m_validateTimer = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QString m_databasePath;
    QString m_validationError;            // empty when the scenario validates
    QString m_runError;                   // the last run's failure, shown in Problems until the next run
    nlohmann::ordered_json m_runScenario; // the JSON the current run was started with
    qint64 m_currentRunId = 0;            // run shown in Replay/Charts (Export Run exports it)
    quint64 m_openGeneration = 0;         // openRun() requests; a stale load is dropped
    QByteArray m_defaultState;            // dock layout before restoring settings, for Reset Layout
};

} // namespace coh::ui
