#pragma once
// Scenario enums as spelled in scenario JSON. toString() for each enum is declared next to it (topology.h,
// workload_spec.h, scenario.h); this header adds the way back and the list of accepted names.
#include "core/scenario/scenario.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core {

const char* toString(WorkloadKind);

// Exact, case-sensitive match against toString(); nullopt for an unknown name.
// Instantiated for NodeKind, NodeRole, Tier, LinkKind, ArrivalProcess, LengthKind, TraceFormat,
// WorkloadKind, InstanceRole, RouterPolicy, DecodeAffinity, ReplicaPlacement, TierEviction, TierWrite,
// FailureRecovery and LeaseExpiry.
template <class E> std::optional<E> enumFromString(std::string_view name);

// Every accepted name, in declaration order (for "use one of: ..." messages).
template <class E> std::vector<std::string> enumNames();

} // namespace coh::core
