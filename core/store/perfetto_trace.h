#pragma once
// A run as a trace the Perfetto UI (ui.perfetto.dev) and chrome://tracing open: Chrome's trace-event JSON, which both
// read without a schema (the protobuf format would need Perfetto's .proto files to write and to check). Times are
// the run's nanoseconds (simulated, or measured on a real backend) from its start, so a simulated and a real run of
// one scenario open side by side on the same clock (docs/run-store.md#perfetto).
//
// Tracks: a process per node (prefill batches and the KV blocks its caches hold by state; each recorded decode
// iteration as a slice holding its coherence wait and its compute, with a counter of its batch size; decode as one
// async slice per request, with a counter of the requests decoding) and per link direction (each recorded message that
// crosses it as a slice, lanes where messages overlap; its utilisation and the bytes of recorded messages in flight as
// counters). Flows link the messages of one coherence transaction: a message and the one its arrival made its
// receiver send (same block, sent by the receiver at the instant it arrived: a request, its forward, the data, the
// acknowledgement).
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

struct PerfettoOptions {
    std::string runName;
    // Per instance (RunResult::instanceIds), the node indices it runs on; an instance without them gets a track of
    // its own.
    std::vector<std::vector<std::uint32_t>> instanceNodes;
    // Several runs in one trace (a simulated and a real run side by side): each run's process ids start past the
    // previous run's, and its track names start with `trackPrefix` ("#12 · ").
    int pidBase = 0;
    std::string trackPrefix;
};

// What the trace holds, for the CLI's line and for tests.
struct PerfettoCounts {
    std::size_t tracks = 0;   // processes: nodes and link directions with something on them
    std::size_t slices = 0;   // complete and async slices
    std::size_t flows = 0;    // message-to-message links
    std::size_t counters = 0; // counter samples
};

nlohmann::json perfettoTrace(const RunResult& run, const PerfettoOptions& options, PerfettoCounts* counts = nullptr);
// The process ids a run takes: perfettoTrace of the next run in the same trace starts at pidBase plus this.
int perfettoPidSpan(const RunResult& run);

// The nodes each of the run's instances ran on, read from its stored scenario (by instance id); empty where the
// scenario no longer parses (its compute then shows on tracks of its own).
std::vector<std::vector<std::uint32_t>> instanceNodesOf(const RunResult& run, const std::string& scenarioJson);

} // namespace coh::core
