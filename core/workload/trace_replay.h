#pragma once
// What the trace readers share: reading a trace file whole, and turning parsed rows into a Workload
// (order, cut to max_requests, scale inter-arrival times, shift to t = 0).
#include "core/workload/request.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// One request as it appears in a trace, with its time in the trace's own clock (ns).
struct TraceRow {
    std::int64_t timeNs = 0;
    std::uint32_t promptTokens = 0;
    std::uint32_t outputTokens = 0;
    std::uint32_t prefixOffset = 0; // into the reader's hash vector
    std::uint32_t prefixCount = 0;
};

// Reads the whole file; throws InputError when it is missing, unreadable or empty.
std::string readTraceFile(const std::string& path, const char* formatName);

// Throws InputError when rows is empty or timeScale is not positive. Rows out of time order are sorted
// stably (rows with equal times keep file order); the first maxRequests (0 = all) of that order are kept.
Workload finishTrace(std::vector<TraceRow> rows, const std::vector<std::uint32_t>& hashes, const std::string& path,
                     double timeScale, std::uint32_t maxRequests);

// Multiplies every arrival (an offset from the first request's) by timeScale, as finishTrace does: a replay at
// another pace is the same trace, read once, scaled. Throws InputError naming `path` when timeScale is not positive
// or the scaled span leaves the 64-bit nanosecond clock.
void scaleArrivals(Workload& workload, double timeScale, const std::string& path);
void checkTimeScale(double timeScale, const std::string& path);

} // namespace coh::core
