// cohsim run SCENARIO: simulate a scenario, store the run, print its summary.
#include "app/cohsim/command.h"
#include "app/cohsim/option_checks.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h"
#include "app/cohsim/terminal_text.h"
#include "core/base/input_error.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/scenario/scenario_overrides.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/store/run_serialization.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

namespace coh::cli {
namespace {

struct RunCommandOptions {
    std::string scenario;
    std::optional<std::uint64_t> seed;
    std::optional<std::uint32_t> maxRequests;
    std::string name;
    std::vector<std::string> overrides; // --set POINTER=VALUE, in order
    bool json = false;
    bool noStore = false;
    std::string backend = "simulated";
    std::vector<std::string> inject; // empty: no fault; more than one is refused
    bool noSealSums = false;
    // None: the default (64 MiB, one layer); given, they must be meant for a real backend.
    std::optional<std::uint32_t> arenaMib;
    std::optional<std::uint32_t> poolMib; // none: as large as its memory leaves room for
    std::optional<std::uint32_t> layers;
};

// Ctrl-C cancels the run cleanly: the engine polls this flag once per event and the store records the run
// as cancelled instead of leaving it half-written. Once the simulation has finished, the handler stays in place
// through the final commit, so an interrupt there cannot kill the process half-way: the commit finishes and the
// run is completed. A second Ctrl-C while the commit waits for a locked database stops the wait; the result is
// then kept in a pending file (RunStore::completeRun), never lost.
std::atomic<bool> g_cancel{false};
std::atomic<int> g_interrupts{0};
std::atomic<bool> g_committing{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void onInterrupt(int)
{
    const int count = g_interrupts.fetch_add(1) + 1;
    g_cancel.store(true);
    if (!g_committing.load())
        return;
    // Only async-signal-safe calls here: write(2) of constant text.
    static constexpr char kFirst[] = "\ncohsim: interrupt: the simulation has finished, storing it first (Ctrl-C "
                                     "again stops waiting if the database is locked)\n";
    static constexpr char kAgain[] = "\ncohsim: interrupt again: a wait for a locked database stops now and the "
                                     "result is kept in a pending file\n";
    const std::string_view text =
        count == 1 ? std::string_view(kFirst, sizeof kFirst - 1) : std::string_view(kAgain, sizeof kAgain - 1);
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text.data(), text.size());
}

// Test hook (tests/core/test_run_store_trust.cpp): with COH_TEST_PAUSE_AT=before-commit or in-commit, cohsim
// creates the file COH_TEST_PAUSE_MARKER there and sleeps COH_TEST_PAUSE_MS, so a test can take the database's
// lock or send SIGINT at a known point of the final commit. Unset, it costs a getenv per point.
void pauseForTest(std::string_view where)
{
    const char* at = std::getenv("COH_TEST_PAUSE_AT");
    if (!at || where != at)
        return;
    if (const char* marker = std::getenv("COH_TEST_PAUSE_MARKER"))
        std::ofstream(marker) << ::getpid() << '\n';
    const char* ms = std::getenv("COH_TEST_PAUSE_MS");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms ? std::atoll(ms) : 1000));
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
    nlohmann::json root = core::readJsonFile(options.scenario);
    for (const auto& assignment : options.overrides)
        core::applyOverride(root, assignment, options.scenario);
    core::Scenario scenario = core::parseScenario(root, options.scenario);
    if (options.seed)
        scenario.seed = *options.seed;
    if (options.maxRequests)
        core::limitRequests(scenario.workload, *options.maxRequests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed, scenario.sourcePath);

