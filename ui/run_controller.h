#pragma once
// Runs a scenario off the GUI thread and stores it exactly as `cohsim run` does (beginRun, then completeRun or
// failRun). The scenario JSON is copied in, the RunResult handed back whole; progress arrives as queued signals.

#include "core/engine/run_result.h"
#include "core/serving/run_options.h"
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <algorithm>
#include <atomic>
#include <memory>

namespace coh::core {
struct Scenario;
struct Workload;
} // namespace coh::core

namespace coh::ui {

class RunController : public QObject {
    Q_OBJECT
  public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override; // cancels a running run and waits for its thread

    // Validates the scenario (as core::parseScenario does for `cohsim validate`), builds its workload and
    // simulates it on a worker thread. `scenarioPath` names the file in errors and anchors relative trace paths;
    // `databasePath` empty means core::defaultRunDatabasePath(). `backend` names what executes it
    // (core::backendNames(): "simulated", "real-cpu"). Returns false (and emits failed) when a run is already going,
    // the scenario does not validate or the backend cannot run it.
    bool start(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath,
               const QString& databasePath = {}, const QString& backend = QStringLiteral("simulated"));
    // Execute On > Simulator Against Real CPU (or GPU): calibrates this machine's `backend` ("real-cpu",
    // "real-cuda"), runs the scenario on it, then on the simulator over the calibrated profile (core::runSimVsReal),
    // storing both. finished() carries the real run, then comparedWithReal() both ids, the simulator's error and, with
    // several pairs (setSimVsRealPairs), every pair's ids: real, simulated, real, simulated, ...
    bool startSimVsReal(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath,
                        const QString& databasePath = {}, const QString& backend = QStringLiteral("real-cpu"));
    void cancel();
    bool isRunning() const { return m_running; }
    // A real run's memory per node, its copy arena and where its K/V pool starts (cohsim --arena-mib), for the runs
    // started next.
    void setRealMemoryMiB(int mib) { m_realMemoryMiB = mib; }
    int realMemoryMiB() const { return m_realMemoryMiB; }
    // The most a real run's decode K/V pool grows to (cohsim --pool-mib); 0: as far as the machine's memory leaves
    // room for.
    void setRealPoolLimitMiB(int mib) { m_realPoolLimitMiB = mib; }
    int realPoolLimitMiB() const { return m_realPoolLimitMiB; }
    // Whether a real run sums each block read against its seal (cohsim --no-seal-sums is false); a sim-against-real
    // run never does, whatever this says.
    void setSumSeals(bool sum) { m_sumSeals = sum; }
    bool sumSeals() const { return m_sumSeals; }
    // How many pairs a sim-against-real run makes (cohsim compare-real --repeat): each a calibration, a real run and
    // a simulated run on that profile; above 1 the error is the median of the pairs' (core::SimVsReal::paired).
    void setSimVsRealPairs(int pairs) { m_simVsRealPairs = std::clamp(pairs, 1, kMaxSimVsRealPairs); }
    int simVsRealPairs() const { return m_simVsRealPairs; }
    // Sim-against-real: the simulator routes each request as the real run did (core::SimVsRealOptions::realRoutes).
    void setSimVsRealRoutes(bool replay) { m_simVsRealRoutes = replay; }
    bool simVsRealRoutes() const { return m_simVsRealRoutes; }
    // Sim-against-real: the profile file the simulator runs on (cohsim compare-real --profile; a calibration or
    // `cohsim calibrate --from-run`'s), read when the run starts; empty: calibrate this machine just before.
    void setSimVsRealProfile(const QString& path) { m_simVsRealProfile = path; }
    QString simVsRealProfile() const { return m_simVsRealProfile; }
    static constexpr int kMaxSimVsRealPairs = 15; // as compare-real --repeat's
    // The database the last run went to (the default path resolved).
    QString databasePath() const { return m_databasePath; }
    // The name the last run is stored under ("<scenario> · <decode protocol>") and the file it was started from.
    QString runName() const { return m_runName; }
    QString scenarioPath() const { return m_scenarioPath; }

    static QString defaultDatabasePath(QString* error = nullptr);

  signals:
    void started(qint64 runId);
    void progress(double fraction, const QString& text);
    void finished(qint64 runId, std::shared_ptr<const coh::core::RunResult> result);
    void failed(const QString& error);
    void cancelled();
    void comparedWithReal(qint64 realRunId, qint64 simulatedRunId, const QString& comparison,
                          const QList<qint64>& pairedRunIds);

  private:
    struct Outcome;
    // Sim-against-real's settings, copied on the GUI thread when a run starts: the worker reads these, not the
    // members a menu may change while it runs.
    struct SimVsRealChoices {
        int pairs = 1;
        bool routes = false;
        QString profile;
    };
    bool launch(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath, const QString& databasePath,
                const QString& backend, bool simVsReal);
    // On the worker: both runs of sim against real into `outcome`.
    void runSimVsReal(const core::BackendOptions& backend, const SimVsRealChoices& choices, core::RunStore& store,
                      const core::Scenario& scenario, const core::Workload& workload, core::ProgressListener& listener,
                      Outcome& outcome);
    void onWorkerDone();

    QFutureWatcher<std::shared_ptr<Outcome>>* m_watcher = nullptr;
    std::atomic<bool> m_cancel{false};
    bool m_running = false;
    QString m_databasePath;
    QString m_runName;
    int m_realMemoryMiB = static_cast<int>(core::real::RealCpuOptions{}.arenaBytes >> 20);
    int m_realPoolLimitMiB = 0;
    bool m_sumSeals = core::real::RealCpuOptions{}.sumSeals;
    int m_simVsRealPairs = 1;
    bool m_simVsRealRoutes = false;
    QString m_simVsRealProfile;
    QString m_scenarioPath;
};

} // namespace coh::ui
