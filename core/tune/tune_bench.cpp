#include "core/tune/tune_bench.h"

#include "core/store/run_store.h"
#include "core/tune/point_executor.h"
#include "core/tune/study_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unistd.h>

namespace coh::core {

double TuneBenchRow::medianSeconds() const
{
    if (wallSeconds.empty())
        return 0;
    std::vector<double> sorted = wallSeconds;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double TuneBenchRow::runsPerSecond() const
{
    const double median = medianSeconds();
    return median > 0 ? static_cast<double>(runs) / median : 0;
}

std::vector<TuneBenchRow> runTuneBench(const StudySpec& study, const TuneBenchOptions& options)
{
    std::vector<TuneBenchRow> rows;
    for (const unsigned t : options.threads) {
        TuneBenchRow row;
        row.threads = ThreadExecutor(t).concurrency();
        rows.push_back(row);
    }
    for (int round = 0; round < std::max(1, options.rounds); ++round) {
        for (auto& row : rows) {
            EvaluatorOptions evaluator;
            evaluator.threads = row.threads;
            const std::string path = (std::filesystem::path(options.folder) /
                                      fmt::format("coh-bench-tune-{}-{}-{}.db", ::getpid(), round, row.threads))
                                         .string();
            // A file left by an earlier bench would answer every point from its cache.
            for (const char* suffix : {"", "-wal", "-shm"})
                std::filesystem::remove(path + suffix);
            const auto started = std::chrono::steady_clock::now();
            StudyResult result;
            if (options.store) {
                RunStore store(path);
                result = runStudy(study, &store, evaluator);
            } else {
                result = runStudy(study, nullptr, evaluator);
            }
            row.wallSeconds.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
            row.runs = result.ran;
            for (const char* suffix : {"", "-wal", "-shm"})
                std::filesystem::remove(path + suffix);
        }
    }
    return rows;
}

} // namespace coh::core