    std::unique_ptr<core::RunStore> store;
    if (!options.noStore) {
        core::RunStoreOptions storeOptions;
        storeOptions.stopWaiting = [] { return g_interrupts.load() >= 2; };
        store = openRunStore(global, std::move(storeOptions));
        store->setCompleteHookForTesting([](std::string_view step) {
            if (step == "summary")
                pauseForTest("in-commit");
        });
    }
    const std::string name = options.name.empty() ? core::defaultRunName(scenario) : options.name;
    std::int64_t id = 0;
    const auto announce = [&](const std::string& where) {
        if (!global.quiet && !options.json)
            fmt::print(stderr, "Running {} ({} requests, seed {}){}\n", terminalSafe(name), workload.requests.size(),
                       scenario.seed, where);
    };

    g_cancel = false;
    g_interrupts = 0;
    g_committing = false;
    auto previous = std::signal(SIGINT, onInterrupt);
    StderrProgress progress;
    core::RunOptions runOptions;
    runOptions.cancel = &g_cancel;
    runOptions.backend.name = core::canonicalBackendName(options.backend);
    runOptions.backend.realCpu.arenaBytes = std::size_t{options.arenaMib.value_or(64)} << 20;
    runOptions.backend.realCpu.layers = options.layers.value_or(1);
    // As --pool-mib and --no-seal-sums: an option a simulated run would ignore is a mistake to say so.
    for (const auto& [given, option] :
         {std::pair{options.arenaMib.has_value(), "--arena-mib"}, std::pair{options.layers.has_value(), "--layers"}})
        if (given && runOptions.backend.name == "simulated")
            throw core::InputError("", option,
                                   "the simulated backend makes no node memories and runs no attention for real",
                                   "use it with --backend real-cpu or real-cuda");
    if (options.poolMib)
        runOptions.backend.realCpu.poolMaxBytes = std::size_t{*options.poolMib} << 20;
    if (options.noSealSums && runOptions.backend.name == "simulated")
        throw core::InputError("", "--no-seal-sums", "the simulated backend holds no K/V blocks to sum",
                               "use it with --backend real-cpu or real-cuda");
    runOptions.backend.realCpu.sumSeals = !options.noSealSums;
    // A run stops at the first fault its checks catch, so a second would never play.
    if (options.inject.size() > 1)
        throw core::InputError("", "--inject",
                               fmt::format("a run plays one fault, and stops when its checks catch it; {} were given",
                                           options.inject.size()),
                               "give --inject once, and run again for each other fault");
    if (!options.inject.empty()) // an empty one is refused by the parser, as any name it does not know
        runOptions.backend.fault = core::real::parseInjectedFault(options.inject.front());
    core::checkBackendRuns(runOptions.backend, scenario);
    if (!global.quiet && isatty(STDERR_FILENO))
        runOptions.progress = &progress;

    // The handler stays in place until the run's row says how it ended; `restore` puts the previous one back.
    struct RestoreHandler {
        decltype(previous) handler;
        ~RestoreHandler() { std::signal(SIGINT, handler); }
    } restore{previous};

    core::RunResult result;
    try {
        if (store) {
            core::StoredRunHooks hooks;
            hooks.begun = [&](std::int64_t begun) {
                id = begun;
                announce(fmt::format(" as run {} in {}", id, store->path()));
            };
            hooks.simulated = [] {
                // The simulation is done: from here an interrupt no longer cancels it.
                g_committing = true;
                pauseForTest("before-commit");
            };
            hooks.cancelReason = "cancelled by the user (SIGINT)";
            result = core::runAndStore(*store, scenario, workload, runOptions, name, hooks);
        } else {
            announce({});
            result = core::runScenario(scenario, workload, runOptions);
        }
    } catch (const core::RunCancelled&) {
        fmt::print(stderr, "cancelled{}\n",
                   store ? fmt::format("; run {} is recorded as cancelled", id) : std::string());
        throw CommandExit{130};
    }
    // An injected fault stops the run when its checks catch it: a run that ends is one that never played it.
    if (!result.summary.backend.faultNotPlayed.empty())
        fmt::print(stderr, "cohsim: {}\n", result.summary.backend.faultNotPlayed);
    const bool interrupted = g_interrupts.load() > 0;
    if (interrupted)
        fmt::print(stderr, "cohsim: the interrupt came after the simulation had finished: {}\n",
                   store ? fmt::format("run {} is stored as completed", id) : std::string("its summary follows"));

