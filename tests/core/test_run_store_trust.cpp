// The run store keeps its promises: a foreign SQLite file is refused with not one byte changed; a database
// corrupt in the middle is found before anything is written to it; a database locked at the final commit keeps
// the finished result for the next open instead of losing it; read-only, locked and corrupt files end cohsim with
// exit 2 naming the file and the fix; SIGINT during the final commit ends the run completed, not killed.
#include "cli_runner.h"
#include "core/base/input_error.h"
#include "core/store/corruption_record.h"
#include "core/store/pending_results.h"
#include "core/store/run_recovery.h"
#include "core/store/run_store.h"
#include "db_damage.h"
#include "stored_run_fixtures.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

namespace coh::core {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class TempDir {
  public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "coh-trust-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
        fs::permissions(m_path, fs::perms::all, fs::perm_options::add); // other users' cohsim (read-only tests)
    }
    ~TempDir()
    {
        std::error_code error;
        fs::permissions(m_path, fs::perms::owner_all, fs::perm_options::add, error);
        fs::remove_all(m_path, error);
    }
    std::string file(const std::string& name) const { return (m_path / name).string(); }
    const fs::path& path() const { return m_path; }

  private:
    fs::path m_path;
};

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

using test::resultWithMessages;

RunStoreOptions quickTimeout(std::chrono::milliseconds timeout = 200ms)
{
    RunStoreOptions options;
    options.busyTimeout = timeout;
    return options;
}

// A second process's write transaction, as another cohsim or the GUI would hold it.
class LockHolder {
  public:
    explicit LockHolder(const std::string& path)
        : m_db(path, SQLite::OPEN_READWRITE)
    {
        m_db.exec("BEGIN IMMEDIATE");
    }
    ~LockHolder() { release(); }
    void release()
    {
        if (m_held)
            m_db.exec("COMMIT");
        m_held = false;
    }
    SQLite::Database& db() { return m_db; }

  private:
    SQLite::Database m_db;
    bool m_held = true;
};

// Overwrites a leaf page in the middle of the messages b-tree (keeping its 8-byte header, so it still looks
// like a leaf): the damage lies where neither the run list nor a new run's rows ever look.
void corruptMiddleOfMessages(const std::string& path)
{
    const std::int64_t page =
        test::pageOf(path, "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno "
                           "LIMIT 1 OFFSET (SELECT count(*) / 2 FROM dbstat WHERE name = 'messages' AND pagetype = "
                           "'leaf')");
    ASSERT_GT(page, 10);
    ASSERT_FALSE(fs::exists(path + "-wal") && fs::file_size(path + "-wal") > 0); // every page is in the file
    test::overwritePage(path, page, 8);
}

void expectNamesFileAndFix(const InputError& e, const std::string& path, const std::string& fixPart)
{
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].file, path);
    EXPECT_TRUE(contains(e.problems()[0].fix, fixPart)) << e.what();
}

// --- Foreign files -------------------------------------------------------------------------------------------

