#pragma once
// Exports a stored run for analysis in other tools: per-request metrics or the summary as CSV, or everything
// but the event record as one JSON document (formats in docs/run-store.md).
#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace coh::core {

// Header plus one row per request: id, tokens, instances, arrival and the TTFT components in ms.
void writeRequestsCsv(std::ostream& out, const RunResult& result);
// "key,value" rows of the summary; distributions as ttft_ms.p50 and so on.
void writeSummaryCsv(std::ostream& out, const RunSummary& summary);
// {"run": {metadata}, "summary": {...}, "requests": [{...}, ...]}, and "cost_variants" where compare-real kept any
// with the run (RunStore::costVariants: [{"kind": "own_costs", "factor": 1, "summary": {...}}, ...]).
nlohmann::ordered_json exportJson(const RunInfo& info, const std::string& scenarioJson, const RunResult& result,
                                  const std::vector<CostVariant>& costVariants = {});

// Exact decimal milliseconds of a nanosecond count, without trailing zeros: 1234567 -> "1.234567".
std::string formatMilliseconds(SimTime ns);

} // namespace coh::core
