// cohsim-tune-mpi STUDY: `cohsim tune` over MPI. Rank 0 reads the study, runs the search and is the only rank that
// writes the run database; every other rank runs the points rank 0 sends it. With one rank it runs the study on its
// own cores, as `cohsim tune` does. docs/tuning.md says how to launch it (mpirun, Slurm).
#include "app/cohsim-mpi/mpi_executor.h"
#include "app/cohsim/tune_text.h"
#include "core/base/input_error.h"
#include "core/serving/run_options.h"
#include "core/store/default_paths.h"
#include "core/tune/study_json.h"
#include "core/tune/study_parser.h"
#include "core/tune/study_runner.h"

#include <CLI/CLI.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <memory>

namespace {

// SIGINT (Ctrl-C) and SIGTERM (Slurm's scancel, before its SIGKILL): no new points; the ranks' running points finish
// and are stored, the study is recorded as cancelled and resumes when it is run again.
std::atomic<bool> g_cancel{false};
extern "C" void onStop(int)
{
    g_cancel.store(true);
}

struct Options {
    std::string study;
    std::string db;
    unsigned threads = 0;
    bool json = false;
    bool noStore = false;
};

int runRankZero(boost::mpi::communicator& world, const Options& options)
{
    coh::mpi::MpiExecutor mpiExecutor(world);
    // Whatever happens here, the worker ranks must be let go, or mpirun waits for them forever.
    struct StopWorkers {
        coh::mpi::MpiExecutor& executor;
        ~StopWorkers() { executor.stopWorkers(); }
    } stop{mpiExecutor};
    try {
        const coh::core::StudySpec study = coh::core::loadStudyFile(options.study);
        std::unique_ptr<coh::core::RunStore> store;
        if (!options.noStore)
            store = std::make_unique<coh::core::RunStore>(options.db.empty() ? coh::core::defaultRunDatabasePath()
                                                                             : options.db);
        coh::core::EvaluatorOptions evaluator;
        evaluator.threads = options.threads;
        evaluator.cancel = &g_cancel;
        std::signal(SIGINT, onStop);
        std::signal(SIGTERM, onStop);
        if (world.size() > 1)
            evaluator.executor = &mpiExecutor;
        const unsigned slots =
            world.size() > 1 ? mpiExecutor.concurrency() : coh::core::ThreadExecutor(options.threads).concurrency();
        if (!options.json)
            fmt::print(stderr, "Tuning {} on {}\n", study.name,
                       world.size() > 1 ? fmt::format("{} worker ranks", slots) : fmt::format("{} threads", slots));
        const coh::core::StudyResult result = coh::core::runStudy(study, store.get(), evaluator);
        if (options.json)
            fmt::print("{}\n", coh::core::studyResultJson(study, result, slots).dump(2));
        else
            coh::cli::printStudyResult(study, result, slots);
        return 0;
    } catch (const coh::core::RunCancelled&) {
        fmt::print(stderr, "cancelled; the finished points are stored: run the study again to resume it\n");
        return 130;
    } catch (const coh::core::InputError& e) {
        fmt::print(stderr, "cohsim-tune-mpi: {}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "cohsim-tune-mpi: {}\n", e.what());
        return 1;
    }
}

} // namespace

int main(int argc, char** argv)
{
    boost::mpi::environment environment(argc, argv);
    boost::mpi::communicator world;
    if (world.rank() != 0) {
        coh::mpi::serveTasks(world);
        return 0;
    }
    Options options;
    CLI::App app("cohsim-tune-mpi: run a tuning study over MPI ranks (docs/tuning.md)");
    app.add_option("study", options.study, "Study JSON file")->required();
    app.add_option("--db", options.db, "Run database (default: $XDG_DATA_HOME/coherence-studio/runs.db)");
    app.add_option("--threads", options.threads, "With one rank: worker threads (default: one per core)");
    app.add_flag("--json", options.json, "Print the result as JSON on stdout");
    app.add_flag("--no-store", options.noStore, "Store nothing (and resume nothing)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        coh::mpi::MpiExecutor(world).stopWorkers();
        return app.exit(e) == 0 ? 0 : 2;
    }
    return runRankZero(world, options);
}
