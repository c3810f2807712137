#pragma once
// How many bytes one core keeps close: a decode step whose layers read no more than this finds its sequences' blocks
// still in the caches at the next step, having read them itself (docs/real-backend.md#a-step-that-fits-in-a-cores-
// cache). The calibration measures such steps apart, and a run fits them apart.
#include <cstddef>
#include <cstdint>
#include <string>

namespace coh::core::real {

// The core's own (level 2) cache, as the C library reads it from the CPU, else as Linux's sysfs lists cpu0's; 0 where
// neither says. Read once.
std::size_t coreCacheBytes();

// Whether a decode step whose layer reads `layerBytes` of K and V finds them in a core's cache of `cacheBytes` (0: none
// told apart), read there by the step before. A step's layers run over the same blocks, so it is one layer's bytes.
// The one test both sides apply: a run sorting its measured steps, the simulator costing a profile's.
inline bool readsFromCoreCache(double layerBytes, std::uint64_t cacheBytes)
{
    return cacheBytes > 0 && layerBytes <= static_cast<double>(cacheBytes);
}

// A cache size as sysfs writes it ("2048K", "32M", "512"), in bytes; 0 for anything else.
std::size_t parseCacheSize(const std::string& text);

} // namespace coh::core::real
