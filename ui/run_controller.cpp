#include "ui/run_controller.h"

#include "core/base/input_error.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/default_paths.h"
#include "core/store/run_and_store.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"
#include "core/workload/workload_builder.h"
#include "ui/qt_text.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrent>

#include <cmath>

namespace coh::ui {

struct RunController::Outcome {
    enum class Kind { Completed, Failed, Cancelled } kind = Kind::Failed;
    qint64 runId = 0;
    std::shared_ptr<const core::RunResult> result;
    QString error;
    qint64 simulatedRunId = 0;  // sim against real: the simulator's run on the profile
    QList<qint64> pairedRunIds; // sim against real: every real run and the simulated run that models it, in pairs
    QString comparison;         // sim against real: the error per metric, in words
};

namespace {

// Adapts the engine's heartbeat callback (worker thread) to the controller's signal (GUI thread).
class SignalProgress final : public core::ProgressListener {
  public:
    explicit SignalProgress(RunController* controller)
        : m_controller(controller)
    {
    }
    void onProgress(const core::RunProgress& p) override
    {
        const double fraction = p.total > 0 ? double(p.completed) / double(p.total) : 0.0;
        const QString text = RunController::tr("%1 / %2 requests, t = %3 s simulated, %4 events")
                                 .arg(p.completed)
                                 .arg(p.total)
                                 .arg(core::toSeconds(p.now), 0, 'f', 1)
                                 .arg(p.events);
        QPointer<RunController> target = m_controller;
        QMetaObject::invokeMethod(
            m_controller,
            [target, fraction, text] {
                if (target && target->isRunning())
                    emit target->progress(fraction, text);
            },
            Qt::QueuedConnection);
    }

  private:
    RunController* m_controller;
};

} // namespace

RunController::RunController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const core::RunResult>>("std::shared_ptr<const coh::core::RunResult>");
    m_watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &RunController::onWorkerDone);
}

RunController::~RunController()
{
    if (m_running) {
        m_cancel = true;
        m_watcher->waitForFinished();
    }
}

QString RunController::defaultDatabasePath(QString* error)
{
    try {
        return toQString(core::defaultRunDatabasePath());
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return {};
    }
}

bool RunController::start(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath,
                          const QString& databasePath, const QString& backend)
{
    return launch(scenarioJson, scenarioPath, databasePath, backend, false);
}

bool RunController::startSimVsReal(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath,
                                   const QString& databasePath, const QString& backend)
{
    return launch(scenarioJson, scenarioPath, databasePath, backend, true);
}

