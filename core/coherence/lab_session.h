#pragma once
// The teaching lab: run a sequence of processor ops on one block, each to quiescence (messages delivered oldest
// first), recording every op issue and every delivery as a step with the states afterwards and an explanation.
#include "core/coherence/invariants.h"
#include "core/coherence/step_record.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace coh::core::coherence {

struct LabOp {
    int cache = 0;
    ProcessorOp op = ProcessorOp::Load;
};

// "P0:R,P1:W,P2:E" (R load, W store, E evict). Throws InputError naming each bad `--ops` item and the fix.
std::vector<LabOp> parseLabOps(const std::string& text, int caches);
// A tour of the protocol's main transactions, using caches P0..P2 (fewer when there are fewer caches).
std::string defaultLabOps(int caches);

struct LabRun {
    std::string protocol;
    int caches = 0;
    std::string ops;
    std::vector<StepRecord> steps;
    int messages = 0;                      // messages delivered
    Violation violation = Violation::None; // what stopped the run early, if anything
    std::string error;                     // its description; empty when every op completed cleanly
};

// Stores write versions 1, 2, 3, ... so every value in the output is traceable to its store.
LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText);

nlohmann::ordered_json labToJson(const LabRun& run);
std::string labToText(const LabRun& run);

} // namespace coh::core::coherence
