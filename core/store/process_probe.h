#pragma once
// Tells whether the process that began a run is still alive, so a run whose process died (crash, kill -9,
// power loss) is marked interrupted instead of looking "running" forever.
#include <cstdint>
#include <string>

namespace coh::core {

std::int64_t currentProcessId();
std::string currentHostName();

// An opaque token for when `pid` started (Linux: boot id + start tick from /proc); empty when unknown. Two
// different processes that had the same pid have different tokens.
std::string processStartToken(std::int64_t pid);

// False only when we can tell `pid` is gone: kill(pid, 0) fails with ESRCH, or the pid now belongs to a process
// that started later (its start token differs from `startToken`, when both are known).
bool processAlive(std::int64_t pid, const std::string& startToken);

} // namespace coh::core
