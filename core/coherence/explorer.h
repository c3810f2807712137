#pragma once
// Exhaustive explicit-state checker: breadth-first over every interleaving of processor ops (any cache whose
// table defines the op in its current state; stores write 0 or 1) and deliveries of in-flight messages
// (respecting the protocol's FIFO channels), with canonical state hashing. Reports the first invariant
// violation, protocol error or deadlock with a shortest trace.
//
// Blocks are independent under these protocols (no shared state, per-block channels and stall buffers), so by
// default B blocks are checked by exploring one: the product's reachable states are the B-fold product of one
// block's, and every property is per block. `product` explores the real product instead, to confirm that.
#include "core/coherence/invariants.h"
#include "core/coherence/step_record.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core::coherence {

struct ExplorerOptions {
    int caches = 3;
    int blocks = 1;
    bool product = false;
    std::uint64_t maxStates = 5'000'000;
    // Polled once per explored state (the GUI's bug hunt stops a search it no longer needs); a cancelled search
    // returns with complete = false and cancelled = true.
    const std::atomic<bool>* cancel = nullptr;
};

struct ExplorerResult {
    std::string protocol;
    int caches = 0;
    int blocks = 0;
    bool product = false;
    std::uint64_t states = 0;      // distinct states explored (of one block unless product)
    std::uint64_t transitions = 0; // successor edges taken, including ones to known states
    int maxInFlight = 0;
    double seconds = 0;
    bool complete = false;           // the whole state space was explored within maxStates
    bool cancelled = false;          // ExplorerOptions::cancel stopped it
    double impliedProductStates = 0; // states^blocks when blocks > 1 and not product
    Violation violation = Violation::None;
    std::string description;
    std::vector<StepRecord> trace; // shortest path from the initial state to the violation
    // Table coverage: transitions (Fire entries) taken at least once, per controller.
    int cacheFired = 0;
    int cacheDefined = 0;
    int directoryFired = 0;
    int directoryDefined = 0;
    std::vector<std::string> unexercised; // "cache (S, Inv)" for each Fire entry never taken
};

ExplorerResult explore(const Protocol& protocol, const ExplorerOptions& options);

nlohmann::ordered_json explorerToJson(const ExplorerResult& result);
std::string explorerToText(const ExplorerResult& result);

} // namespace coh::core::coherence
