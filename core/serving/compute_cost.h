#pragma once
// How long an iteration computes: the seam beside the transport (docs/real-backend.md#the-seam). The simulated
// backend takes the roofline (CostModel); a real one measures a kernel for what it can run and says what it scaled.
#include "core/net/backend_summary.h"
#include "core/net/transport.h"
#include "core/serving/cost_model.h"
#include "core/serving/instance_state.h"

#include <cstdint>
#include <span>

namespace coh::core {

// A decode step's batch as the seam sees it when wantsContexts(): per active sequence, in the batch's order, its cached
// tokens, how many of its blocks this step read at an older version than the latest (KvMemory::stepStaleBlocks), and
// its KV sequence (what its transfers name it: the request's own, until a failure recovery gave it another).
struct DecodeBatch {
    std::span<const std::uint32_t> contexts;
    std::span<const std::uint32_t> staleBlocks;
    std::span<const std::uint32_t> kvSequences;
};

class ComputeCost {
  public:
    virtual ~ComputeCost() = default;
    // A prefill batch of `tokens` prompt tokens whose prompt lengths squared sum to `sumSquaredLengths`.
    virtual SimTime prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) = 0;
    // A decode step of the instance's active batch; `batch` holds each active sequence's context when wantsContexts(),
    // else it is empty (the roofline needs only their sum, inst.contextTokens).
    virtual SimTime decode(const InstanceState& inst, const DecodeBatch& batch) = 0;
    virtual bool wantsContexts() const = 0;
    // The run's transport, whose bytes sent between an instance's decode steps a compute may keep its steps by (a
    // real backend's: MeasuredCompute). Called once, before the run; the transport outlives the compute's steps.
    virtual void watchTraffic(const Transport&) {}
    // Adds what it measured to the run's backend summary.
    virtual void describe(BackendSummary&) const {}
};

// The simulated backend's: the roofline of docs/engine.md#compute-time-roofline.
class RooflineCompute final : public ComputeCost {
  public:
    explicit RooflineCompute(const CostModel& cost)
        : m_cost(cost)
    {
    }
    SimTime prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) override
    {
        return m_cost.prefill(tokens, sumSquaredLengths, hw);
    }
    SimTime decode(const InstanceState& inst, const DecodeBatch&) override
    {
        return m_cost.decode(static_cast<std::uint32_t>(inst.active.size()), inst.contextTokens, inst.hw);
    }
    bool wantsContexts() const override { return false; }

  private:
    const CostModel& m_cost;
};

} // namespace coh::core
