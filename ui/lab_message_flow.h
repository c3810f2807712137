#pragma once
// Pairs every message a lab run sends with the step that delivers it, for the sequence chart: core records
// sends and deliveries separately, and identical messages on one channel are interchangeable, so FIFO matching
// by (kind, from, to, data, acks) is exact.
#include "core/coherence/protocol_table.h"
#include "core/coherence/step_record.h"

#include <QString>

#include <vector>

namespace coh::ui {

struct MessageFlow {
    QString kind;
    int from = 0; // lifeline: cache index, or the cache count for Dir
    int to = 0;
    int sentAt = 0;       // step that sent it
    int deliveredAt = -1; // step that delivered it; -1 while in flight at the end of the run
    core::coherence::MessageRole role = core::coherence::MessageRole::Other;
    QString detail; // "data=1", "acks=2" or empty
};

// Lifeline index of a node name ("P2" -> 2, "Dir" -> caches).
int lifelineOf(const std::string& node, int caches);
std::vector<MessageFlow> buildMessageFlows(const core::coherence::Protocol& protocol, int caches,
                                           const std::vector<core::coherence::StepRecord>& steps);

} // namespace coh::ui