bool RunController::launch(const nlohmann::ordered_json& scenarioJson, const QString& scenarioPath,
                           const QString& databasePath, const QString& backend, bool simVsReal)
{
    if (m_running) {
        emit failed(tr("A run is already in progress."));
        return false;
    }
    // Validate here so a bad scenario, or one the backend cannot run, is reported at once, before any thread or
    // stored row.
    auto scenario = std::make_shared<core::Scenario>();
    core::BackendOptions backendOptions;
    try {
        *scenario = core::parseScenario(nlohmann::json::parse(scenarioJson.dump()), toStdString(scenarioPath));
        backendOptions.name = core::canonicalBackendName(toStdString(backend));
        backendOptions.realCpu.arenaBytes = static_cast<std::size_t>(m_realMemoryMiB) << 20;
        backendOptions.realCpu.sumSeals = m_sumSeals;
        if (m_realPoolLimitMiB > 0 && backendOptions.name != "simulated")
            backendOptions.realCpu.poolMaxBytes = static_cast<std::size_t>(m_realPoolLimitMiB) << 20;
        core::checkBackendRuns(backendOptions, *scenario);
    } catch (const std::exception& e) {
        emit failed(toQString(e.what()));
        return false;
    }
    QString dbError;
    m_databasePath = databasePath.isEmpty() ? defaultDatabasePath(&dbError) : databasePath;
    if (m_databasePath.isEmpty()) {
        emit failed(dbError);
        return false;
    }

    m_runName = toQString(simVsReal ? core::simVsRealRunName(*scenario, true, 1, 1, backendOptions.name)
                                    : core::defaultRunName(*scenario));
    m_scenarioPath = scenarioPath;
    m_cancel = false;
    m_running = true;
    const std::string dbPath = toStdString(m_databasePath);
    QPointer<RunController> self = this;
    const SimVsRealChoices choices{m_simVsRealPairs, m_simVsRealRoutes, m_simVsRealProfile};
    auto work = [this, self, scenario, dbPath, backendOptions, simVsReal, choices,
                 name = toStdString(m_runName)]() -> std::shared_ptr<Outcome> {
        auto outcome = std::make_shared<Outcome>();
        std::unique_ptr<core::RunStore> store;
        core::Workload workload;
        try {
            // Reading a trace can take a while, so it happens here; like `cohsim run`, before the row is begun,
            // so a trace that cannot be read leaves no run behind.
            workload = core::buildWorkload(scenario->workload, scenario->seed, scenario->sourcePath);
            if (m_cancel) {
                // Cancelled while the trace was read: nothing was stored, nothing to record.
                outcome->kind = Outcome::Kind::Cancelled;
                return outcome;
            }
            // One connection per thread (RunStore's rule): this one lives and dies on the worker.
            store = std::make_unique<core::RunStore>(dbPath);
        } catch (const std::exception& e) {
            outcome->error = toQString(e.what());
            return outcome;
        }

        SignalProgress listener(this);
        core::RunOptions options;
        options.cancel = &m_cancel;
        options.backend = backendOptions;
        options.progress = &listener;
        core::StoredRunHooks hooks;
        hooks.begun = [this, self, outcome](std::int64_t id) {
            outcome->runId = id;
            QMetaObject::invokeMethod(
                this,
                [self, id] {
                    if (self)
                        emit self->started(id);
                },
                Qt::QueuedConnection);
        };
        hooks.cancelReason = "cancelled by the user (Run > Cancel)";
        if (simVsReal) {
            runSimVsReal(backendOptions, choices, *store, *scenario, workload, listener, *outcome);
            return outcome;
        }
        try {
            // Stored exactly as `cohsim run` stores it: the same name, row life and result.
            outcome->result =
                std::make_shared<core::RunResult>(core::runAndStore(*store, *scenario, workload, options, name, hooks));
            outcome->kind = Outcome::Kind::Completed;
        } catch (const core::RunCancelled&) {
            outcome->kind = Outcome::Kind::Cancelled;
        } catch (const std::exception& e) {
            outcome->error = toQString(e.what());
        }
        return outcome;
    };
    m_watcher->setFuture(QtConcurrent::run(work));
    return true;
}