TEST(RunStoreTrust, ForeignSqliteFilesAreLeftByteForByteUnchanged)
{
    TempDir dir;
    struct Case {
        const char* name;
        const char* sql;
    };
    const Case cases[] = {
        {"rollback.db", "CREATE TABLE customers (id INTEGER PRIMARY KEY); INSERT INTO customers VALUES (1)"},
        {"wal.db", "PRAGMA journal_mode = WAL; CREATE TABLE customers (id); INSERT INTO customers VALUES (1)"},
        {"app-id.db", "PRAGMA application_id = 1234; CREATE TABLE t (x); INSERT INTO t VALUES (1)"},
        // Our application_id, but a table no run database has: not ours either.
        {"look-alike.db", "PRAGMA application_id = 1131374675; PRAGMA user_version = 4; CREATE TABLE customers (x)"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string path = dir.file(c.name);
        {
            SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            db.exec(c.sql);
        }
        const std::string before = readBytes(path);
        try {
            RunStore store(path);
            FAIL() << "opened " << path;
        } catch (const InputError& e) {
            expectNamesFileAndFix(e, path, "--db");
            EXPECT_TRUE(contains(e.what(), "not a Coherence Studio run database")) << e.what();
        }
        EXPECT_EQ(readBytes(path), before); // header bytes 18/19 too: never switched to WAL
        for (const char* side : {"-wal", "-shm", "-journal"})
            EXPECT_FALSE(fs::exists(path + side)) << side;
    }
}

// --- Corruption ----------------------------------------------------------------------------------------------

class CorruptStore : public ::testing::Test {
  protected:
    void SetUp() override
    {
        m_path = m_dir.file("runs.db");
        {
            RunStore store(m_path);
            for (int i = 0; i < 12; ++i)
                store.completeRun(store.beginRun("run", "{}", 1), resultWithMessages(3000));
        }
        corruptMiddleOfMessages(m_path);
    }
    std::int64_t runCount()
    {
        SQLite::Database db(m_path); // the runs table is intact
        return db.execAndGet("SELECT count(*) FROM runs").getInt64();
    }

    TempDir m_dir;
    std::string m_path;
};

TEST_F(CorruptStore, NothingIsWrittenAndEveryLaterOpenSaysSo)
{
    {
        RunStore store(m_path); // the check at open covers only the run list: the damage is elsewhere
        try {
            store.beginRun("new", "{}", 1);
            FAIL() << "began a run in a corrupt database";
        } catch (const InputError& e) {
            expectNamesFileAndFix(e, m_path, "cohsim db recover");
            EXPECT_TRUE(contains(e.what(), "corrupt")) << e.what();
        }
    }
    EXPECT_EQ(runCount(), 12);
    ASSERT_TRUE(fs::exists(corruptionRecordPath(m_path)));
    try {
        RunStore store(m_path);
        FAIL() << "a corrupt database opened for writing";
    } catch (const InputError& e) {
        expectNamesFileAndFix(e, m_path, "cohsim db recover");
    }

    // What can be read still can, but writes stay refused.
    RunStoreOptions reading;
    reading.readCorrupt = true;
    RunStore store(m_path, reading);
    EXPECT_FALSE(store.corruption().empty());
    EXPECT_EQ(store.listRuns().size(), 12u);
    EXPECT_THROW(store.renameRun(1, "x"), InputError);
    EXPECT_THROW(store.deleteRun(1), InputError);
    EXPECT_FALSE(store.checkIntegrity().empty());
}

TEST_F(CorruptStore, RecoveryCopiesTheReadableRunsIntoASoundFile)
{
    const std::string fixed = m_dir.file("fixed.db");
    const RecoveryReport report = recoverRunDatabase(m_path, fixed);
    EXPECT_EQ(report.recovered.size() + report.partial.size(), 12u);
    EXPECT_GE(report.partial.size(), 1u); // the run whose messages page was damaged keeps only its row
    EXPECT_TRUE(report.lost.empty());
    RunStore store(fixed);
    EXPECT_TRUE(store.checkIntegrity().empty());
    for (const auto id : report.recovered)
        EXPECT_EQ(store.loadRun(id).messages.size(), 3000u) << id;
    for (const auto& [id, why] : report.partial)
        EXPECT_EQ(store.runInfo(id)->status, RunStatus::Failed) << id;
    // Moved into place, it replaces the corrupt file: the record of the corruption no longer applies.
    fs::rename(fixed, m_path);
    recordCorruption(m_path + ".unrelated", {}); // (a record for another file changes nothing)
    RunStore moved(m_path);
    EXPECT_NO_THROW(moved.beginRun("after recovery", "{}", 1));
}

// --- Locks ---------------------------------------------------------------------------------------------------

TEST(RunStoreTrust, LockedAtTheFinalCommitKeepsTheResultForTheNextOpen)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    const RunResult result = resultWithMessages(500);
    std::vector<std::string> waits;
    RunStoreOptions options = quickTimeout();
    options.onLockWait = [&](const std::string& message) { waits.push_back(message); };
    RunStore store(path, options);
    const auto id = store.beginRun("locked", "{}", 7);
    {
        LockHolder other(path);
        // Its process is gone by the time the lock is released: the open must not call it interrupted.
        other.db().exec("UPDATE runs SET pid = 999999999 WHERE id = " + std::to_string(id));
        const auto start = std::chrono::steady_clock::now();
        try {
            store.completeRun(id, result);
            FAIL() << "committed through another connection's lock";
        } catch (const InputError& e) {
            expectNamesFileAndFix(e, path, "fuser");
            EXPECT_TRUE(contains(e.what(), "locked by another process")) << e.what();
            EXPECT_TRUE(contains(e.what(), pendingFile(path, id))) << e.what();
        }
        EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms); // it did wait
        ASSERT_EQ(waits.size(), 1u);
        EXPECT_TRUE(contains(waits[0], path) && contains(waits[0], "waiting up to 0.2 s")) << waits[0];
        // A caller that ends the run as failed after the error must not overwrite the kept result.
        EXPECT_THROW(store.failRun(id, RunStatus::Failed, "lock"), InputError);
    }
    ASSERT_TRUE(fs::exists(pendingFile(path, id)));

    RunStore reopened(path);
    const auto info = reopened.runInfo(id);
    EXPECT_EQ(info->status, RunStatus::Completed) << info->error;
    const RunResult loaded = reopened.loadRun(id);
    ASSERT_EQ(loaded.messages.size(), 500u);
    EXPECT_EQ(loaded.messages[499].bytes, result.messages[499].bytes);
    EXPECT_EQ(loaded.requests[1].finish, 123'456'789);
    EXPECT_EQ(loaded.summary.ttftMs.p99, 3.5);
    EXPECT_FALSE(fs::exists(pendingFile(path, id)));
    ASSERT_EQ(reopened.notices().size(), 1u);
    EXPECT_TRUE(contains(reopened.notices()[0], "stored the finished run")) << reopened.notices()[0];
}

