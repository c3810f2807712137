// cohsim run SCENARIO: simulate a scenario, store the run, print its summary.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_serialization.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>

#include <csignal>
#include <memory>
#include <optional>
#include <unistd.h>

namespace coh::cli {
namespace {

struct RunCommandOptions {
    std::string scenario;
    std::optional<std::uint64_t> seed;
    std::optional<std::uint32_t> maxRequests;
    std::string name;
    bool json = false;
    bool noStore = false;
};

// Ctrl-C cancels the run cleanly: the engine polls this flag once per event and the store records the run
// as cancelled instead of leaving it half-written.
std::atomic<bool> g_cancel{false};
extern "C" void onInterrupt(int)
{
    g_cancel.store(true);
}

class StderrProgress final : public core::ProgressListener {
  public:
    void onProgress(const core::RunProgress& p) override
    {
        fmt::print(stderr, "\r  {:>6.2f}%  {} / {} requests, t = {:.1f} s simulated, {} events",
                   100.0 * p.completed / p.total, p.completed, p.total, core::toSeconds(p.now), p.events);
        m_printed = true;
    }
    ~StderrProgress() override
    {
        if (m_printed)
            fmt::print(stderr, "\n");
    }

  private:
    bool m_printed = false;
};

void runScenarioCommand(const GlobalOptions& global, const RunCommandOptions& options)
{
    core::Scenario scenario = core::loadScenarioFile(options.scenario);
    if (options.seed)
        scenario.seed = *options.seed;
    if (options.maxRequests)
        core::limitRequests(scenario.workload, *options.maxRequests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);

    std::unique_ptr<core::RunStore> store;
    std::int64_t id = 0;
    if (!options.noStore) {
        store = openRunStore(global);
        id = store->beginRun(options.name.empty() ? scenario.name : options.name, scenario.json, scenario.seed);
    }
    if (!global.quiet && !options.json)
        fmt::print(stderr, "Running {} ({} requests, seed {}){}\n", scenario.name, workload.requests.size(),
                   scenario.seed, store ? fmt::format(" as run {} in {}", id, store->path()) : std::string());

    g_cancel = false;
    auto previous = std::signal(SIGINT, onInterrupt);
    StderrProgress progress;
    core::RunOptions runOptions;
    runOptions.cancel = &g_cancel;
    if (!global.quiet && isatty(STDERR_FILENO))
        runOptions.progress = &progress;

    core::RunResult result;
    try {
        result = core::runScenario(scenario, workload, runOptions);
    } catch (const core::RunCancelled&) {
        std::signal(SIGINT, previous);
        if (store)
            store->failRun(id, core::RunStatus::Cancelled, "cancelled by the user (SIGINT)");
        fmt::print(stderr, "cancelled{}\n",
                   store ? fmt::format("; run {} is recorded as cancelled", id) : std::string());
        throw CommandExit{130};
    } catch (const std::exception& e) {
        std::signal(SIGINT, previous);
        if (store)
            store->failRun(id, core::RunStatus::Failed, e.what());
        throw;
    }
    std::signal(SIGINT, previous);
    if (store)
        store->completeRun(id, result);

    if (options.json) {
        nlohmann::ordered_json out = {{"run_id", store ? nlohmann::ordered_json(id) : nlohmann::ordered_json()},
                                      {"scenario", scenario.name},
                                      {"seed", scenario.seed},
                                      {"summary", core::toJson(result.summary)}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("Run {}: {} (seed {})\n", store ? std::to_string(id) : std::string("(not stored)"), scenario.name,
               scenario.seed);
    printRunSummary(result.summary);
    printNodeBlocks(result.nodeBlocks, result.nodeIds, result.summary.makespan, result.linkInterval);
}

} // namespace

static const bool registered = registerCommand("run", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<RunCommandOptions>();
    auto* run = app.add_subcommand("run", "Simulate a scenario, store the run and print its summary");
    run->add_option("scenario", options->scenario, "Scenario JSON file (see docs/scenario-format.md)")->required();
    run->add_option("--seed", options->seed, "Override the scenario's seed");
    run->add_option("--max-requests", options->maxRequests, "Simulate at most this many requests");
    run->add_option("--name", options->name, "Name of the stored run (default: the scenario's name)");
    run->add_flag("--json", options->json, "Print the summary as JSON on stdout");
    run->add_flag("--no-store", options->noStore, "Do not write the run to the database");
    run->callback([&global, options] { runScenarioCommand(global, *options); });
});

} // namespace coh::cli
