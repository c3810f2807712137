#include "core/workload/trace_replay.h"

#include "core/base/input_error.h"
#include "core/scenario/input_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace coh::core {

std::string readTraceFile(const std::string& path, const char* formatName)
{
    // One fread of the whole file: the parsers then walk a string_view without per-field stream overhead.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxTraceFileBytes)
        throw InputError(path, "/workload/path",
                         fmt::format("the {} trace file is {:.1f} GiB; a trace is read whole and may be at most {} GiB",
                                     formatName, double(size) / double(1 << 30), kMaxTraceFileBytes >> 30),
                         "cut the trace into parts, or keep its first rows (head -n) in a file of its own");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file)
        throw InputError(path, "/workload/path", fmt::format("cannot open the {} trace file", formatName),
                         "check the path; relative paths are tried against the scenario's folder, then datasets/");
    std::string text;
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
        text.append(buffer, n);
        if (text.size() > kMaxTraceFileBytes) // a pipe or device has no size to check beforehand
            throw InputError(
                path, "/workload/path",
                fmt::format("the {} trace is larger than {} GiB, the most a trace may be (it is read whole)",
                            formatName, kMaxTraceFileBytes >> 30),
                "cut the trace into parts, or keep its first rows (head -n) in a file of its own");
    }
    if (std::ferror(file.get()))
        throw InputError(path, "/workload/path", fmt::format("reading the {} trace file failed", formatName),
                         "check that the path names a readable file, not a folder");
    if (text.empty())
        throw InputError(path, "", fmt::format("the {} trace file is empty", formatName),
                         "point the workload at a trace with at least one request");
    return text;
}

Workload finishTrace(std::vector<TraceRow> rows, const std::vector<std::uint32_t>& hashes, const std::string& path,
                     double timeScale, std::uint32_t maxRequests)
{
    checkTimeScale(timeScale, path);
    if (rows.empty())
        throw InputError(path, "", "the trace holds no requests",
                         "point the workload at a trace with at least one request row");

    const auto earlier = [](const TraceRow& a, const TraceRow& b) { return a.timeNs < b.timeNs; };
    if (!std::is_sorted(rows.begin(), rows.end(), earlier))
        std::stable_sort(rows.begin(), rows.end(), earlier);
    if (maxRequests > 0 && rows.size() > maxRequests)
        rows.resize(maxRequests);

    Workload workload;
    workload.requests.reserve(rows.size());
    const std::int64_t start = rows.front().timeNs;
    std::int64_t span = 0;
    if (__builtin_sub_overflow(rows.back().timeNs, start, &span))
        throw InputError(path, "timestamp",
                         fmt::format("the trace spans {:.3g} s from its first to its last request, beyond the 64-bit "
                                     "nanosecond clock (about 292 years)",
                                     (double(rows.back().timeNs) - double(start)) * 1e-9),
                         "check the rows' timestamps for a wrong date or unit");
    for (const TraceRow& row : rows) {
        Request r;
        r.arrival = row.timeNs - start; // within span: checked above; scaled below
        r.promptTokens = row.promptTokens;
        r.outputTokens = row.outputTokens;
        // Copy only the kept rows' hashes, in request order, so prefixHashes holds nothing unused.
        r.prefixOffset = static_cast<std::uint32_t>(workload.prefixHashes.size());
        r.prefixCount = row.prefixCount;
        workload.prefixHashes.insert(workload.prefixHashes.end(), hashes.begin() + row.prefixOffset,
                                     hashes.begin() + row.prefixOffset + row.prefixCount);
        workload.requests.push_back(r);
    }
    scaleArrivals(workload, timeScale, path);
    return workload;
}

void checkTimeScale(double timeScale, const std::string& path)
{
    if (!std::isfinite(timeScale) || timeScale <= 0)
        throw InputError(path, "/workload/time_scale", fmt::format("a time_scale of {} is not positive", timeScale),
                         "give a time_scale above 0 (1 replays at the recorded pace, 0.5 twice as fast)");
}

void scaleArrivals(Workload& workload, double timeScale, const std::string& path)
{
    checkTimeScale(timeScale, path);
    if (workload.requests.empty())
        return;
    const double span = double(workload.requests.back().arrival);
    if (span * timeScale >= kClockLimitNs)
        throw InputError(
            path, timeScale == 1.0 ? "timestamp" : "/workload/time_scale",
            fmt::format("the trace spans {:.3g} s from its first to its last request{}, beyond the 64-bit nanosecond "
                        "clock (about 292 years)",
                        span * 1e-9 * timeScale,
                        timeScale == 1.0 ? "" : fmt::format(" at the scenario's time_scale of {}", timeScale)),
            timeScale == 1.0 ? "check the rows' timestamps for a wrong date or unit"
                             : "give a time_scale nearer 1, or check the rows' timestamps");
    if (timeScale == 1.0)
        return;
    // Scaling the offset from the first request scales every inter-arrival time by the same factor.
    for (Request& r : workload.requests)
        r.arrival = std::llround(double(r.arrival) * timeScale);
}

} // namespace coh::core
