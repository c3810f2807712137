// cohsim tune STUDY: run a tuning study (docs/tuning.md) on every core, store its points as runs, print its
// Pareto front, best point and what each parameter does.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/tune_text.h"
#include "core/serving/run_options.h"
#include "core/tune/point_executor.h"
#include "core/tune/study_json.h"
#include "core/tune/study_parser.h"
#include "core/tune/study_runner.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <thread>
#include <unistd.h>

namespace coh::cli {
namespace {

struct TuneOptions {
    std::string study;
    unsigned threads = 0;
    bool json = false;
    bool noStore = false;
};

std::atomic<bool> g_cancel{false};
extern "C" void onTuneInterrupt(int)
{
    g_cancel.store(true);
}

void tuneCommand(const GlobalOptions& global, const TuneOptions& options)
{
    const core::StudySpec study = core::loadStudyFile(options.study);
    std::unique_ptr<core::RunStore> store;
    if (!options.noStore)
        store = openRunStore(global);
    core::EvaluatorOptions evaluatorOptions;
    evaluatorOptions.threads = options.threads;
    evaluatorOptions.cancel = &g_cancel;
    const bool showProgress = !global.quiet && !options.json && isatty(STDERR_FILENO);
    bool printed = false;
    // Test hook (tests/core/test_cli_tune.cpp): COH_TEST_TUNE_POINT_DELAY_MS slows the writer after each point,
    // so a test can kill the process half-way through a study.
    const char* delay = std::getenv("COH_TEST_TUNE_POINT_DELAY_MS");
    const int delayMs = delay ? std::atoi(delay) : 0;
    evaluatorOptions.progress = [&](const core::StudyProgress& p) {
        if (showProgress) {
            fmt::print(stderr, "\r  {}/{} points (ran {}, stored before {}) · {} · {:.0f} s{}        ", p.done, p.total,
                       p.ran, p.cached, p.stage, p.elapsedSeconds,
                       p.etaSeconds >= 0 ? fmt::format(", about {:.0f} s left", p.etaSeconds) : std::string());
            printed = true;
        }
        if (delayMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    };
    const unsigned threads = core::ThreadExecutor(options.threads).concurrency();
    if (!global.quiet && !options.json)
        fmt::print(stderr, "Tuning {} on {} threads{}\n", study.name, threads,
                   store ? fmt::format(", storing in {}", store->path()) : std::string());
    g_cancel = false;
    auto previous = std::signal(SIGINT, onTuneInterrupt);
    struct Restore {
        decltype(previous) handler;
        ~Restore() { std::signal(SIGINT, handler); }
    } restore{previous};
    core::StudyResult result;
    try {
        result = core::runStudy(study, store.get(), evaluatorOptions);
    } catch (const core::RunCancelled&) {
        if (printed)
            fmt::print(stderr, "\n");
        fmt::print(stderr, "cancelled; the finished points are stored: run the study again to resume it\n");
        throw CommandExit{130};
    }
    if (printed)
        fmt::print(stderr, "\n");
    if (options.json)
        fmt::print("{}\n", core::studyResultJson(study, result, threads).dump(2));
    else
        printStudyResult(study, result, threads);
}

} // namespace

static const bool registered = registerCommand("tune", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<TuneOptions>();
    auto* tune = app.add_subcommand("tune", "Run a tuning study: vary scenario fields, search, print the Pareto front "
                                            "(docs/tuning.md)");
    tune->add_option("study", options->study, "Study JSON file (see docs/tuning.md)")->required();
    tune->add_option("--threads", options->threads, "Worker threads (default: one per core)")
        ->check(CLI::Range(1, 1024));
    tune->add_flag("--json", options->json, "Print the result as JSON on stdout");
    tune->add_flag("--no-store", options->noStore, "Store nothing (and resume nothing)");
    tune->callback([&global, options] { tuneCommand(global, *options); });
});

} // namespace coh::cli
