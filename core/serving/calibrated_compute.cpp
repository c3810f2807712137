#include "core/serving/calibrated_compute.h"

#include "core/serving/measured_compute.h"
#include "core/serving/own_costs_text.h" // stepSizeBound

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace coh::core {

CalibratedCompute::CalibratedCompute(const CostModel& cost, const ModelSpec& model, std::uint32_t blockTokens,
                                     const real::HardwareProfile& profile)
    : m_cost(cost)
    , m_model(model)
    , m_blockTokens(blockTokens)
    , m_profile(profile)
{
}

SimTime CalibratedCompute::decode(const InstanceState& inst, const DecodeBatch& batch)
{
    const SimTime linear = m_cost.decodeLinear(static_cast<std::uint32_t>(inst.active.size()), inst.hw);
    if (inst.contextTokens == 0 || inst.nodes.empty())
        return linear;
    // The rows the real kernel reads for one layer: every cached token's K and V of the instance's KV heads, in the
    // element size it read (fp16, or fp32 for a model of 4-byte elements on real-cpu).
    const real::PagedKvShape shape = decodeAttentionShape(m_model, m_blockTokens, inst.nodes.size());
    const double element = m_profile.attentionElementBytes;
    const double bytes = shape.kvBytes(inst.contextTokens, element);
    // Where sequences run side by side (real-cuda), the step lasts at least as long as its longest sequence alone.
    std::uint32_t longest = 0;
    for (const std::uint32_t c : batch.contexts)
        longest = std::max(longest, c);
    double ns = m_profile.attentionNs(bytes, shape.kvBytes(longest, element)) * std::max(1u, m_model.layers);
    // As a real run keeps its steps: out of the core's cache, each after its node's step before.
    if (const auto copied = m_traffic.step(inst.nodes.front());
        copied && !real::readsFromCoreCache(bytes, m_profile.attentionWarmBytes)) {
        if (!m_profile.attentionAfterTraffic.empty()) {
            const double factor = m_profile.trafficFactor(*copied);
            m_trafficAddedNs += ns * (factor - 1);
            ns *= factor;
        }
        addTrafficStep(m_byTraffic, *copied, bytes, ns / std::max(1u, m_model.layers));
    }
    return addTime(linear, roundToSimTime(ns, "a decode step's attention"), "a decode step");
}

void CalibratedCompute::describe(BackendSummary& summary) const
{
    summary.calibratedProfile = m_profile.backend;
    summary.attentionByTraffic = m_byTraffic;
    // A run's own costs cost attention on the curve of its steps' sizes; a calibration on its lines.
    const std::string attention =
        !m_profile.attentionCurve.empty()
            ? fmt::format("as a real run's steps took at {} step sizes, from {:.0f} to {:.0f} KiB a layer",
                          m_profile.attentionCurve.size(), m_profile.attentionCurve.front().bytes / 1024,
                          m_profile.attentionCurve.back().bytes / 1024)
            : fmt::format("{:.0f} ns + K/V bytes / {:.2f} GB/s{}", m_profile.attentionStepNs,
                          m_profile.attentionBytesPerNs,
                          m_profile.attentionWarmBytesPerNs > 0
                              ? fmt::format(" ({:.0f} ns + K/V bytes / {:.2f} GB/s where a layer reads at most {} "
                                            "KiB, still in the core's cache)",
                                            m_profile.attentionWarmStepNs, m_profile.attentionWarmBytesPerNs,
                                            m_profile.attentionWarmBytes >> 10)
                              : std::string());
    // Every step kept by traffic took its factor.
    std::uint64_t steps = 0;
    for (const TrafficBucket& b : m_byTraffic)
        steps += b.steps;
    const std::string traffic =
        m_profile.attentionAfterTraffic.empty()
            ? std::string()
            : fmt::format(", times its run's factor after the bytes copied since the instance's step before ({:.2f} "
                          "after none to {:.2f} after {} or more; {} steps, {:+.1f} ms in all)",
                          m_profile.trafficFactor(0), m_profile.attentionAfterTraffic.back().factor,
                          stepSizeBound(m_profile.attentionAfterTraffic.back().fromBytes), steps,
                          m_trafficAddedNs / 1e6);
    summary.scaledDown = fmt::format(
        "simulated on the calibrated profile of {} ({}): each pair of nodes joined by a copy of {:.0f} ns + "
        "bytes / {:.2f} GB/s, each layer of a decode step's attention {}, as {} measured them",
        m_profile.host.empty() ? "a machine" : m_profile.host, m_profile.cpu, m_profile.copy.latencyNs,
        m_profile.copy.bytesPerNs, attention + traffic, m_profile.backend);
}

} // namespace coh::core
