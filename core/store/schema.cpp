#include "core/store/schema.h"

#include "core/base/input_error.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

#include <array>

namespace coh::core {

namespace {

// Append-only: a released migration is never edited, a schema change is a new entry. Entry i takes the
// database from user_version i to i + 1.
constexpr std::array kMigrations = {
    // 1: the first schema.
    R"sql(
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    scenario_name TEXT NOT NULL DEFAULT '',
    scenario_json TEXT NOT NULL,
    seed INTEGER NOT NULL,                 -- uint64 stored as its two's-complement int64
    version TEXT NOT NULL,
    backend TEXT NOT NULL DEFAULT 'simulated',
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted')),
    error TEXT,
    created_at TEXT NOT NULL,              -- ISO-8601 UTC
    finished_at TEXT,
    pid INTEGER,
    host TEXT,
    process_start TEXT,                    -- start time of pid, to tell a reused pid from the original
    summary_json TEXT,
    requests INTEGER,
    ttft_p50_ms REAL,
    ttft_p99_ms REAL,
    tpot_p50_ms REAL,
    tpot_p99_ms REAL,
    throughput_tok_s REAL,
    goodput_req_s REAL,
    events INTEGER,
    wall_s REAL,
    messages_total INTEGER,
    link_interval_ns INTEGER,
    node_ids_json TEXT,
    link_ids_json TEXT,
    instance_ids_json TEXT,
    paths_json TEXT
);
CREATE INDEX runs_status ON runs(status);

CREATE TABLE request_metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    id INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    prefill_instance INTEGER NOT NULL,
    decode_instance INTEGER NOT NULL,
    arrival_ns INTEGER NOT NULL,
    prefill_start_ns INTEGER NOT NULL,
    prefill_end_ns INTEGER NOT NULL,
    transfer_start_ns INTEGER NOT NULL,
    kv_ready_ns INTEGER NOT NULL,
    decode_start_ns INTEGER NOT NULL,
    first_token_ns INTEGER NOT NULL,
    finish_ns INTEGER NOT NULL,
    decode_compute_ns INTEGER NOT NULL DEFAULT 0,
    decode_stall_ns INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

CREATE TABLE link_series (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    link INTEGER NOT NULL,
    link_id TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('forward', 'reverse')),
    bandwidth_bytes_per_s REAL,
    total_bytes REAL,
    buckets INTEGER NOT NULL,
    bytes_per_bucket BLOB NOT NULL,        -- buckets x IEEE-754 binary64, little-endian
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

CREATE TABLE messages (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    path INTEGER NOT NULL,
    kind INTEGER NOT NULL,                 -- index into the summary's messages_by_kind
    request INTEGER NOT NULL,
    first_block INTEGER NOT NULL,
    block_count INTEGER NOT NULL,
    bytes REAL,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
)sql",
    // 2: the TPOT transfer part and per-request staleness.
    R"sql(
ALTER TABLE request_metrics ADD COLUMN decode_transfer_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE request_metrics ADD COLUMN stale_reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE request_metrics ADD COLUMN stale_steps INTEGER NOT NULL DEFAULT 0;
)sql",
    // 3: prompt tokens served by the prefix pool.
    R"sql(
ALTER TABLE request_metrics ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
)sql",
    // 4: blocks each node's caches hold, by protocol state, over time.
    R"sql(
CREATE TABLE node_blocks (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    node INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    state TEXT NOT NULL,
    peak_blocks REAL NOT NULL,
    buckets INTEGER NOT NULL,
    blocks_per_bucket BLOB NOT NULL,       -- buckets x IEEE-754 binary64, little-endian (time-averaged blocks)
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
)sql",
    // 5: the protocol transition that sent each message, and each node's exact block counts over time.
    R"sql(
ALTER TABLE messages ADD COLUMN sender INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN protocol INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN transition INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN from_state INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN to_state INTEGER NOT NULL DEFAULT 0;
ALTER TABLE node_blocks ADD COLUMN step_resolution_ns INTEGER NOT NULL DEFAULT 1;
ALTER TABLE node_blocks ADD COLUMN steps BLOB;
)sql",
    // 6: what node failures did to each completed request.
    R"sql(
ALTER TABLE request_metrics ADD COLUMN failure_hits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE request_metrics ADD COLUMN restored_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE request_metrics ADD COLUMN recomputed_tokens INTEGER NOT NULL DEFAULT 0;
)sql",
    // 7: tuning studies (docs/tuning.md) and the runs behind their points.
    R"sql(