TEST(RunStoreTrust, ARunWithAKeptResultIsNotMarkedInterrupted)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("kept", "{}", 1);
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("UPDATE runs SET pid = 999999999 WHERE id = " + std::to_string(id));
    }
    // A kept result that cannot be read (yet): the run is neither completed nor called interrupted.
    fs::create_directories(pendingFolder(path));
    std::ofstream(pendingFile(path, id)) << "not a database";
    RunStore store(path);
    EXPECT_EQ(store.runInfo(id)->status, RunStatus::Running);
    ASSERT_EQ(store.notices().size(), 1u);
    EXPECT_TRUE(contains(store.notices()[0], pendingFile(path, id))) << store.notices()[0];
}

TEST(RunStoreTrust, StopWaitingEndsTheWaitAtOnce)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    RunStoreOptions options; // the 60 s default
    EXPECT_EQ(options.busyTimeout, 60s);
    int polls = 0;
    options.stopWaiting = [&] { return ++polls > 3; };
    RunStore store(path, options);
    const auto id = store.beginRun("impatient", "{}", 1);
    LockHolder other(path);
    const auto start = std::chrono::steady_clock::now();
    try {
        store.completeRun(id, resultWithMessages(10));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_TRUE(contains(e.what(), "stopped waiting")) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_TRUE(fs::exists(pendingFile(path, id)));
}

// An exclusive lock (another process in locking_mode=EXCLUSIVE) blocks even reading the schema, the first thing
// an open does: that wait is the store's like any other (its timeout, its one notice, its "stop waiting"), and
// the error says how long it lasted, not "waited 0.0 s" after five.
TEST(RunStoreTrust, AnExclusiveLockAtOpenIsWaitedForLikeAnyOtherAndTheWaitIsNamed)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    RunStore(path).beginRun("first", "{}", 1);
    SQLite::Database other(path, SQLite::OPEN_READWRITE);
    other.exec("PRAGMA locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");

    std::vector<std::string> waits;
    RunStoreOptions options = quickTimeout(300ms);
    options.onLockWait = [&](const std::string& message) { waits.push_back(message); };
    const auto start = std::chrono::steady_clock::now();
    try {
        RunStore store(path, options);
        FAIL() << "opened through another process's exclusive lock";
    } catch (const InputError& e) {
        expectNamesFileAndFix(e, path, "fuser");
        EXPECT_TRUE(contains(e.what(), "locked by another process (waited 0.3 s for it)")) << e.what();
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 4s); // its own timeout, not a fixed 5 s
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_TRUE(contains(waits[0], "waiting up to 0.3 s")) << waits[0];

    RunStoreOptions impatient; // the 60 s default, cut short by the user
    int polls = 0;
    impatient.stopWaiting = [&] { return ++polls > 3; };
    const auto again = std::chrono::steady_clock::now();
    try {
        RunStore store(path, impatient);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_TRUE(contains(e.what(), "stopped waiting for it after")) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - again, 4s);
}

