#pragma once
// A real run's decode steps told apart by what other traffic did to them: the curve a step takes after none and a
// factor for each amount copied since its node's step before, fitted together from the run's steps kept by amount and
// size (BackendSummary::attentionByTraffic), for a profile of the run's own costs
// (docs/real-backend.md#a-step-costed-by-the-traffic-before-it).
#include "core/net/backend_summary.h"
#include "core/real/hardware_profile.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace coh::core::real {

// An amount of traffic gives a factor over at least this many steps.
inline constexpr std::uint64_t kMinTrafficSteps = 5;

// The run's steps out of the core's cache fitted as a time per byte for each size times a factor for each amount of
// at least kMinTrafficSteps steps: in turn, each size's rate the ratio of its steps' time to what the factors predict,
// and each amount's factor the ratio of its steps' time to what the rates predict, until neither moves (iterative
// proportional fitting: over each size and each amount the fit's time is the measured time). The amount of none
// (else the one of most steps) is the reference, a factor of 1. Only the sizes and amounts joined to the reference
// through steps they share are fitted (a part joined to none has no level of its own to tell traffic from size); an
// amount whose factor is not one a profile holds (trafficPointProblem) is left out and the rest fitted again. Fitted
// together, the busy part's larger steps do not count twice, where a factor against each size's mean would count
// them. Empty where fewer than two amounts are left.
struct StepsByTraffic {
    std::vector<TrafficFactorPoint> factors;                       // in order of the amount
    std::vector<std::pair<std::uint64_t, double>> nsPerByteBySize; // (size bucket, ns per byte after no traffic)
    bool empty() const { return factors.empty(); }
};
StepsByTraffic fitStepsByTraffic(const BackendSummary& run);

// A run kept without sizes (stored before they were): each amount's steps of kMinTrafficSteps or more, their mean time
// over what the curve of `costed` costs a step of their mean bytes, where a profile may hold that factor; none where
// fewer than two amounts are left.
std::vector<TrafficFactorPoint> ownTrafficFactors(const BackendSummary& run, const HardwareProfile& costed);

// The run's steps by size as curve points (HardwareProfile::attentionCurve), in order of bytes: each size's mean
// bytes and mean time, on its side of a cache of `warmBytes`, those that can stand on a curve (plausibleCurve). With
// `quiet`, a size out of the cache (the run's and `warmBytes`'s) takes its time after no traffic, and one it did not
// fit is left out (the points either side stand for it).
std::vector<AttentionCurvePoint> ownAttentionCurve(const BackendSummary& run, std::size_t warmBytes,
                                                   const StepsByTraffic* quiet = nullptr);

// What a profile of the run's own costs takes of its steps: the curve, and the factors it is to be taken with.
struct OwnAttention {
    std::vector<AttentionCurvePoint> curve;
    std::vector<TrafficFactorPoint> factors;
    bool quiet = false; // the curve is each size's time after no traffic (fitStepsByTraffic), not its mean
};
// A run kept by amount and size: the fitted curve and factors, where the curve keeps a point out of the cache; else
// the curve of means and no factors. A run kept without sizes: the curve of means and ownTrafficFactors over it. No
// factors without a curve: the run's line is a mean over quiet and busy steps alike.
OwnAttention ownAttention(const BackendSummary& run, std::size_t warmBytes);

} // namespace coh::core::real
