#pragma once
// Reading run summaries stored before the traffic vocabulary of core/engine/traffic_counts.h (no "flows" key):
// their "messages" counted network flows, and their "writebacks" counted block data a cache sent home under
// any message name while the kinds list called MSI's downgrade copy plain "Data". docs/run-store.md says how
// such a run reads now.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

// Whether `summary` (a stored summary object) predates the vocabulary.
bool isLegacyTrafficSummary(const nlohmann::ordered_json& summary);

// Brings a legacy summary's counts into the vocabulary: flows from its "messages"; and the data-role messages
// it counted as sent home (its write-backs less the writeback- and request-role data kinds, which always go
// there) are moved out of the decode path's busiest data kind into a "<name> to home" kind (role writeback)
// appended to the list, so the record's kind indices stay valid and the write-backs computed from the kinds
// equal the ones the run reported (unified-memory's Writes excepted: they are requests now).
void upgradeLegacyTraffic(const nlohmann::ordered_json& summary, RunSummary& s);

} // namespace coh::core
