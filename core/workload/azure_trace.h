#pragma once
// Reads the Azure LLM inference trace (2023) CSV: header TIMESTAMP,ContextTokens,GeneratedTokens in any
// column order (extra columns ignored), timestamps like 2023-11-16 18:15:46.6805900.
#include "core/workload/request.h"

#include <cstdint>
#include <string>

namespace coh::core {

// timeScale multiplies inter-arrival times; maxRequests keeps the first N (0 = all); the first request
// arrives at 0. Throws InputError naming the file, line and column of the first bad value.
Workload readAzureTrace(const std::string& path, double timeScale, std::uint32_t maxRequests);

} // namespace coh::core
