#include "core/real/memory_fit.h"

#include "core/base/input_error.h"
#include "core/real/gpu_nodes.h" // hostMemoryOnGpus
#include "core/real/node_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <sys/resource.h>
#include <unistd.h>

namespace coh::core::real {

MemoryNeed realMemoryNeed(const Scenario& scenario)
{
    MemoryNeed need;
    for (const Node& n : scenario.topology.nodes)
        if (n.kind != NodeKind::Switch) {
            ++need.arenas;
            need.hostArenas += hostMemoryOnGpus(n.kind) ? 1 : 0;
        }
    std::set<std::string> decoders; // an instance's first node attends; two instances may share it
    for (const InstanceSpec& inst : scenario.serving.instances)
        if (inst.role != InstanceRole::Prefill && !inst.nodes.empty())
            decoders.insert(inst.nodes.front());
    need.pools = decoders.size();
    return need;
}

std::optional<std::uint64_t> cgroupRoom(std::istream& limitIn, std::istream& usageIn, std::istream& statIn)
{
    std::string limitText;
    std::uint64_t usage = 0;
    if (!(limitIn >> limitText) || !(usageIn >> usage))
        return std::nullopt;
    std::uint64_t limit = 0;
    try {
        limit = std::stoull(limitText);
    } catch (const std::exception&) {
        return std::nullopt; // "max"
    }
    if (limit >= (std::uint64_t{1} << 62))
        return std::nullopt;
    // The usage counts the page cache too; its inactive file pages are the kernel's to reclaim, not in use.
    std::string key;
    std::uint64_t value = 0, reclaimable = 0;
    while (statIn >> key >> value)
        if (key == "total_inactive_file" || (key == "inactive_file" && reclaimable == 0))
            reclaimable = value;
    usage -= std::min(usage, reclaimable);
    return limit > usage ? limit - usage : 0;
}

namespace {

std::optional<std::uint64_t> memAvailable()
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

std::optional<std::uint64_t> roomIn(const std::string& dir, const char* limitFile, const char* usageFile)
{
    std::ifstream limitIn(dir + limitFile), usageIn(dir + usageFile), statIn(dir + "/memory.stat");
    return cgroupRoom(limitIn, usageIn, statIn);
}

// What this process's cgroup still allows it, where it has a memory limit: a container's limit is not in
// MemAvailable. cgroup v2 ("0::PATH") or v1's memory controller ("N:memory:PATH"); inside a container the path may
// be the mount's root.
std::optional<std::uint64_t> processCgroupRoom()
{
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        const bool v2 = line.rfind("0::", 0) == 0;
        if (!v2 && controllers != "memory")
            continue;
        const std::string mount = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        for (const std::string& dir : {mount + (path == "/" ? std::string() : path), mount}) {
            const auto room = v2 ? roomIn(dir, "/memory.max", "/memory.current")
                                 : roomIn(dir, "/memory.limit_in_bytes", "/memory.usage_in_bytes");
            if (room)
                return room;
        }
    }
    return std::nullopt;
}

// What an address-space limit (ulimit -v, RLIMIT_AS) leaves this process: an allocation past it fails however much
// memory the machine has free.
std::optional<std::uint64_t> addressSpaceRoom()
{
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return std::nullopt;
    std::ifstream statm("/proc/self/statm"); // first field: the address space in use, in pages
    std::uint64_t pages = 0;
    if (!(statm >> pages))
        return std::nullopt;
    const std::uint64_t used = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return limit.rlim_cur > used ? limit.rlim_cur - used : 0;
}

} // namespace

std::optional<std::uint64_t> availableHostMemory()
{
    std::optional<std::uint64_t> room;
    for (const auto bound : {memAvailable(), processCgroupRoom(), addressSpaceRoom()})
        if (bound)
            room = room ? std::min(*room, *bound) : *bound;
    return room;
}

void checkMemoryFits(const Scenario& scenario, std::size_t arenaBytes, std::uint64_t available,
                     const std::string& memory)
{
    checkMemoryFits(realMemoryNeed(scenario), arenaBytes, available, memory);
}

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
// GiB with two decimals, a need rounded up and what may be taken rounded down, so that a need past the share never
// reads as equal to it ("need 18.51 GiB, more than ... (18.50 GiB)", not "need 18.5 GiB ... (18.5 GiB)").
enum class Round { Nearest, Up, Down };
std::string gib(double bytes, Round round = Round::Nearest)
{
    const double hundredths = bytes / kGiB * 100;
    const double shown = round == Round::Up     ? std::ceil(hundredths)
                         : round == Round::Down ? std::floor(hundredths)
                                                : std::round(hundredths);
    return fmt::format("{:.2f} GiB", shown / 100);
}
// "...  more than the 80% of the 0.95 GiB this machine's memory has available that a run's memories may take (0.76
// GiB)": the check is against that share, so the message names it.
std::string moreThanAllowed(std::uint64_t available, const std::string& memory)
{
    return fmt::format("more than the {:.0f}% of the {} {} has available that a run's memories may take ({})",
                       100 * kArenaShareOfMemory, gib(static_cast<double>(available)), memory,
                       gib(kArenaShareOfMemory * static_cast<double>(available), Round::Down));
}
} // namespace

