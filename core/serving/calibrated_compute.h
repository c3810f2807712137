#pragma once
// The simulated backend's compute on a machine's calibrated profile (docs/real-backend.md#sim-against-real): a decode
// step costs what the profiled real backend's MeasuredCompute would measure, predicted from the profile instead of
// run. The linear layers and prefill keep the roofline's time, as on a real backend; each of the model's layers of
// attention costs the profile's fixed step time plus the K and V bytes that backend's kernel reads (the profile's
// element, fp16 or fp32; the instance's share of the heads) over its fitted bandwidth; a step whose layer reads no
// more than the core's cache holds costs the profile's warm line instead (HardwareProfile::readsWarm). A profile of a
// real run's own costs takes each step out of that cache times its factor after the bytes the transport sent since the
// instance's step before (HardwareProfile::trafficFactor), as the run's steps were kept.
#include "core/net/traffic_since_step.h"
#include "core/real/calibration.h"
#include "core/serving/compute_cost.h"

#include <string>
#include <vector>

namespace coh::core {

class CalibratedCompute final : public ComputeCost {
  public:
    CalibratedCompute(const CostModel& cost, const ModelSpec& model, std::uint32_t blockTokens,
                      const real::HardwareProfile& profile);

    SimTime prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) override
    {
        return m_cost.prefill(tokens, sumSquaredLengths, hw);
    }
    SimTime decode(const InstanceState& inst, const DecodeBatch& batch) override;
    // The contexts, where a lone sequence bounds a step (a profile with a sequence bandwidth).
    bool wantsContexts() const override { return m_profile.attentionSequenceBytesPerNs > 0; }
    void watchTraffic(const Transport& transport) override { m_traffic.watch(transport); }
    void describe(BackendSummary& summary) const override;

  private:
    const CostModel& m_cost;
    const ModelSpec& m_model;
    std::uint32_t m_blockTokens;
    real::HardwareProfile m_profile;
    TrafficSinceStep m_traffic; // per node, an instance's first
    // What the factors added to the steps' attention (describe()).
    double m_trafficAddedNs = 0;
    // Its steps out of the core's cache by the traffic before them, as a real run keeps its own
    // (BackendSummary::attentionByTraffic): set side by side with the real run's.
    std::vector<TrafficBucket> m_byTraffic;
};

} // namespace coh::core
