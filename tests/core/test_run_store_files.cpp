// RunStore, opening a file: migrations from every older schema (and a file the schema-4 cohsim wrote),
// refusing files that are not run databases or come from a newer version, and where the default file lives.
// The life of a run in a store: test_run_store.cpp.
#include "core/base/input_error.h"
#include "core/store/default_paths.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"

#include "run_store_fixtures.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace coh::core {
namespace {

namespace fs = std::filesystem;
using test::expectEqual;
using test::makeResult;
using test::TempDir;

void expectNotARunDatabase(const std::string& path)
{
    try {
        RunStore store(path);
        FAIL() << "opened " << path;
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].message.find("not a Coherence Studio run database"), std::string::npos);
        EXPECT_NE(e.problems()[0].fix.find("--db"), std::string::npos);
    }
}

TEST(RunStore, MigratesAnEmptyFileToTheCurrentSchema)
{
    TempDir dir;
    const std::string path = dir.file("empty.db");
    std::ofstream(path).close();
    ASSERT_EQ(fs::file_size(path), 0u);
    {
        RunStore store(path);
    }
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
    EXPECT_GE(runStoreSchemaVersion(), 1);
    EXPECT_EQ(db.execAndGet("PRAGMA application_id").getInt(), kRunStoreApplicationId);
    EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
    for (const char* table : {"runs", "request_metrics", "link_series", "node_blocks", "messages"})
        EXPECT_TRUE(db.tableExists(table)) << table;
    // Reopening an up-to-date file changes nothing.
    RunStore again(path);
    EXPECT_TRUE(again.listRuns().empty());
}

TEST(RunStore, MigratesASchemaOneDatabaseKeepingItsRuns)
{
    // A schema-1 file: today's tables without the columns migrations 2 and 3 add (SQLite >= 3.35 drops columns)
    // and without migration 4's table.
    TempDir dir;
    const std::string path = dir.file("v1.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("old", "{}", 3);
        store.completeRun(id, makeResult());
    }
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        for (const char* sql :
             {"ALTER TABLE request_metrics DROP COLUMN decode_transfer_ns",
              "ALTER TABLE request_metrics DROP COLUMN stale_reads",
              "ALTER TABLE request_metrics DROP COLUMN stale_steps",
              "ALTER TABLE request_metrics DROP COLUMN cached_tokens", "DROP TABLE node_blocks",
              "ALTER TABLE messages DROP COLUMN sender", "ALTER TABLE messages DROP COLUMN protocol",
              "ALTER TABLE messages DROP COLUMN transition", "ALTER TABLE messages DROP COLUMN from_state",
              "ALTER TABLE messages DROP COLUMN to_state", "ALTER TABLE request_metrics DROP COLUMN failure_hits",
              "ALTER TABLE request_metrics DROP COLUMN restored_tokens",
              "ALTER TABLE request_metrics DROP COLUMN recomputed_tokens", "DROP TABLE study_points",
              "DROP TABLE studies", "DROP TABLE decode_iterations", "ALTER TABLE runs DROP COLUMN models_run",
              "DROP TABLE cost_variants"})
            db.exec(sql);
        db.exec("PRAGMA user_version = 1");
    }
    RunStore store(path);
    const RunResult loaded = store.loadRun(id);
    ASSERT_EQ(loaded.requests.size(), makeResult().requests.size());
    EXPECT_EQ(loaded.requests[0].decodeStall, makeResult().requests[0].decodeStall);
    EXPECT_EQ(loaded.requests[0].decodeTransfer, 0); // the new columns' default
    EXPECT_EQ(loaded.requests[0].staleReads, 0u);
    EXPECT_EQ(loaded.requests[0].cachedTokens, 0u);
    EXPECT_TRUE(loaded.nodeBlocks.empty()); // runs stored before migration 4 have none
    EXPECT_TRUE(loaded.iterations.empty()); // nor decode iterations before migration 8
    EXPECT_EQ(store.runInfo(id)->modelsRun, 0);
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
}

