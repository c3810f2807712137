#pragma once
// How many bytes one core keeps close: a decode step whose layers read no more than this finds its sequences' blocks
// still in the caches at the next step, having read them itself (docs/real-backend.md#a-step-that-fits-in-a-cores-
// cache). The calibration measures such steps apart, and a run fits them apart.
#include <cstddef>
#include <string>

namespace coh::core::real {

// The core's own (level 2) cache, as the C library reads it from the CPU, else as Linux's sysfs lists cpu0's; 0 where
// neither says.
std::size_t coreCacheBytes();

// A cache size as sysfs writes it ("2048K", "32M", "512"), in bytes; 0 for anything else.
std::size_t parseCacheSize(const std::string& text);

} // namespace coh::core::real