void checkMemoryFits(const MemoryNeed& need, std::size_t arenaBytes, std::uint64_t available, const std::string& memory)
{
    const std::size_t memories = need.arenas + need.pools;
    const double allowed = kArenaShareOfMemory * static_cast<double>(available);
    if (memories == 0 || static_cast<double>(need.bytes(arenaBytes)) <= allowed)
        return;
    const auto largestMib = static_cast<std::uint64_t>(allowed / static_cast<double>(memories)) >> 20;
    throw InputError("", "--arena-mib",
                     fmt::format("{} node memories and {} K/V pools of {} each need {}, {}", need.arenas, need.pools,
                                 memorySize(arenaBytes), gib(static_cast<double>(need.bytes(arenaBytes)), Round::Up),
                                 moreThanAllowed(available, memory)),
                     largestMib >= 1
                         ? fmt::format("give at most --arena-mib {} ({:.0f}% of what is available, for all of them)",
                                       largestMib, 100 * kArenaShareOfMemory)
                         : std::string("run it on a machine with more memory, or on the simulated backend"));
}

std::uint64_t largestPoolBytes(const MemoryNeed& need, std::size_t arenaBytes, std::uint64_t available)
{
    const double allowed = kArenaShareOfMemory * static_cast<double>(available);
    const double arenas = static_cast<double>(need.arenas) * static_cast<double>(arenaBytes);
    if (need.pools == 0 || allowed <= arenas)
        return arenaBytes;
    // One pool grows at a time, and while it does it holds half its old size more (K, then V, each copied into a
    // larger buffer before the old one goes): room for half a pool more than the pools themselves.
    const double each = (allowed - arenas) / (static_cast<double>(need.pools) + kGrowthShareOfPool);
    return std::max<std::uint64_t>(arenaBytes, static_cast<std::uint64_t>(each));
}

void checkPoolFits(const MemoryNeed& need, std::size_t arenaBytes, std::size_t poolMaxBytes, std::uint64_t available,
                   const std::string& memory)
{
    const std::uint64_t largest = largestPoolBytes(need, arenaBytes, available);
    if (need.pools == 0 || poolMaxBytes <= largest)
        return;
    const double bytes = static_cast<double>(need.arenas) * static_cast<double>(arenaBytes) +
                         (static_cast<double>(need.pools) + kGrowthShareOfPool) * static_cast<double>(poolMaxBytes);
    throw InputError("", "--pool-mib",
                     fmt::format("{} node memories of {} and {} K/V pools grown to {} each (and half a pool more while "
                                 "one grows) would need {}, {}",
                                 need.arenas, memorySize(arenaBytes), need.pools, memorySize(poolMaxBytes),
                                 gib(bytes, Round::Up), moreThanAllowed(available, memory)),
                     fmt::format("give at most --pool-mib {}, or leave it out for as much as fits ({:.0f}% of what is "
                                 "available, for all of them)",
                                 largest >> 20, 100 * kArenaShareOfMemory));
}

void checkBlockMessageFits(const Scenario& scenario, std::uint64_t available, const std::string& memory)
{
    const std::uint32_t tokens = std::max(1u, scenario.serving.blockTokens);
    const double block = static_cast<double>(scenario.model.kvBytesPerToken()) * tokens;
    const double room = kArenaShareOfMemory * static_cast<double>(available);
    if (block <= room)
        return;
    const auto fitting = static_cast<std::uint64_t>(tokens * room / block);
    throw InputError(
        scenario.sourcePath, "/serving/block_tokens",
        fmt::format("one KV block's data message, K and V of all {} layers for {} tokens, is {}: more than {} can "
                    "give a run ({:.0f}% of {}), and the real backend copies every byte a message carries",
                    scenario.model.layers, tokens, memorySize(static_cast<std::size_t>(block)), memory,
                    100 * kArenaShareOfMemory, memorySize(available)),
        fitting >= 1 ? fmt::format("give block_tokens {} or less, or run it on the simulator", fitting)
                     : std::string("run this model on the simulator"));
}

} // namespace coh::core::real
