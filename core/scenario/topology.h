#pragma once
// The user's hardware: nodes (devices) and links, as plain validated values.
#include "core/sim/time.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

enum class NodeKind { CpuSocket, Gpu, Accelerator, CxlMemory, Switch, Storage };
enum class NodeRole { None, Prefill, Decode, Both, Host, Memory };
enum class Tier { Hbm, Dram, Cxl, Storage };
enum class LinkKind { OnChip, Upi, Pcie, Cxl, Nvlink, Infiniband, Ethernet };

struct MemoryTier {
    Tier tier = Tier::Hbm;
    double capacityBytes = 0;
    double bandwidthBytesPerSec = 0;
};

struct Compute {
    double peakFlops = 0;                  // dense FP16/BF16 FLOP/s
    double memoryBandwidthBytesPerSec = 0; // what the roofline's memory side uses
};

struct Node {
    std::string id;
    NodeKind kind = NodeKind::Gpu;
    NodeRole role = NodeRole::None;
    std::vector<MemoryTier> memory;
    Compute compute;
    double x = 0, y = 0; // canvas position for the GUI
    std::string source;  // datasheet the figures come from

    bool canCompute() const { return compute.peakFlops > 0; }
    const MemoryTier* tier(Tier t) const
    {
        for (const auto& m : memory)
            if (m.tier == t)
                return &m;
        return nullptr;
    }
};

// A full-duplex link: each direction has the stated bandwidth on its own.
struct Link {
    std::string id;
    std::string a, b;
    LinkKind kind = LinkKind::Pcie;
    SimTime latency = 0;
    double bandwidthBytesPerSec = 0;
    std::string source;
};

struct Topology {
    std::vector<Node> nodes;
    std::vector<Link> links;

    std::optional<std::uint32_t> nodeIndex(const std::string& id) const
    {
        for (std::uint32_t i = 0; i < nodes.size(); ++i)
            if (nodes[i].id == id)
                return i;
        return std::nullopt;
    }
    std::optional<std::uint32_t> linkIndex(const std::string& id) const
    {
        for (std::uint32_t i = 0; i < links.size(); ++i)
            if (links[i].id == id)
                return i;
        return std::nullopt;
    }
};

const char* toString(NodeKind);
const char* toString(NodeRole);
const char* toString(Tier);
const char* toString(LinkKind);

} // namespace coh::core
