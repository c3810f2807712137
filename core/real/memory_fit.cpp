#include "core/real/memory_fit.h"

#include "core/base/input_error.h"
#include "core/real/node_resources.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

namespace coh::core::real {

MemoryNeed realMemoryNeed(const Scenario& scenario)
{
    MemoryNeed need;
    for (const Node& n : scenario.topology.nodes)
        if (n.kind != NodeKind::Switch)
            ++need.arenas;
    std::set<std::string> decoders; // an instance's first node attends; two instances may share it
    for (const InstanceSpec& inst : scenario.serving.instances)
        if (inst.role != InstanceRole::Prefill && !inst.nodes.empty())
            decoders.insert(inst.nodes.front());
    need.pools = decoders.size();
    return need;
}

std::optional<std::uint64_t> availableHostMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key;
        std::uint64_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:")
            return kib * 1024;
    }
    return std::nullopt;
}

void checkMemoryFits(const Scenario& scenario, std::size_t arenaBytes, std::uint64_t available,
                     const std::string& memory)
{
    const MemoryNeed need = realMemoryNeed(scenario);
    const std::size_t memories = need.arenas + need.pools;
    const double allowed = kArenaShareOfMemory * static_cast<double>(available);
    if (memories == 0 || static_cast<double>(need.bytes(arenaBytes)) <= allowed)
        return;
    const auto largestMib = static_cast<std::uint64_t>(allowed / static_cast<double>(memories)) >> 20;
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    throw InputError(
        "", "--arena-mib",
        fmt::format("{} node memories and {} K/V pools of {} each need {:.1f} GiB, and {} has {:.1f} GiB available",
                    need.arenas, need.pools, memorySize(arenaBytes), static_cast<double>(need.bytes(arenaBytes)) / kGiB,
                    memory, static_cast<double>(available) / kGiB),
        largestMib >= 1 ? fmt::format("give at most --arena-mib {} ({:.0f}% of what is available, for all of them)",
                                      largestMib, 100 * kArenaShareOfMemory)
                        : std::string("run it on a machine with more memory, or on the simulated backend"));
}

} // namespace coh::core::real