void RunController::runSimVsReal(const core::BackendOptions& backend, const SimVsRealChoices& choices,
                                 core::RunStore& store, const core::Scenario& scenario, const core::Workload& workload,
                                 core::ProgressListener& listener, Outcome& outcome)
{
    core::SimVsRealOptions compare;
    compare.backend = backend.name;
    compare.realCpu = backend.realCpu;
    compare.realRuns = choices.pairs;
    compare.realRoutes = choices.routes;
    compare.cancel = &m_cancel;
    compare.progress = &listener;
    QPointer<RunController> self = this;
    compare.stage = [self](const std::string& stage) {
        QMetaObject::invokeMethod(
            self,
            [self, text = toQString(stage)] {
                if (self && self->isRunning())
                    emit self->progress(0, text);
            },
            Qt::QueuedConnection);
    };
    const QString& profilePath = choices.profile;
    try {
        // A profile file chosen (cohsim compare-real --profile): read as hostile as the CLI reads it.
        if (!profilePath.isEmpty())
            compare.profile = core::real::readProfile(toStdString(profilePath));
        const core::SimVsReal result = core::runSimVsReal(&store, scenario, workload, compare);
        outcome.runId = result.realId;
        outcome.result = std::make_shared<core::RunResult>(result.real);
        outcome.simulatedRunId = result.simulatedId;
        // Without pairs the one simulated run models the first real run only.
        outcome.pairedRunIds = {result.realId, result.simulatedId};
        for (std::size_t i = 1; result.paired && i < result.realIds.size(); ++i)
            outcome.pairedRunIds << result.realIds[i] << result.simulatedIds.at(i);
        // Each p50's error, and beside it the error on the real runs' own costs (compare-real's ON OWN COSTS): what
        // is left once the machine's drift since the calibration is out of it.
        const auto percent = [](double pct) {
            return std::isnan(pct) ? QStringLiteral("n/a") : QString::asprintf("%+.1f%%", pct);
        };
        QStringList errors, ownCostErrors;
        for (const auto& row : result.rows)
            if (row.metric.find("p50") != std::string::npos) {
                const QString metric = toQString(row.metric).remove(QStringLiteral(" (ms)"));
                errors << tr("%1 %2").arg(metric, percent(row.errorPct()));
                if (!row.ownCostErrorsPct.empty())
                    ownCostErrors << tr("%1 %2").arg(metric, percent(row.ownCostErrorPct()));
            }
        QString errorsText = errors.join(QStringLiteral(", "));
        if (!ownCostErrors.isEmpty())
            errorsText += tr("; on the real runs' own costs %1").arg(ownCostErrors.join(QStringLiteral(", ")));
        // The latencies beyond the goal that the simulator reaches with its costs moved as far as a calibration
        // drifts (compare-real's AT COSTS column): their error is not told apart from that.
        QStringList reached;
        for (const std::string& metric : result.latenciesReachedByMovedCosts())
            reached << toQString(metric);
        if (!reached.isEmpty())
            errorsText += tr("; beyond %1% but reached with its costs moved %2%: %3")
                              .arg(100 * core::kSimulatorErrorGoal)
                              .arg(100 * result.costSensitivity)
                              .arg(reached.join(QStringLiteral(", ")));
        QString against =
            result.paired
                ? tr("the simulator against %1 in %2 pairs, each on a profile taken just before its real run (the "
                     "median of the pairs' errors)")
                      .arg(toQString(result.profile.backend))
                      .arg(result.realRuns)
            : profilePath.isEmpty()
                ? tr("the simulator on this machine's profile against %1").arg(toQString(result.profile.backend))
                : tr("the simulator on the profile in %1%2 against %3%4")
                      .arg(QFileInfo(profilePath).fileName(),
                           result.profile.costsOfRun > 0
                               ? tr(" (the costs of real run #%1)").arg(result.profile.costsOfRun)
                               : QString(),
                           toQString(result.profile.backend),
                           // One profile, several real runs: their median against one simulated run, as compare-real.
                           result.realRuns > 1 ? tr(" (the median of %1 real runs)").arg(result.realRuns) : QString());
        // A profile another machine measured: its costs are that machine's, as compare-real says.
        if (const std::string other = profilePath.isEmpty() ? std::string() : core::real::otherMachine(result.profile);
            !other.empty())
            against += tr(", measured on %1").arg(toQString(other));
        // A profile file made before calibration left the caches as a run's traffic does: its copies are a lone
        // bench's, as compare-real says.
        if (const std::string alone =
                profilePath.isEmpty() ? std::string() : core::real::copiesMeasuredAlone(result.profile);
            !alone.empty())
            against += tr(" (%1)").arg(toQString(alone));
        const QString routed = compare.realRoutes ? tr(", routing each request as the real run did") : QString();
        outcome.comparison =
            tr("%1: %2; messages, flows and bytes %3")
                .arg(against + routed, errorsText,
                     result.countsEqual() ? tr("equal")
                                          : tr("differ in %n real run(s) (event order followed measured times)", "",
                                               result.realRunsWithOtherCounts));
        outcome.kind = Outcome::Kind::Completed;
    } catch (const core::RunCancelled&) {
        outcome.kind = Outcome::Kind::Cancelled;
    } catch (const core::InputError& e) {
        // A profile file that does not fit the scenario or the backend: named as the file the menu chose, with the
        // menu's fix, where the core names compare-real's --profile.
        std::vector<core::InputProblem> problems = e.problems();
        for (core::InputProblem& p : problems)
            if (!profilePath.isEmpty() && p.field == "--profile") {
                p.file = toStdString(profilePath);
                p.field = "Execute On > Profile for Simulator Against Real";
                p.fix = "choose a profile measured for this scenario and backend, or Calibrate Just Before Simulator "
                        "Against Real";
            }
        outcome.error = toQString(core::InputError(std::move(problems)).what());
    } catch (const std::exception& e) {
        outcome.error = toQString(e.what());
    }
}

void RunController::cancel()
{
    if (m_running)
        m_cancel = true;
}

void RunController::onWorkerDone()
{
    m_running = false;
    const std::shared_ptr<Outcome> outcome = m_watcher->result();
    switch (outcome->kind) {
    case Outcome::Kind::Completed:
        emit finished(outcome->runId, outcome->result);
        if (outcome->simulatedRunId > 0)
            emit comparedWithReal(outcome->runId, outcome->simulatedRunId, outcome->comparison, outcome->pairedRunIds);
        break;
    case Outcome::Kind::Cancelled:
        emit cancelled();
        break;
    case Outcome::Kind::Failed:
        emit failed(outcome->error);
        break;
    }
}

} // namespace coh::ui
