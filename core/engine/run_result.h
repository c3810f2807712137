#pragma once
// What one run produced, as plain values: the run store, the CLI, reports and the GUI all read this.
#include "core/sim/time.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// Timestamps of one request's life (ns of simulated time). TTFT components are differences of these.
struct RequestMetrics {
    std::uint32_t id = 0;
    std::uint32_t promptTokens = 0;
    std::uint32_t outputTokens = 0;
    std::uint32_t prefillInstance = 0;
    std::uint32_t decodeInstance = 0;
    SimTime arrival = 0;
    SimTime prefillStart = 0;  // left the prefill queue
    SimTime prefillEnd = 0;    // KV written at the prefill instance
    SimTime transferStart = 0; // decode instance had room; KV read began
    SimTime kvReady = 0;       // all KV blocks readable at the decode instance
    SimTime decodeStart = 0;   // first decode iteration that includes the request began
    SimTime firstToken = 0;
    SimTime finish = 0;        // last token
    // Where the time between the first and the last token went (steps 2..n): the steps' compute and
    // their coherence stalls; the rest is waiting for a shared device.
    SimTime decodeCompute = 0;
    SimTime decodeStall = 0;

    SimTime queueing() const { return prefillStart - arrival; }
    SimTime prefill() const { return prefillEnd - prefillStart; }
    SimTime admission() const { return transferStart - prefillEnd; }
    SimTime transfer() const { return kvReady - transferStart; }
    SimTime load() const { return decodeStart - kvReady; }
    SimTime firstDecode() const { return firstToken - decodeStart; }
    SimTime ttft() const { return firstToken - arrival; }
    SimTime e2e() const { return finish - arrival; }
    // Mean gap between output tokens after the first; -1 when there is only one token.
    SimTime tpot() const { return outputTokens > 1 ? (finish - firstToken) / (outputTokens - 1) : -1; }
};

struct Distribution {
    std::uint64_t count = 0;
    double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0; // in the metric's unit (ms for times)
};

// Traffic of one message kind (a protocol message name, or "KV-Data" for the plain copy).
struct MessageKindStats {
    std::string name;
    bool data = false; // carries block data (else control)
    std::uint64_t count = 0;
    double bytes = 0;
    std::string role = "data"; // request, forward, invalidation, ack, data, writeback, bias-flip, migration, lease
};

// Traffic of one link direction over the whole run.
struct LinkTotal {
    std::string link; // link id
    bool forward = true; // a -> b
    double bytes = 0;
    double meanUtilization = 0; // bytes / (bandwidth x makespan)
    double peakUtilization = 0; // busiest time bucket
};

struct RunSummary {
    std::uint64_t requests = 0;
    std::uint64_t completed = 0;
    std::uint64_t outputTokens = 0;
    SimTime makespan = 0;        // first arrival to last token
    Distribution ttftMs, tpotMs, e2eMs, itlMs;
    Distribution queueMs, prefillMs, admissionMs, transferMs, loadMs, firstDecodeMs;
    Distribution tpotComputeMs, tpotStallMs; // TPOT split: per-token compute and coherence stall
    double throughputTokensPerSec = 0;
    double throughputRequestsPerSec = 0;
    double goodputRequestsPerSec = 0; // requests meeting both SLOs per second
    double sloAttainment = 0;         // fraction of requests meeting both SLOs
    std::uint64_t kvTransfers = 0;
    double kvBytes = 0;
    std::uint64_t messages = 0;
    std::string protocol = "direct";             // the KV protocol of the decode path
    std::vector<MessageKindStats> messagesByKind; // MessageRecord::kind indexes this
    double controlBytes = 0, dataBytes = 0;
    std::vector<LinkTotal> links; // link directions that carried traffic, busiest first
    // Coherence actions, per block: messages with those roles, and stores that upgraded a readable copy.
    std::uint64_t invalidations = 0, upgrades = 0, writebacks = 0, biasFlips = 0, migrations = 0;
    std::uint64_t eventsExecuted = 0;
    double wallSeconds = 0;
    double eventsPerSecond = 0;
};

// One network message for replay and animation.
struct MessageRecord {
    SimTime start = 0, end = 0;
    std::uint32_t src = 0, dst = 0; // node indices
    std::uint32_t path = 0;         // index into RunResult::paths
    std::uint8_t kind = 0;          // index into RunSummary::messagesByKind
    std::uint32_t request = 0;
    std::uint32_t firstBlock = 0, blockCount = 0;
    double bytes = 0;
};

// A routed path as directed link hops; `forward` is false when a hop runs b -> a.
struct PathRecord {
    std::vector<std::uint32_t> links;
    std::vector<bool> forward;
};

// Bytes carried by one direction of one link, per time bucket.
struct LinkSeries {
    std::uint32_t link = 0;
    bool forward = true; // a -> b
    double bandwidthBytesPerSec = 0;
    double totalBytes = 0;
    std::vector<double> bytesPerBucket;
};

struct RunResult {
    std::string scenarioName;
    std::uint64_t seed = 0;
    std::vector<std::string> nodeIds;
    std::vector<std::string> linkIds;
    std::vector<std::string> instanceIds;
    RunSummary summary;
    std::vector<RequestMetrics> requests;
    SimTime linkInterval = kSecond;
    std::vector<LinkSeries> linkSeries; // only link directions that carried traffic
    std::vector<PathRecord> paths;
    std::vector<MessageRecord> messages; // the event record: all, or a uniform sample
    std::uint64_t messagesTotal = 0;     // how many there were before sampling
};

} // namespace coh::core
