#pragma once
// Protocol tables by name. Built once on first use and never changed, so callers may keep references.
#include "core/coherence/protocol_table.h"

#include <string>
#include <vector>

namespace coh::core::coherence {

// Every registered protocol, bug-hunt variants last.
const std::vector<Protocol>& allProtocols();

// Throws InputError naming `field` (e.g. "--protocol") and listing the valid names when `name` is unknown.
const Protocol& findProtocol(const std::string& name, const std::string& field = "--protocol");

// One line per protocol: name, title, and a "[bug hunt]" mark on deliberately broken variants.
std::string protocolListText();

} // namespace coh::core::coherence
