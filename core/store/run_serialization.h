#pragma once
// How a RunResult's parts are stored: the summary and small lists as JSON text, the per-request metrics,
// link series and messages as rows of their own tables (written with one reused prepared statement each).
#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace SQLite {
class Database;
}

namespace coh::core {

// Objects keep their keys in the order written (ordered_json), so exports read naturally. Keys are snake_case
// (ttft_ms.p50, throughput_tok_s, makespan_ns, ...). NaN is written as null and read back as NaN; keys missing
// from older files read as zero.
nlohmann::ordered_json toJson(const Distribution& d);
nlohmann::ordered_json toJson(const RunSummary& s);
Distribution distributionFromJson(const nlohmann::ordered_json& j);
RunSummary summaryFromJson(const nlohmann::ordered_json& j);
nlohmann::ordered_json toJson(const StalenessSummary& s);
StalenessSummary stalenessFromJson(const nlohmann::ordered_json& j);
nlohmann::ordered_json toJson(const PrefixPoolSummary& p);
PrefixPoolSummary prefixPoolFromJson(const nlohmann::ordered_json& j);
nlohmann::ordered_json toJson(const LocalPrefixSummary& p);
LocalPrefixSummary localPrefixFromJson(const nlohmann::ordered_json& j);
nlohmann::ordered_json toJson(const ReplicationSummary& r);
ReplicationSummary replicationFromJson(const nlohmann::ordered_json& j);

// A run's metadata and list columns, for `cohsim runs --json` and exports.
nlohmann::ordered_json toJson(const RunInfo& info);
// What compare-real kept with a run (RunStore::costVariants): [{"kind": "own_costs", "factor": 1, "summary": {...}}],
// for `cohsim runs show --json` and exports.
nlohmann::ordered_json toJson(const std::vector<CostVariant>& variants);

nlohmann::ordered_json toJson(const std::vector<PathRecord>& paths); // [{"links": [..], "forward": [true, ..]}, ..]
std::vector<PathRecord> pathsFromJson(const nlohmann::ordered_json& j);
std::vector<std::string> stringsFromJson(const nlohmann::ordered_json& j);

// bytes_per_bucket BLOB: each double as IEEE-754 binary64, little-endian, whatever the host's byte order.
std::string encodeDoubles(const std::vector<double>& values);
std::vector<double> decodeDoubles(const void* data, std::size_t size);
// node_blocks.steps BLOB: per step the time (int64) and the count (binary64), both little-endian.
std::string encodeSteps(const std::vector<BlockCountStep>& steps);
std::vector<BlockCountStep> decodeSteps(const void* data, std::size_t size);

// Inserts the run's requests, link series and messages. Call inside a transaction; `step` (may be empty) is
// called after each table with its name.
void insertRunRows(SQLite::Database& db, std::int64_t runId, const RunResult& result,
                   const std::function<void(std::string_view)>& step);
// Reads them back into `result`, in the order they were written.
void loadRunRows(SQLite::Database& db, std::int64_t runId, RunResult& result);
// The node_blocks rows alone, without the (possibly large) requests and event record.
std::vector<NodeBlocksSeries> loadNodeBlocks(SQLite::Database& db, std::int64_t runId);

} // namespace coh::core