    if (options.json) {
        nlohmann::ordered_json out = {{"run_id", store ? nlohmann::ordered_json(id) : nlohmann::ordered_json()},
                                      {"scenario", scenario.name},
                                      {"seed", scenario.seed},
                                      {"summary", core::toJson(result.summary)}};
        fmt::print("{}\n", out.dump(2));
    } else {
        fmt::print("Run {}: {} (seed {})\n", store ? std::to_string(id) : std::string("(not stored)"),
                   terminalSafe(name), scenario.seed);
        printRunSummary(result.summary);
        printNodeBlocks(result.nodeBlocks, result.nodeIds, result.summary.makespan, result.linkInterval);
    }
    // 130 as for a cancelled run, so a script sees the Ctrl-C; the run itself is complete.
    if (interrupted)
        throw CommandExit{130};
}

} // namespace

static const bool registered = registerCommand("run", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<RunCommandOptions>();
    auto* run = app.add_subcommand("run", "Simulate a scenario, store the run and print its summary");
    run->add_option("scenario", options->scenario, "Scenario JSON file (see docs/scenario-format.md)")->required();
    run->add_option("--seed", options->seed, "Override the scenario's seed")->transform(wholeNumber());
    run->add_option("--max-requests", options->maxRequests, "Simulate at most this many requests (0: every one)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()));
    run->add_option("--name", options->name,
                    "Name of the stored run (default: \"<scenario> \u00b7 <decode protocol>\")")
        ->check([](const std::string& name) {
            try {
                checkRunName(name, "--name");
            } catch (const core::InputError& e) {
                return e.problems().front().message;
            }
            return std::string();
        });
    run->add_option("--set", options->overrides,
                    "Change the scenario before running: POINTER=VALUE with a JSON pointer and a JSON value or a word, "
                    "e.g. --set /coherence/decode=lazy-causal (repeatable; null removes the member)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    run->add_option("--backend", options->backend,
                    "What executes the messages: simulated (sim); real-cpu for real copies between worker threads' "
                    "memories on this machine, measured; real-cuda for real copies between partitions of this "
                    "machine's GPUs and the CUDA attention, measured (docs/real-backend.md)")
        ->capture_default_str();
    run->add_option("--arena-mib", options->arenaMib,
                    "real backends: the memory each node copies into, and the size its K/V pool starts at, in MiB "
                    "(default: 64)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 4096));
    run->add_option("--pool-mib", options->poolMib,
                    "real backends: the largest each decode node's K/V pool grows to, in MiB, from --arena-mib as its "
                    "free blocks run out (default: as large as the memory it lives in leaves room for: this machine's, "
                    "or on real-cuda a GPU's)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 1 << 20));
    run->add_option("--layers", options->layers,
                    "real backends: attention layers each decode step runs for real; its time scales to the model's "
                    "(default: 1)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()));
    run->add_option("--inject", options->inject,
                    "real backends: play a fault for the checks to catch, NAME[@N] on the Nth copy or decode step: "
                    "flip-byte, partial-write, freed-source, expired-lease, lost-completion, torn-source, wrong-blocks "
                    "(copies), "
                    "freed-block, lost-append, corrupted-row (decode reads); the run stops naming it "
                    "(docs/real-backend.md#faults)")
        ->allow_extra_args(false); // one value per --inject: the scenario may follow it
    run->add_flag("--no-seal-sums", options->noSealSums,
                  "real backends: check each decode read's stamp but do not sum its block's rows against the seal; "
                  "the sums read every block again, which changes the attention time measured (compare-real never "
                  "sums)");
    run->add_flag("--json", options->json, "Print the summary as JSON on stdout");
    run->add_flag("--no-store", options->noStore, "Do not write the run to the database");
    run->callback([&global, options] { runScenarioCommand(global, *options); });
});

} // namespace coh::cli
