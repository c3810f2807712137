#pragma once
// A step of a block system as plain, named values: what the lab prints, what the explorer prints for a
// counterexample, and what the JSON output and the GUI consume. Built outside the hot path.
#include "core/coherence/block_system.h"

#include <optional>
#include <string>
#include <vector>

namespace coh::core::coherence {

struct MessageView {
    std::string kind;
    std::string from;
    std::string to;
    std::optional<Value> data; // absent for control messages
    int ackCount = 0;
};

struct CacheView {
    std::string name;
    std::string state;
    std::optional<Value> data; // absent when the copy holds no valid data
};

// The home controller: a directory, or a snooping bus with its memory (homeName()).
struct DirectoryView {
    std::string name = "Dir"; // "Dir" or "Bus", as the home appears in messages and as an actor
    std::string state;
    bool tracksSharers = true;        // false for a bus, which keeps no sharer list
    std::vector<std::string> sharers; // empty when not tracked
    std::string owner;                // empty: none
    Value memory = 0;
};

struct StepRecord {
    int index = 0;
    int block = -1;                     // which block, when several are explored as a product
    std::string op;                     // "P0:R" for a processor op, empty for a delivery
    std::optional<MessageView> message; // the delivered message
    std::string actor;                  // "P0", or the home: "Dir" (or "Bus")
    std::string event;
    std::string fromState;
    std::string toState;
    std::vector<MessageView> sent;
    std::vector<CacheView> caches;
    DirectoryView directory;
    std::string explanation;
    std::optional<Value> loaded;
    std::optional<Value> stored;
};

// "P0", or the home's name ("Dir", "Bus") for kDirNode.
std::string nodeName(const Protocol& protocol, std::uint8_t node);
// "P0:R", "P1:W", "P2:E".
std::string opLabel(int cache, ProcessorOp op);
MessageView viewMessage(const BlockSystem& system, const Message& m);
void snapshot(const BlockSystem& system, StepRecord& record);

// `before` is the system the move was applied to, `after` the result; `result` what apply() returned.
StepRecord recordStep(const BlockSystem& before, const Move& move, const StepResult& result, const BlockSystem& after,
                      int index);

// The transition's explanation with {self} {req} {src} {owner} {others} {acks} filled in from `before`.
std::string explainStep(const BlockSystem& before, const Move& move, const StepResult& result);

} // namespace coh::core::coherence