CREATE TABLE studies (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    study_hash TEXT NOT NULL,              -- of the canonical study JSON: the same study file resumes this row
    study_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted')),
    error TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    pid INTEGER,                           -- the process running it, as for runs: a dead one means Interrupted
    host TEXT,
    process_start TEXT
);
CREATE INDEX studies_hash ON studies(study_hash);

CREATE TABLE study_points (
    study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
    point_key TEXT NOT NULL,               -- hash of the resolved scenario: identical points share it
    params_json TEXT NOT NULL,             -- the varied fields' values, by JSON pointer
    requests INTEGER NOT NULL DEFAULT 0,   -- the request limit it ran with (successive halving), 0: the scenario's
    run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    error TEXT,                            -- why the point has no run
    error_kind TEXT CHECK (error_kind IN ('invalid', 'failed')), -- invalid scenario (final) or failed run (retried)
    created_at TEXT NOT NULL,
    PRIMARY KEY (study_id, point_key)
) WITHOUT ROWID;
CREATE INDEX study_points_key ON study_points(point_key);
)sql",
    // 8: decode iterations (the event record's compute side), the real run a simulated one models, and the capacity
    // a capacity search found for its point.
    R"sql(
CREATE TABLE decode_iterations (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    instance INTEGER NOT NULL,             -- index into the run's instance_ids_json
    start_ns INTEGER NOT NULL,
    compute_start_ns INTEGER NOT NULL,     -- the batch's coherence wait ends here
    end_ns INTEGER NOT NULL,
    sequences INTEGER NOT NULL,
    context_tokens INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
ALTER TABLE runs ADD COLUMN models_run INTEGER REFERENCES runs(id) ON DELETE SET NULL;
ALTER TABLE study_points ADD COLUMN capacity_at_slo REAL; -- the capacity search chose this run, at this capacity
)sql",
    // 9: what the simulator gave for a real run and its model on other costs (compare-real's own and moved costs).
    R"sql(
CREATE TABLE cost_variants (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, -- own_costs: the real run; moved_costs: its model
    kind TEXT NOT NULL CHECK (kind IN ('own_costs', 'moved_costs')),
    factor REAL NOT NULL,                  -- moved_costs: every cost times this; 1 for own_costs
    summary_json TEXT NOT NULL,            -- the simulator's summary on those costs, as runs.summary_json
    PRIMARY KEY (run_id, kind, factor)
) WITHOUT ROWID;
)sql",
};

int pragmaInt(SQLite::Database& db, const char* pragma)
{
    return db.execAndGet(fmt::format("PRAGMA {}", pragma)).getInt();
}

// Tables, indexes, views or triggers other than SQLite's own.
int userObjectCount(SQLite::Database& db)
{
    return db.execAndGet("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").getInt();
}

} // namespace

int runStoreSchemaVersion()
{
    return static_cast<int>(kMigrations.size());
}

std::vector<std::string> runStoreTables(int version)
{
    std::vector<std::string> tables;
    if (version >= 1)
        tables = {"runs", "request_metrics", "link_series", "messages"};
    if (version >= 4)
        tables.push_back("node_blocks");
    if (version >= 7) {
        tables.push_back("studies");
        tables.push_back("study_points");
    }
    if (version >= 8)
        tables.push_back("decode_iterations");
    if (version >= 9)
        tables.push_back("cost_variants");
    return tables;
}

void migrateRunDatabase(SQLite::Database& db, const std::string& path)
{
    const int applicationId = pragmaInt(db, "application_id");
    const int version = pragmaInt(db, "user_version");
    const bool empty = applicationId == 0 && version == 0 && userObjectCount(db) == 0;
    if (!empty && applicationId != kRunStoreApplicationId)
        throw InputError(path, "", "the file is not a Coherence Studio run database (or is corrupt)",
                         "move it away or pass --db with another path");
    if (version > runStoreSchemaVersion())
        throw InputError(path, "PRAGMA user_version",
                         fmt::format("the run database has schema version {} but this Coherence Studio (" COH_VERSION
                                     ") knows versions up to {}",
                                     version, runStoreSchemaVersion()),
                         "upgrade Coherence Studio, or pass --db with another path");

    for (int v = version; v < runStoreSchemaVersion(); ++v) {
        // IMMEDIATE: two processes opening an old file at once must not both migrate it.
        SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
        if (pragmaInt(db, "user_version") != v)
            continue; // another process migrated this step while we waited for the lock
        db.exec(kMigrations[static_cast<std::size_t>(v)]);
        // PRAGMA takes no bound parameters; both values are this build's constants, never user input.
        db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", kRunStoreApplicationId, v + 1));
        transaction.commit();
    }
}

} // namespace coh::core
