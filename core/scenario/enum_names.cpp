#include "core/scenario/enum_names.h"

#include <array>

namespace coh::core {

// The switches have no default, so a new enumerator without a name fails to compile (-Werror=switch).

const char* toString(NodeKind kind)
{
    switch (kind) {
    case NodeKind::CpuSocket:
        return "cpu_socket";
    case NodeKind::Gpu:
        return "gpu";
    case NodeKind::Accelerator:
        return "accelerator";
    case NodeKind::CxlMemory:
        return "cxl_memory";
    case NodeKind::Switch:
        return "switch";
    case NodeKind::Storage:
        return "storage";
    }
    return "?";
}

const char* toString(NodeRole role)
{
    switch (role) {
    case NodeRole::None:
        return "none";
    case NodeRole::Prefill:
        return "prefill";
    case NodeRole::Decode:
        return "decode";
    case NodeRole::Both:
        return "both";
    case NodeRole::Host:
        return "host";
    case NodeRole::Memory:
        return "memory";
    }
    return "?";
}

const char* toString(Tier tier)
{
    switch (tier) {
    case Tier::Hbm:
        return "hbm";
    case Tier::Dram:
        return "dram";
    case Tier::Cxl:
        return "cxl";
    case Tier::Storage:
        return "storage";
    }
    return "?";
}

const char* toString(LinkKind kind)
{
    switch (kind) {
    case LinkKind::OnChip:
        return "on_chip";
    case LinkKind::Upi:
        return "upi";
    case LinkKind::Pcie:
        return "pcie";
    case LinkKind::Cxl:
        return "cxl";
    case LinkKind::Nvlink:
        return "nvlink";
    case LinkKind::Infiniband:
        return "infiniband";
    case LinkKind::Ethernet:
        return "ethernet";
    }
    return "?";
}

const char* toString(ArrivalProcess process)
{
    switch (process) {
    case ArrivalProcess::Poisson:
        return "poisson";
    case ArrivalProcess::Gamma:
        return "gamma";
    case ArrivalProcess::Constant:
        return "constant";
    }
    return "?";
}

const char* toString(LengthKind kind)
{
    switch (kind) {
    case LengthKind::Fixed:
        return "fixed";
    case LengthKind::Uniform:
        return "uniform";
    case LengthKind::Lognormal:
        return "lognormal";
    case LengthKind::Zipf:
        return "zipf";
    }
    return "?";
}

const char* toString(TraceFormat format)
{
    switch (format) {
    case TraceFormat::Azure:
        return "azure";
    case TraceFormat::Mooncake:
        return "mooncake";
    }
    return "?";
}

const char* toString(WorkloadKind kind)
{
    switch (kind) {
    case WorkloadKind::Synthetic:
        return "synthetic";
    case WorkloadKind::Trace:
        return "trace";
    }
    return "?";
}

const char* toString(InstanceRole role)
{
    switch (role) {
    case InstanceRole::Prefill:
        return "prefill";
    case InstanceRole::Decode:
        return "decode";
    }
    return "?";
}

const char* toString(RouterPolicy policy)
{
    switch (policy) {
    case RouterPolicy::RoundRobin:
        return "round_robin";
    case RouterPolicy::LeastLoaded:
        return "least_loaded";
    case RouterPolicy::CacheAware:
        return "cache_aware";
    }
    return "?";
}

const char* toString(DecodeAffinity affinity)
{
    switch (affinity) {
    case DecodeAffinity::Router:
        return "router";
    case DecodeAffinity::SameNode:
        return "same_node";
    }
    return "?";
}

const char* toString(ReplicaPlacement placement)
{
    switch (placement) {
    case ReplicaPlacement::Spread:
        return "spread";
    case ReplicaPlacement::Nearest:
        return "nearest";
    case ReplicaPlacement::Fixed:
        return "fixed";
    }
    return "?";
}

const char* toString(TierEviction eviction)
{
    switch (eviction) {
    case TierEviction::Lru:
        return "lru";
    case TierEviction::Largest:
        return "largest";
    }
    return "?";
}

const char* toString(FailureRecovery recovery)
{
    switch (recovery) {
    case FailureRecovery::Replica:
        return "replica";
    case FailureRecovery::Recompute:
        return "recompute";
    case FailureRecovery::Fail:
        return "fail";
    }
    return "?";
}

const char* toString(LeaseExpiry expiry)
{
    switch (expiry) {
    case LeaseExpiry::Refetch:
        return "refetch";
    case LeaseExpiry::Trust:
        return "trust";
    }
    return "?";
}

const char* toString(TierWrite write)
{
    switch (write) {
    case TierWrite::WriteBack:
        return "write_back";
    case TierWrite::WriteThrough:
        return "write_through";
    }
    return "?";
}

const char* toString(HomePolicy policy)
{
    switch (policy) {
    case HomePolicy::AllocatingNode:
        return "allocating_node";
    case HomePolicy::Hashed:
        return "hashed";
    case HomePolicy::Node:
        return "node";
    }
    return "?";
}

namespace {

// Every enumerator of each enum, so names can be searched. The static_asserts catch a value appended to
// an enum but not here (the enums are contiguous from 0).
template <class E> struct AllValues;

#define COH_ENUM_VALUES(E, LAST, ...)                                                                                  \
    template <> struct AllValues<E> {                                                                                  \
        static constexpr std::array values{__VA_ARGS__};                                                               \
        static_assert(values.size() == static_cast<std::size_t>(LAST) + 1, "AllValues<" #E "> misses a value");        \
    };

COH_ENUM_VALUES(ReplicaPlacement, ReplicaPlacement::Fixed, ReplicaPlacement::Spread, ReplicaPlacement::Nearest,
                ReplicaPlacement::Fixed)
COH_ENUM_VALUES(NodeKind, NodeKind::Storage, NodeKind::CpuSocket, NodeKind::Gpu, NodeKind::Accelerator,
                NodeKind::CxlMemory, NodeKind::Switch, NodeKind::Storage)
COH_ENUM_VALUES(NodeRole, NodeRole::Memory, NodeRole::None, NodeRole::Prefill, NodeRole::Decode, NodeRole::Both,
                NodeRole::Host, NodeRole::Memory)
COH_ENUM_VALUES(Tier, Tier::Storage, Tier::Hbm, Tier::Dram, Tier::Cxl, Tier::Storage)
COH_ENUM_VALUES(LinkKind, LinkKind::Ethernet, LinkKind::OnChip, LinkKind::Upi, LinkKind::Pcie, LinkKind::Cxl,
                LinkKind::Nvlink, LinkKind::Infiniband, LinkKind::Ethernet)
COH_ENUM_VALUES(ArrivalProcess, ArrivalProcess::Constant, ArrivalProcess::Poisson, ArrivalProcess::Gamma,
                ArrivalProcess::Constant)
COH_ENUM_VALUES(LengthKind, LengthKind::Zipf, LengthKind::Fixed, LengthKind::Uniform, LengthKind::Lognormal,
                LengthKind::Zipf)
COH_ENUM_VALUES(TraceFormat, TraceFormat::Mooncake, TraceFormat::Azure, TraceFormat::Mooncake)
COH_ENUM_VALUES(WorkloadKind, WorkloadKind::Trace, WorkloadKind::Synthetic, WorkloadKind::Trace)
COH_ENUM_VALUES(InstanceRole, InstanceRole::Decode, InstanceRole::Prefill, InstanceRole::Decode)
COH_ENUM_VALUES(RouterPolicy, RouterPolicy::CacheAware, RouterPolicy::RoundRobin, RouterPolicy::LeastLoaded,
                RouterPolicy::CacheAware)
COH_ENUM_VALUES(TierEviction, TierEviction::Largest, TierEviction::Lru, TierEviction::Largest)
COH_ENUM_VALUES(TierWrite, TierWrite::WriteThrough, TierWrite::WriteBack, TierWrite::WriteThrough)
COH_ENUM_VALUES(FailureRecovery, FailureRecovery::Fail, FailureRecovery::Replica, FailureRecovery::Recompute,
                FailureRecovery::Fail)
COH_ENUM_VALUES(LeaseExpiry, LeaseExpiry::Trust, LeaseExpiry::Refetch, LeaseExpiry::Trust)
COH_ENUM_VALUES(DecodeAffinity, DecodeAffinity::SameNode, DecodeAffinity::Router, DecodeAffinity::SameNode)

#undef COH_ENUM_VALUES

} // namespace

template <class E> std::optional<E> enumFromString(std::string_view name)
{
    for (E value : AllValues<E>::values)
        if (name == toString(value))
            return value;
    return std::nullopt;
}

template <class E> std::vector<std::string> enumNames()
{
    std::vector<std::string> names;
    for (E value : AllValues<E>::values)
        names.emplace_back(toString(value));
    return names;
}

#define COH_INSTANTIATE(E)                                                                                             \
    template std::optional<E> enumFromString<E>(std::string_view);                                                     \
    template std::vector<std::string> enumNames<E>();

COH_INSTANTIATE(ReplicaPlacement)
COH_INSTANTIATE(NodeKind)
COH_INSTANTIATE(NodeRole)
COH_INSTANTIATE(Tier)
COH_INSTANTIATE(LinkKind)
COH_INSTANTIATE(ArrivalProcess)
COH_INSTANTIATE(LengthKind)
COH_INSTANTIATE(TraceFormat)
COH_INSTANTIATE(WorkloadKind)
COH_INSTANTIATE(InstanceRole)
COH_INSTANTIATE(RouterPolicy)
COH_INSTANTIATE(DecodeAffinity)
COH_INSTANTIATE(TierEviction)
COH_INSTANTIATE(TierWrite)
COH_INSTANTIATE(FailureRecovery)
COH_INSTANTIATE(LeaseExpiry)

#undef COH_INSTANTIATE

} // namespace coh::core
