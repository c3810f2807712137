#pragma once
// Whether a real backend's memories fit this machine, asked before a run makes any
// (docs/real-backend.md#what-each-node-runs-on-the-mapping). Each node touches its arena first, so memory past what
// the machine has is not refused by the allocator: the kernel kills the process part-way through the run instead.
#include "core/scenario/scenario.h"

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

namespace coh::core::real {

// The memories a real backend makes for a scenario, at most: an arena for every node that can send, receive or
// compute (all but switches), and a K/V pool of the same size on each decode instance's first node.
struct MemoryNeed {
    std::size_t arenas = 0, pools = 0;
    std::size_t hostArenas = 0; // of the arenas, those real-cuda places in pinned host memory (hostMemoryOnGpus)
    std::uint64_t bytes(std::size_t arenaBytes) const { return std::uint64_t{arenas + pools} * arenaBytes; }
};
MemoryNeed realMemoryNeed(const Scenario& scenario);

// What this machine can still give this process: /proc/meminfo's MemAvailable, or less where the process's cgroup
// (a container's memory.max) or its address-space limit (ulimit -v) leaves it less; none where none tells.
std::optional<std::uint64_t> availableHostMemory();
// A cgroup's room: its memory limit (v2's memory.max, v1's memory.limit_in_bytes) less what it uses (memory.current,
// memory.usage_in_bytes) but for the inactive file pages its memory.stat lists (page cache the kernel reclaims:
// "inactive_file", v1's hierarchy "total_inactive_file"); none without a limit (v2 writes "max", v1 a number near
// 2^63) or when limit or usage cannot be read.
std::optional<std::uint64_t> cgroupRoom(std::istream& limit, std::istream& usage, std::istream& stat);

// The share of the available memory a run's arenas and pools may take: the rest is the run's own (its events,
// metrics, the store) and the machine's.
inline constexpr double kArenaShareOfMemory = 0.8;

// Throws InputError naming --arena-mib, with the largest arena that fits, when the scenario's memories of
// `arenaBytes` each would take more than kArenaShareOfMemory of `available` bytes of `memory` ("this machine's
// memory", "the GPUs' memory").
void checkMemoryFits(const Scenario& scenario, std::size_t arenaBytes, std::uint64_t available,
                     const std::string& memory);
// The same for some of the scenario's memories (real-cuda: those on its GPUs, and those in pinned host memory).
void checkMemoryFits(const MemoryNeed& need, std::size_t arenaBytes, std::uint64_t available,
                     const std::string& memory);

// Throws InputError naming /serving/block_tokens, with the largest that fits, when one KV block's data message (K and V
// of every layer) is more than kArenaShareOfMemory of `available` bytes of `memory`: no such block exists on this
// machine, and the real backend would still copy every byte of each such message, through arenas that hold a
// fraction of it, for minutes a message.
void checkBlockMessageFits(const Scenario& scenario, std::uint64_t available, const std::string& memory);

// While a pool grows it holds this share of its old size more (NodeAttention::grow copies K, then V).
inline constexpr double kGrowthShareOfPool = 0.5;
// The most bytes each of the scenario's K/V pools may grow to (RealCpuOptions::poolMaxBytes) when its arenas of
// `arenaBytes` take their share of kArenaShareOfMemory of `available` bytes first and the pools, all grown, and the
// copy one of them makes while it grows (kGrowthShareOfPool) take the rest: never less than arenaBytes, where they
// start.
std::uint64_t largestPoolBytes(const MemoryNeed& need, std::size_t arenaBytes, std::uint64_t available);
// Throws InputError naming --pool-mib, with the largest that fits, when the pools grown to `poolMaxBytes` each would
// not fit beside the arenas as largestPoolBytes says.
void checkPoolFits(const MemoryNeed& need, std::size_t arenaBytes, std::size_t poolMaxBytes, std::uint64_t available,
                   const std::string& memory);

} // namespace coh::core::real
