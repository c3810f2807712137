#include "core/serving/own_costs_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace coh::core {

namespace {
// A fixed cost in the unit that keeps it to a few digits: "295 ns", "12.3 µs", "347 µs", "1.2 ms" (not "3.47e+05 ns").
std::string fixedCost(double ns)
{
    if (ns < 1e3)
        return fmt::format("{:.3g} ns", ns);
    if (ns < 1e6)
        return fmt::format("{:.3g} µs", ns * 1e-3);
    return fmt::format("{:.3g} ms", ns * 1e-6);
}

// "62 ns + bytes / 8.3 GB/s": a fit as the profile states its figures.
std::string cost(const CostFit& fit, const char* bytes)
{
    return fmt::format("{} + {} / {:.3g} GB/s", fixedCost(fit.fixedNs), bytes, fit.bytesPerNs);
}
} // namespace

std::string describeOwnCosts(const BackendSummary& b)
{
    std::vector<std::string> parts;
    if (b.copyFit.measured())
        parts.push_back(fmt::format("a copy{} {} (fitted over {} copies)",
                                    b.hostCopyFit.measured() ? " within or between GPUs" : "", cost(b.copyFit, "bytes"),
                                    b.copyFit.points));
    if (b.hostCopyFit.measured())
        parts.push_back(fmt::format("a copy to or from host memory {} (over {} copies)", cost(b.hostCopyFit, "bytes"),
                                    b.hostCopyFit.points));
    if (b.attentionFit.measured())
        parts.push_back(fmt::format("a layer of a decode step's attention {} (over {} steps{})",
                                    cost(b.attentionFit, "K/V bytes"), b.attentionFit.points,
                                    b.attentionWarmFit.measured() ? " out of memory" : ""));
    if (b.attentionWarmFit.measured())
        parts.push_back(fmt::format("{}{} where a layer read at most {} KiB, still in the core's cache (over {} steps)",
                                    b.attentionFit.measured() ? "" : "a layer of a decode step's attention ",
                                    cost(b.attentionWarmFit, "K/V bytes"), b.attentionWarmBytes >> 10,
                                    b.attentionWarmFit.points));
    return fmt::format("{}", fmt::join(parts, "; "));
}

std::string stepSizeBound(std::uint64_t bytes)
{
    return bytes >= (std::uint64_t{1} << 20) ? fmt::format("{} MiB", bytes >> 20)
           : bytes >= 1024                   ? fmt::format("{} KiB", bytes >> 10)
                                             : fmt::format("{} B", bytes);
}

std::string describeAttentionBySize(const BackendSummary& b)
{
    std::vector<std::string> parts;
    for (const StepSizeBucket& bucket : b.attentionBySize)
        parts.push_back(fmt::format("{} to {}{} at {:.3g} GB/s ({}{})", stepSizeBound(bucket.fromBytes),
                                    stepSizeBound(2 * bucket.fromBytes), bucket.inCache ? " in cache" : "",
                                    bucket.gbps(), bucket.steps,
                                    parts.empty() ? bucket.steps == 1 ? " step" : " steps" : ""));
    if (parts.empty())
        return {};
    return fmt::format("a layer reading {}", fmt::join(parts, ", "));
}

std::string describeAttentionByTraffic(const BackendSummary& b)
{
    std::vector<std::string> parts;
    for (const TrafficBucket& bucket : trafficTotals(b.attentionByTraffic))
        parts.push_back(fmt::format("{} at {:.3g} GB/s ({}{})",
                                    bucket.fromBytes == 0 ? std::string("none")
                                                          : fmt::format("{} to {}", stepSizeBound(bucket.fromBytes),
                                                                        stepSizeBound(2 * bucket.fromBytes)),
                                    bucket.gbps(), bucket.steps,
                                    parts.empty() ? bucket.steps == 1 ? " step" : " steps" : ""));
    if (parts.empty())
        return {};
    return fmt::format("a layer out of the core's cache, by the bytes copied since its node's step before: {}",
                       fmt::join(parts, ", "));
}

} // namespace coh::core
