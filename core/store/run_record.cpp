#include "core/store/run_record.h"

#include "core/base/input_error.h"
#include "core/store/pool_protocol.h"
#include "core/store/run_serialization.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <optional>

namespace coh::core {

nlohmann::ordered_json parseStoredJson(const std::string& path, const std::string& text, const char* column)
{
    auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
        throw InputError(path, column, "the stored JSON is not valid (the database is corrupt)",
                         "delete this run, or move the database away");
    return j;
}

void writeCompletedRun(SQLite::Database& db, std::int64_t id, const RunResult& result,
                       const std::function<void(std::string_view)>& step)
{
    insertRunRows(db, id, result, step);

    const RunSummary& s = result.summary;
    SQLite::Statement update(db, "UPDATE runs SET scenario_name = ?, seed = ?, status = 'completed', error = NULL, "
                                 "finished_at = ?, summary_json = ?, requests = ?, ttft_p50_ms = ?, "
                                 "ttft_p99_ms = ?, tpot_p50_ms = ?, tpot_p99_ms = ?, throughput_tok_s = ?, "
                                 "goodput_req_s = ?, events = ?, wall_s = ?, messages_total = ?, "
                                 "link_interval_ns = ?, node_ids_json = ?, link_ids_json = ?, "
                                 "instance_ids_json = ?, paths_json = ? WHERE id = ?");
    update.bind(1, result.scenarioName);
    update.bind(2, static_cast<std::int64_t>(result.seed));
    update.bind(3, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))));
    update.bind(4, toJson(s).dump());
    update.bind(5, static_cast<std::int64_t>(s.requests));
    update.bind(6, s.ttftMs.p50);
    update.bind(7, s.ttftMs.p99);
    update.bind(8, s.tpotMs.p50);
    update.bind(9, s.tpotMs.p99);
    update.bind(10, s.throughputTokensPerSec);
    update.bind(11, s.goodputRequestsPerSec);
    update.bind(12, static_cast<std::int64_t>(s.eventsExecuted));
    update.bind(13, s.wallSeconds);
    update.bind(14, static_cast<std::int64_t>(s.flows)); // messages_total: the History's flows column
    update.bind(15, result.linkInterval);
    update.bind(16, nlohmann::ordered_json(result.nodeIds).dump());
    update.bind(17, nlohmann::ordered_json(result.linkIds).dump());
    update.bind(18, nlohmann::ordered_json(result.instanceIds).dump());
    update.bind(19, toJson(result.paths).dump());
    update.bind(20, id);
    update.exec();
    if (step)
        step("summary");
}

namespace {

// The ends of each link are not stored with the run: the run's own scenario names them. Anything that does not
// match (an edited or damaged scenario) leaves them unknown rather than wrong.
std::vector<std::array<std::uint32_t, 2>> linkEndsFromScenario(const std::string& scenarioJson,
                                                               const std::vector<std::string>& nodeIds,
                                                               const std::vector<std::string>& linkIds)
{
    const auto scenario = nlohmann::json::parse(scenarioJson, nullptr, /*allow_exceptions=*/false);
    const auto nodeOf = [&](const nlohmann::json& link, const char* end) -> std::optional<std::uint32_t> {
        const auto it = link.find(end);
        if (it == link.end() || !it->is_string())
            return std::nullopt;
        const auto found = std::find(nodeIds.begin(), nodeIds.end(), it->get<std::string>());
        if (found == nodeIds.end())
            return std::nullopt;
        return static_cast<std::uint32_t>(found - nodeIds.begin());
    };
    std::vector<std::array<std::uint32_t, 2>> ends;
    if (!scenario.is_object() || !scenario.contains("topology") || !scenario["topology"].is_object())
        return ends;
    const auto links = scenario["topology"].find("links");
    if (links == scenario["topology"].end() || !links->is_array() || links->size() != linkIds.size())
        return ends;
    for (std::size_t i = 0; i < linkIds.size(); ++i) {
        const auto& link = (*links)[i];
        const auto a = link.is_object() ? nodeOf(link, "a") : std::nullopt;
        const auto b = link.is_object() ? nodeOf(link, "b") : std::nullopt;
        const auto id = link.is_object() ? link.find("id") : link.end();
        if (!a || !b || id == link.end() || !id->is_string() || id->get<std::string>() != linkIds[i])
            return {};
        ends.push_back({*a, *b});
    }
    return ends;
}

} // namespace

void writeDetachedRun(SQLite::Database& db, std::int64_t id, const RunResult& result)
{
    SQLite::Statement insert(db, "INSERT INTO runs (id, name, scenario_json, seed, version, status, created_at) "
                                 "VALUES (?, '', '{}', ?, ?, 'running', '')");
    insert.bind(1, id);
    insert.bind(2, static_cast<std::int64_t>(result.seed));
    insert.bind(3, COH_VERSION);
    insert.exec();
    writeCompletedRun(db, id, result, {});
}

std::optional<RunResult> readStoredRun(SQLite::Database& db, const std::string& path, std::int64_t id)
{
    SQLite::Statement q(db, "SELECT scenario_name, seed, summary_json, link_interval_ns, node_ids_json, "
                            "link_ids_json, instance_ids_json, paths_json, messages_total, scenario_json "
                            "FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep())
        return std::nullopt;
    RunResult result;
    result.scenarioName = q.getColumn(0).getString();
    result.seed = static_cast<std::uint64_t>(q.getColumn(1).getInt64());
    // A run that never completed has no summary or lists: it loads as an empty result.
    if (!q.getColumn(2).isNull()) {
        const auto stored = [&](int column, const char* name) {
            return parseStoredJson(path, q.getColumn(column).getString(), name);
        };
        result.summary = summaryFromJson(stored(2, "runs.summary_json"));
        result.linkInterval = q.getColumn(3).getInt64();
        result.nodeIds = stringsFromJson(stored(4, "runs.node_ids_json"));
        result.linkIds = stringsFromJson(stored(5, "runs.link_ids_json"));
        result.instanceIds = stringsFromJson(stored(6, "runs.instance_ids_json"));
        result.paths = pathsFromJson(stored(7, "runs.paths_json"));
        // The summary says its flows; one stored without them (none was) has them in messages_total.
        if (result.summary.flows == 0)
            result.summary.flows = static_cast<std::uint64_t>(q.getColumn(8).getInt64());
        result.linkEnds = linkEndsFromScenario(q.getColumn(9).getString(), result.nodeIds, result.linkIds);
        completePoolProtocol(result.summary.prefixPool, q.getColumn(9).getString());
    }
    loadRunRows(db, id, result);
    return result;
}

} // namespace coh::core