TEST(RunStoreTrust, ReadingNeedsNoLockAndOpeningSkipsMaintenanceWhenLocked)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("dead", "{}", 1);
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("UPDATE runs SET pid = 999999999 WHERE id = " + std::to_string(id));
    }
    LockHolder other(path);
    RunStore store(path, quickTimeout());
    EXPECT_EQ(store.listRuns().size(), 1u);
    EXPECT_EQ(store.runInfo(id)->status, RunStatus::Running); // marked on a later open
    ASSERT_EQ(store.notices().size(), 1u);
    EXPECT_TRUE(contains(store.notices()[0], "locked by another process")) << store.notices()[0];
    try {
        store.beginRun("blocked", "{}", 1);
        FAIL();
    } catch (const InputError& e) {
        expectNamesFileAndFix(e, path, "fuser");
    }
}

} // namespace
} // namespace coh::core

// --- Through the real binary ---------------------------------------------------------------------------------

namespace coh::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using core::TempDir;

struct Exit {
    int code = -1;  // exit status, or -1 when killed by a signal
    int signal = 0; // the signal that killed it
    std::string out, err;
};

constexpr uid_t kNobody = 65534;

// Starts cohsim with `args` and extra environment entries (as `user` when given); stdout and stderr go to files
// of their own (not in the test's folder, which it may make read-only).
class Cohsim {
  public:
    explicit Cohsim(std::vector<std::string> args, std::vector<std::string> env = {},
                    std::optional<uid_t> user = std::nullopt)
        : m_out(logs().file(fmt::format("{}.out", ++s_count)))
        , m_err(logs().file(fmt::format("{}.err", s_count)))
    {
        std::vector<std::string> environment = std::move(env);
        for (char** e = environ; *e; ++e)
            environment.emplace_back(*e);
        args.insert(args.begin(), COH_COHSIM_PATH);
        std::vector<char*> argv, envp;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        for (auto& e : environment)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        m_pid = ::fork();
        if (m_pid == 0) {
            ::dup2(::open(m_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
            ::dup2(::open(m_err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
            ::signal(SIGINT, SIG_DFL);
            if (user && (::setgroups(0, nullptr) != 0 || ::setgid(*user) != 0 || ::setuid(*user) != 0))
                ::_exit(125);
            ::execve(argv[0], argv.data(), envp.data());
            ::_exit(127);
        }
    }
    pid_t pid() const { return m_pid; }
    std::string err() const { return core::readBytes(m_err); }
    Exit wait()
    {
        int status = 0;
        ::waitpid(m_pid, &status, 0);
        Exit exit;
        if (WIFEXITED(status))
            exit.code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            exit.signal = WTERMSIG(status);
        exit.out = core::readBytes(m_out);
        exit.err = err();
        return exit;
    }

  private:
    static const TempDir& logs()
    {
        static const TempDir dir;
        return dir;
    }
    static inline int s_count = 0;
    std::string m_out, m_err;
    pid_t m_pid = -1;
};

std::string scenario()
{
    return std::string(COH_DATASETS_DIR) + "/scenarios/default.json";
}

void waitFor(const std::function<bool()>& ready)
{
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (!ready() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(ready());
}

// Status of every run, through a plain read-only connection.
std::vector<std::string> statuses(const std::string& db)
{
    SQLite::Database c(db, SQLite::OPEN_READONLY);
    SQLite::Statement q(c, "SELECT status FROM runs ORDER BY id");
    std::vector<std::string> out;
    while (q.executeStep())
        out.push_back(q.getColumn(0).getString());
    return out;
}

void expectExitTwoNaming(const Exit& r, const std::string& file, const std::string& fixPart)
{
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(core::contains(r.err, file)) << r.err;
    EXPECT_TRUE(core::contains(r.err, "(fix: ")) << r.err;
    EXPECT_TRUE(core::contains(r.err, fixPart)) << r.err;
}

TEST(CliStoreTrust, CorruptDatabaseIsNamedWithItsFixByRunListAndExport)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    for (int seed = 1; seed <= 6; ++seed)
        ASSERT_EQ(Cohsim({"run", scenario(), "--db", db, "-q", "--seed", std::to_string(seed)}).wait().code, 0);
    core::corruptMiddleOfMessages(db);
    const std::string pristine = core::readBytes(db);

    // Export of a damaged run, with nothing known yet: an error naming the file and the fix, never exit 1.
    int damaged = 0;
    for (int id = 1; id <= 6; ++id) {
        const Exit r = Cohsim({"export", std::to_string(id), "--db", db}).wait();
        if (r.code != 0) {
            expectExitTwoNaming(r, db, "cohsim db recover");
            ++damaged;
        }
    }
    EXPECT_GE(damaged, 1);

    // From a fresh copy: run refuses before simulating and writes nothing.
    fs::remove(core::corruptionRecordPath(db));
    std::ofstream(db, std::ios::binary | std::ios::trunc) << pristine;
    expectExitTwoNaming(Cohsim({"run", scenario(), "--db", db}).wait(), db, "cohsim db recover");
    EXPECT_EQ(statuses(db).size(), 6u);
    // From then on every command says so at once.
    const Exit list = Cohsim({"runs", "list", "--db", db}).wait();
    expectExitTwoNaming(list, db, "cohsim db recover");
    EXPECT_TRUE(core::contains(list.out, "6 runs")) << list.out; // what could be read is still shown
    expectExitTwoNaming(Cohsim({"export", "1", "--db", db}).wait(), db, "cohsim db recover");
    expectExitTwoNaming(Cohsim({"db", "check", "--db", db}).wait(), db, "cohsim db recover");

    const std::string fixed = dir.file("fixed.db");
    const Exit recover = Cohsim({"db", "recover", "--db", db, fixed}).wait();
    ASSERT_EQ(recover.code, 0) << recover.err;
    EXPECT_TRUE(core::contains(recover.out, "copied whole")) << recover.out;
    EXPECT_EQ(Cohsim({"db", "check", "--db", fixed}).wait().code, 0);
}

TEST(CliStoreTrust, ForeignDatabaseExitsTwoAndStaysByteForByte)
{
    TempDir dir;
    const std::string other = dir.file("other.db");
    {
        SQLite::Database db(other, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x')");
    }
    const std::string before = core::readBytes(other);
    expectExitTwoNaming(Cohsim({"run", scenario(), "--db", other}).wait(), other, "--db");
    expectExitTwoNaming(Cohsim({"runs", "list", "--db", other}).wait(), other, "--db");
    EXPECT_EQ(core::readBytes(other), before);
    EXPECT_FALSE(fs::exists(other + "-wal") || fs::exists(other + "-shm"));
}

TEST(CliStoreTrust, LockHeldAtTheFinalCommitIsWaitedForThenTheResultIsKept)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    ASSERT_EQ(Cohsim({"run", scenario(), "--db", db, "-q"}).wait().code, 0);
    const std::string marker = dir.file("marker");
    Cohsim run({"run", scenario(), "--db", db, "-q"},
               {"COH_TEST_PAUSE_AT=before-commit", "COH_TEST_PAUSE_MARKER=" + marker, "COH_TEST_PAUSE_MS=300",
                "COH_DB_BUSY_TIMEOUT_MS=500"});
    waitFor([&] { return fs::exists(marker); });
    Exit r;
    {
        core::LockHolder other(db);
        r = run.wait();
    }
    expectExitTwoNaming(r, db, "fuser");
    EXPECT_TRUE(core::contains(r.err, "is locked by another process; waiting up to 0.5 s")) << r.err;
    EXPECT_TRUE(core::contains(r.err, core::pendingFile(db, 2))) << r.err;

    const Exit list = Cohsim({"runs", "list", "--db", db}).wait();
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_TRUE(core::contains(list.err, "stored the finished run 2")) << list.err;
    EXPECT_EQ(statuses(db), (std::vector<std::string>{"completed", "completed"}));

    // Locked from the start: nothing is simulated, exit 2 naming the file.
    core::LockHolder other(db);
    const Exit blocked = Cohsim({"run", scenario(), "--db", db}, {"COH_DB_BUSY_TIMEOUT_MS=200"}).wait();
    expectExitTwoNaming(blocked, db, "fuser");
}

TEST(CliStoreTrust, SigintDuringTheFinalCommitEndsCompleted)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    const std::string marker = dir.file("marker");
    Cohsim run({"run", scenario(), "--db", db, "-q", "--json"},
               {"COH_TEST_PAUSE_AT=in-commit", "COH_TEST_PAUSE_MARKER=" + marker, "COH_TEST_PAUSE_MS=1000"});
    waitFor([&] { return fs::exists(marker); });
    ::kill(run.pid(), SIGINT);
    std::this_thread::sleep_for(100ms);
    ::kill(run.pid(), SIGINT); // a second one is not a kill either
    const Exit r = run.wait();
    EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
    EXPECT_EQ(r.code, 130) << r.err;
    EXPECT_TRUE(core::contains(r.err, "run 1 is stored as completed")) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("summary").at("requests"), 300);
    EXPECT_EQ(statuses(db), (std::vector<std::string>{"completed"}));
}

TEST(CliStoreTrust, SecondSigintStopsWaitingForALockAndKeepsTheResult)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    ASSERT_EQ(Cohsim({"runs", "list", "--db", db}).wait().code, 0); // creates it
    const std::string marker = dir.file("marker");
    Cohsim run({"run", scenario(), "--db", db, "-q"},
               {"COH_TEST_PAUSE_AT=before-commit", "COH_TEST_PAUSE_MARKER=" + marker, "COH_TEST_PAUSE_MS=200"});
    waitFor([&] { return fs::exists(marker); });
    Exit r;
    {
        core::LockHolder other(db);
        waitFor([&] { return core::contains(run.err(), "is locked by another process"); });
        ::kill(run.pid(), SIGINT);
        std::this_thread::sleep_for(100ms);
        ::kill(run.pid(), SIGINT);
        r = run.wait();
    }
    expectExitTwoNaming(r, db, "fuser");
    EXPECT_TRUE(core::contains(r.err, "stopped waiting")) << r.err;
    EXPECT_TRUE(fs::exists(core::pendingFile(db, 1)));
    EXPECT_EQ(Cohsim({"runs", "list", "--db", db}).wait().code, 0);
    EXPECT_EQ(statuses(db), (std::vector<std::string>{"completed"}));
}

// Tests run as root, for whom file modes do not bite: as root, cohsim runs as `nobody` here; as anyone else,
// as the user itself (the modes below then apply to it). Skipped when neither can be arranged.
class ReadOnlyStore : public ::testing::Test {
  protected:
    void SetUp() override
    {
        m_db = m_dir.file("runs.db");
        ASSERT_EQ(Cohsim({"run", scenario(), "--db", m_db, "-q"}).wait().code, 0);
        if (::geteuid() == 0)
            m_user = kNobody;
        const Exit probe = Cohsim({"--version"}, {}, m_user).wait();
        if (probe.code != 0)
            GTEST_SKIP() << "cannot run cohsim as another user (exit " << probe.code << ")";
    }
    std::optional<uid_t> m_user;
    TempDir m_dir;
    std::string m_db;
};

TEST_F(ReadOnlyStore, ReadOnlyFileListsButRefusesARunWithExitTwo)
{
    fs::permissions(m_db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    if (!m_user)
        fs::permissions(m_dir.path(), fs::perms::owner_all); // only this user, who can write the folder
    EXPECT_EQ(Cohsim({"runs", "list", "--db", m_db}, {}, m_user).wait().code, 0);
    const Exit r = Cohsim({"run", scenario(), "--db", m_db}, {}, m_user).wait();
    expectExitTwoNaming(r, m_db, "writable");
    EXPECT_TRUE(core::contains(r.err, "read-only")) << r.err;
}

TEST_F(ReadOnlyStore, ReadOnlyFolderListsButRefusesARunWithExitTwo)
{
    if (m_user) {
        ASSERT_EQ(::chown(m_db.c_str(), *m_user, static_cast<gid_t>(-1)), 0); // the file is theirs, the folder not
    }
    fs::permissions(m_dir.path(), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    EXPECT_EQ(Cohsim({"runs", "list", "--db", m_db}, {}, m_user).wait().code, 0);
    const Exit r = Cohsim({"run", scenario(), "--db", m_db}, {}, m_user).wait();
    expectExitTwoNaming(r, m_db, "writable");
    EXPECT_TRUE(core::contains(r.err, "folder")) << r.err;
    EXPECT_FALSE(fs::exists(m_db + "-wal"));
}

} // namespace
} // namespace coh::test
