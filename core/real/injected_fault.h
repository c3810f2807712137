#pragma once
// A fault a run plays on purpose (docs/real-backend.md#faults), so a user sees the real backend's checks catch it:
// one of the copy faults at a given copy, or one of the decode-read faults at a given decode step. `cohsim run
// --inject NAME[@N]` makes one.
#include "core/real/node_worker.h"     // CopyFault
#include "core/real/sequence_blocks.h" // ReadFault

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core::real {

struct InjectedFault {
    std::string name;              // as the user gave it, e.g. "flip-byte"
    std::optional<CopyFault> copy; // one of the two
    std::optional<ReadFault> read;
    std::uint64_t at = 1; // the copy (numbered from 1 as their stamps are) or the decode step it is played on
};

// The names parseInjectedFault() knows, copy faults first.
const std::vector<std::string>& injectedFaultNames();
// "NAME" or "NAME@N" (N from 1). Throws InputError naming --inject, with the choices, for anything else.
InjectedFault parseInjectedFault(std::string_view text);

} // namespace coh::core::real
