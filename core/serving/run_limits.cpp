// Input the engine could accept only by doing something silly (rejecting every request, a step of years, a
// clock overflow hours into the run) is refused before the run starts, with the field to change.
#include "core/base/input_error.h"
#include "core/scenario/input_limits.h"
#include "core/serving/serving_engine.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

namespace {

std::string seconds(double ns)
{
    return fmt::format("{:.3g} s", ns * 1e-9);
}

// Where a workload's lengths are written, for the error's field.
std::string lengthField(const WorkloadSpec& workload, const char* which)
{
    if (workload.kind == WorkloadKind::Trace)
        return "/workload/path";
    return fmt::format("/workload/{}", which);
}

} // namespace

void ServingEngine::refuseImpossibleInput() const
{
    const auto& requests = m_workload.requests;
    if (requests.empty())
        return;
    const std::string& file = m_scenario.sourcePath;
    std::uint32_t longestPrompt = 0;
    std::uint64_t longestSequence = 0;
    std::size_t longest = 0;
    for (std::size_t r = 0; r < requests.size(); ++r) {
        longestPrompt = std::max(longestPrompt, requests[r].promptTokens);
        const std::uint64_t tokens = std::uint64_t{requests[r].promptTokens} + std::max(1u, requests[r].outputTokens);
        if (tokens > longestSequence) {
            longestSequence = tokens;
            longest = r;
        }
    }

    // KV: a sequence reserves its whole KV at admission; one larger than every decode instance would be dropped.
    std::uint64_t largestKvBlocks = 0;
    for (const auto& inst : m_instances)
        if (inst.role != InstanceRole::Prefill)
            largestKvBlocks = std::max(largestKvBlocks, inst.kvBlocksTotal);
    const std::uint64_t blockTokens = m_scenario.serving.blockTokens;
    const std::uint64_t blocksNeeded = (longestSequence + blockTokens - 1) / blockTokens;
    if (blocksNeeded > largestKvBlocks) {
        const double gib = double(blockTokens) * double(m_scenario.model.kvBytesPerToken()) / double(1 << 30);
        const auto tooLong = std::count_if(requests.begin(), requests.end(), [&](const Request& q) {
            const std::uint64_t tokens = std::uint64_t{q.promptTokens} + std::max(1u, q.outputTokens);
            return (tokens + blockTokens - 1) / blockTokens > largestKvBlocks;
        });
        throw InputError(
            file, lengthField(m_scenario.workload, "output"),
            fmt::format("{} of {} requests can never be served: request {} needs {} tokens of KV ({:.3g} GiB with {}"
                        "), and the largest decode instance holds {:.3g} GiB of KV after the weights",
                        tooLong, requests.size(), longest, longestSequence, double(blocksNeeded) * gib,
                        m_scenario.model.name, double(largestKvBlocks) * gib),
            "shorten the prompts or outputs, give decode instances more HBM (or serving.kv_memory_fraction), "
            "or pick a smaller model");
    }

    // Every serving iteration pays this on top of its compute: alone beyond a day it is a unit typo too.
    if (const double overhead = double(m_scenario.serving.iterationOverhead); overhead > double(kMaxStepTime))
        throw InputError(file, "/serving/iteration_overhead",
                         fmt::format("each serving iteration would pay {} of overhead (the limit of a step is one day)",
                                     seconds(overhead)),
                         "check the unit, e.g. \"iteration_overhead\": \"20 us\"");

    // Compute: the longest prompt prefilled alone, and one decode step at the longest context. A recompute after a
    // node failure prefills what the sequence had generated too: up to its whole length.
    if (m_scenario.failures.enabled() && m_scenario.failures.recovery != FailureRecovery::Fail)
        longestPrompt = static_cast<std::uint32_t>(std::min<std::uint64_t>(longestSequence, UINT32_MAX));
    for (const auto& inst : m_instances) {
        const bool prefill = inst.role != InstanceRole::Decode;
        const double lengths = double(longestPrompt);
        const double flops =
            prefill ? m_cost.prefillFlops(longestPrompt, lengths * lengths) : m_cost.decodeFlops(1, longestSequence);
        const double bytes = prefill ? m_cost.prefillBytes(longestPrompt) : m_cost.decodeBytes(1, longestSequence);
        const double computeNs = flops / inst.hw.flopsPerNs;
        const double memoryNs = bytes / inst.hw.bytesPerNs;
        const double ns = std::max(computeNs, memoryNs);
        if (ns <= double(kMaxStepTime))
            continue;
        const std::uint32_t node = inst.nodes.front();
        throw InputError(
            file,
            fmt::format("/topology/nodes/{}/compute/{}", node,
                        computeNs >= memoryNs ? "peak_flops" : "memory_bandwidth"),
            fmt::format("one {} step of instance '{}' would take {} (the limit is one day): its {} is far too small",
                        prefill ? "prefill" : "decode", inst.id, seconds(ns),
                        computeNs >= memoryNs ? "FLOP/s" : "memory bandwidth"),
            computeNs >= memoryNs ? "check the unit, e.g. \"peak_flops\": \"989 TFLOP/s\""
                                  : "check the unit, e.g. \"memory_bandwidth\": \"3.35 TB/s\"");
    }

    // Links: one KV block over one link.
    const double blockBytes = double(blockTokens) * double(m_scenario.model.kvBytesPerToken());
    const auto& links = m_scenario.topology.links;
    for (std::size_t l = 0; l < links.size(); ++l) {
        const double ns = blockBytes / links[l].bandwidthBytesPerSec * 1e9;
        if (ns <= double(kMaxStepTime))
            continue;
        throw InputError(file, fmt::format("/topology/links/{}/bandwidth", l),
                         fmt::format("one KV block ({:.0f} bytes) would take {} over link '{}' (the limit is one "
                                     "day): its bandwidth is far too small",
                                     blockBytes, seconds(ns), links[l].id),
                         "check the unit, e.g. \"bandwidth\": \"25 GB/s\" (B/s is bytes per second)");
    }
}

} // namespace coh::core
