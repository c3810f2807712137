#pragma once
// A protocol's messages, states and transition matrices as Markdown, generated from the tables themselves
// (`cohsim lab --protocol P --table`; docs/protocols.md pastes the output).
#include "core/coherence/protocol_table.h"

#include <string>

namespace coh::core::coherence {

std::string protocolMarkdown(const Protocol& protocol);
// One cell of a transition matrix: "GetS→Dir / IS^D", "stall", or empty when undefined.
std::string transitionCell(const Protocol& protocol, const ControllerTable& table, int state, int event);

} // namespace coh::core::coherence