TEST(RunStore, MigratesASchemaFourDatabaseKeepingItsMessagesAndBlockSeries)
{
    // A schema-4 file: messages without the transition that sent them, node_blocks without exact steps.
    TempDir dir;
    const std::string path = dir.file("v4.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("old", "{}", 3);
        store.completeRun(id, makeResult());
    }
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        for (const char* column : {"sender", "protocol", "transition", "from_state", "to_state"})
            db.exec(std::string("ALTER TABLE messages DROP COLUMN ") + column);
        for (const char* column : {"step_resolution_ns", "steps"})
            db.exec(std::string("ALTER TABLE node_blocks DROP COLUMN ") + column);
        for (const char* column : {"failure_hits", "restored_tokens", "recomputed_tokens"})
            db.exec(std::string("ALTER TABLE request_metrics DROP COLUMN ") + column);
        db.exec("DROP TABLE study_points");
        db.exec("DROP TABLE studies");
        db.exec("DROP TABLE decode_iterations");
        db.exec("ALTER TABLE runs DROP COLUMN models_run");
        db.exec("DROP TABLE cost_variants");
        db.exec("PRAGMA user_version = 4");
    }
    RunStore store(path);
    const RunResult loaded = store.loadRun(id);
    const RunResult original = makeResult();
    ASSERT_EQ(loaded.messages.size(), original.messages.size());
    for (std::size_t i = 0; i < loaded.messages.size(); ++i) {
        EXPECT_EQ(loaded.messages[i].start, original.messages[i].start);
        EXPECT_EQ(loaded.messages[i].bytes, original.messages[i].bytes);
        EXPECT_EQ(loaded.messages[i].sender, MessageSender::None); // the new columns' defaults
        EXPECT_EQ(loaded.messages[i].protocol, MessageProtocol::Kv);
        EXPECT_EQ(loaded.messages[i].transition, 0u);
    }
    ASSERT_EQ(loaded.nodeBlocks.size(), original.nodeBlocks.size());
    for (std::size_t i = 0; i < loaded.nodeBlocks.size(); ++i) {
        EXPECT_EQ(loaded.nodeBlocks[i].blocksPerBucket, original.nodeBlocks[i].blocksPerBucket);
        EXPECT_TRUE(loaded.nodeBlocks[i].steps.empty()); // stored before schema 5: averages only
        EXPECT_EQ(loaded.nodeBlocks[i].stepResolution, 1);
    }
    for (const auto& r : loaded.requests) // stored before schema 6: no failure figures
        EXPECT_EQ(r.failureHits + r.restoredTokens + r.recomputedTokens, 0u);
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
}

TEST(RunStore, OpensARunDatabaseWrittenBySchemaFour)
{
    // A file the schema-4 cohsim wrote (`cohsim run datasets/scenarios/default.json --max-requests 2`): 52
    // messages of the default scenario's MSI run and 5 (node, state) series, without transitions or steps.
    TempDir dir;
    const std::string path = dir.file("old.db");
    fs::copy_file(std::string(COH_TEST_DATA_DIR) + "/store/schema4-default-2-requests.db", path);
    RunStore store(path);
    const RunResult run = store.loadRun(1);
    ASSERT_EQ(run.messages.size(), 52u);
    for (const auto& m : run.messages) {
        EXPECT_EQ(m.sender, MessageSender::None);
        EXPECT_LT(m.kind, run.summary.messagesByKind.size());
    }
    ASSERT_EQ(run.nodeBlocks.size(), 5u);
    for (const auto& s : run.nodeBlocks) {
        EXPECT_FALSE(s.blocksPerBucket.empty());
        EXPECT_TRUE(s.steps.empty());
    }
    // New runs go in beside it with everything.
    const std::int64_t id = store.beginRun("new", "{}", 1);
    store.completeRun(id, makeResult());
    expectEqual(store.loadRun(id), makeResult());
}

TEST(RunStore, RefusesAFileOfGarbageBytes)
{
    TempDir dir;
    const std::string path = dir.file("garbage.db");
    {
        std::ofstream out(path, std::ios::binary);
        for (int i = 0; i < 4096; ++i)
            out.put(static_cast<char>((i * 131 + 7) & 0xFF));
    }
    expectNotARunDatabase(path);
}

TEST(RunStore, RefusesAnotherApplicationsSqliteDatabase)
{
    TempDir dir;
    const std::string path = dir.file("other.db");
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    }
    const auto before = fs::file_size(path);
    expectNotARunDatabase(path);
    EXPECT_EQ(fs::file_size(path), before);
    SQLite::Database db(path);
    EXPECT_FALSE(db.tableExists("runs")); // refused, not altered (test_run_store_trust.cpp compares every byte)
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), 0);
}

TEST(RunStore, RefusesADatabaseFromANewerVersion)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = " + std::to_string(runStoreSchemaVersion() + 1));
    }
    try {
        RunStore store(path);
        FAIL() << "opened a newer database";
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].fix.find("upgrade Coherence Studio"), std::string::npos);
    }
}

TEST(RunStore, CannotOpenInAMissingFolderSaysSo)
{
    TempDir dir;
    const std::string path = dir.file("no/such/folder/runs.db");
    try {
        RunStore store(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].fix.find("--db"), std::string::npos);
    }
}

TEST(DefaultPaths, FollowsXdgThenHomeAndCreatesTheFolder)
{
    TempDir dir;
    const std::string xdg = dir.file("xdg");
    EXPECT_EQ(defaultRunDatabasePath(xdg.c_str(), "/nonexistent-home"), xdg + "/coherence-studio/runs.db");
    EXPECT_TRUE(fs::is_directory(xdg + "/coherence-studio"));

    const std::string home = dir.file("home");
    EXPECT_EQ(defaultRunDatabasePath("relative/ignored", home.c_str()),
              home + "/.local/share/coherence-studio/runs.db");
    EXPECT_EQ(defaultRunDatabasePath("", home.c_str()), home + "/.local/share/coherence-studio/runs.db");
    EXPECT_TRUE(fs::is_directory(home + "/.local/share/coherence-studio"));
    EXPECT_THROW(defaultRunDatabasePath(nullptr, nullptr), InputError);
}

} // namespace
} // namespace coh::core
