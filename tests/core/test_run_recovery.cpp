// `cohsim db recover` copies everything that can still be read, mends what an edit broke rather than dropping the
// run, brings the studies and the results that waited beside the file, and a recovery that cannot finish (a full
// disk, a list of runs that cannot be read) says so and leaves no file that could be taken for a copy.
#include "cli_runner.h"
#include "core/base/input_error.h"
#include "core/store/corruption_record.h"
#include "core/store/pending_results.h"
#include "core/store/run_recovery.h"
#include "core/store/run_store.h"
#include "db_damage.h"
#include "stored_run_fixtures.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>

namespace coh::test {
namespace {

namespace fs = std::filesystem;
using namespace coh::core;

std::int64_t storeRun(RunStore& store, const std::string& name, std::uint32_t messages = 10)
{
    const std::int64_t id = store.beginRun(name, "{}", 7);
    store.completeRun(id, resultWithMessages(messages));
    return id;
}

// Edits a closed file as a user (or a damaged disk) could: no constraint is checked.
void edit(const std::string& path, const std::string& sql)
{
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("PRAGMA ignore_check_constraints = ON");
    db.exec(sql);
}

std::string bytesOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(RunRecovery, KeepsARunWhoseStatusOrLinkWasEditedAndTheLinksThatHold)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        storeRun(store, "real");       // 1
        storeRun(store, "edited");     // 2
        storeRun(store, "models one"); // 3
        store.setModelsRun(3, 1);
    }
    edit(path, "UPDATE runs SET status = 'bogus' WHERE id = 2; UPDATE runs SET models_run = 999 WHERE id = 1");
    const std::string copy = dir.file("copy.db");
    const RecoveryReport report = recoverRunDatabase(path, copy);
    EXPECT_EQ(report.recovered, (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_TRUE(report.lost.empty());
    RunStore recovered(copy);
    EXPECT_TRUE(recovered.checkIntegrity().empty());
    // A status no run has is kept as failed, saying why; its rows come whole.
    EXPECT_EQ(recovered.runInfo(2)->status, RunStatus::Failed);
    EXPECT_NE(recovered.runInfo(2)->error.find("was not one a run has"), std::string::npos);
    EXPECT_EQ(recovered.loadRun(2).messages.size(), 10u);
    // A link to a run that is not there goes; one to a run that is stays.
    EXPECT_EQ(recovered.runInfo(1)->modelsRun, 0);
    EXPECT_EQ(recovered.runInfo(3)->modelsRun, 1);
}

TEST(RunRecovery, CopiesTheStudiesAndUnlinksAPointWhoseRunWasNotCopied)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    std::int64_t study = 0;
    {
        RunStore store(path);
        study = store.openStudy("sweep", "hash-1", R"({"name": "sweep"})");
        for (int i = 0; i < 3; ++i) {
            StudyPoint point;
            point.key = fmt::format("point-{}", i);
            point.paramsJson = fmt::format(R"({{"/serving/decode_max_batch_size": {}}})", 8 << i);
            store.storeStudyRun(study, point, point.key, "{}", 7, resultWithMessages(5));
        }
        StudyPoint invalid;
        invalid.key = "point-invalid";
        invalid.paramsJson = "{}";
        invalid.error = "the scenario is invalid";
        invalid.errorKind = StudyPointError::Invalid;
        store.recordStudyPoint(study, invalid);
        store.endStudy(study, RunStatus::Completed);
    }
    edit(path, "UPDATE study_points SET run_id = 999 WHERE point_key = 'point-1'");
    const std::string copy = dir.file("copy.db");
    const RecoveryReport report = recoverRunDatabase(path, copy);
    EXPECT_EQ(report.studiesRecovered, std::vector<std::int64_t>{study});
    EXPECT_TRUE(report.studiesLost.empty());
    EXPECT_EQ(report.pointsWithoutRun, 1u);
    RunStore recovered(copy);
    EXPECT_TRUE(recovered.checkIntegrity().empty());
    ASSERT_TRUE(recovered.studyInfo(study));
    EXPECT_EQ(recovered.studyInfo(study)->status, RunStatus::Completed);
    const auto points = recovered.studyPoints(study);
    ASSERT_EQ(points.size(), 4u);
    int withRun = 0;
    for (const StudyPoint& p : points) {
        if (p.key == "point-1" || p.key == "point-invalid") {
            EXPECT_FALSE(p.runId) << p.key;
        } else {
            EXPECT_TRUE(p.runId && recovered.runInfo(*p.runId)) << p.key;
        }
        withRun += p.runId ? 1 : 0;
        if (p.key == "point-invalid") {
            EXPECT_EQ(p.errorKind, StudyPointError::Invalid);
        }
        if (p.key == "point-1") { // a failed point, which the study measures again, saying why
            EXPECT_EQ(p.errorKind, StudyPointError::Failed);
            EXPECT_NE(p.error.find("could not be recovered"), std::string::npos) << p.error;
        }
    }
    EXPECT_EQ(withRun, 2);
    // Its completed points are found again, so running the study again measures only the unlinked one.
    EXPECT_TRUE(recovered.finishedStudyPoint("point-0"));
    EXPECT_FALSE(recovered.finishedStudyPoint("point-1"));
}

TEST(RunRecovery, StoresAFinishedResultThatWaitedBesideTheFile)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    std::int64_t waiting = 0;
    {
        RunStore store(path);
        storeRun(store, "done");
        waiting = store.beginRun("finished while the file was locked", "{}", 7);
    }
    savePendingResult(path, waiting, resultWithMessages(42));
    const std::string copy = dir.file("copy.db");
    const RecoveryReport report = recoverRunDatabase(path, copy);
    EXPECT_EQ(report.pendingStored, std::vector<std::int64_t>{waiting});
    // The copy holds it whole, whatever name it is used under; the original still has its file.
    EXPECT_TRUE(fs::exists(pendingFile(path, waiting)));
    RunStore recovered(copy);
    EXPECT_EQ(recovered.runInfo(waiting)->status, RunStatus::Completed);
    EXPECT_EQ(recovered.loadRun(waiting).messages.size(), 42u);
}

TEST(RunRecovery, AListOfRunsThatCannotBeReadIsRefusedWithNothingLeftBehind)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        for (int i = 0; i < 3; ++i)
            storeRun(store, fmt::format("run {}", i));
    }
    overwritePage(path, pageOf(path, "SELECT rootpage FROM sqlite_schema WHERE name = 'runs'"));
    const std::string copy = dir.file("copy.db");
    try {
        recoverRunDatabase(path, copy);
        FAIL() << "recovered from a file whose runs cannot be listed";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(std::string(e.what()).find("not one run can be listed"), std::string::npos) << e.what();
        EXPECT_NE(e.problems()[0].fix.find("backup"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(copy));
    EXPECT_FALSE(fs::exists(copy + "-wal"));
}

TEST(RunRecovery, AFailedWriteEndsItNamingTheCopyAndLeavesNothingBehind)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        for (int i = 0; i < 3; ++i)
            storeRun(store, fmt::format("run {}", i), 30'000); // about a megabyte each
    }
    const std::string before = bytesOf(path);
    const std::string copy = dir.file("copy.db");
    // Files of this process may grow to 512 KiB (ulimit -f counts 512-byte blocks): the schema fits, a run does not.
    // A write past it fails (EFBIG) rather than killing cohsim (SIGXFSZ ignored), as a full disk's would.
    const CliResult r = runShell(
        fmt::format("ulimit -f 1024; trap '' XFSZ; {} --db {} db recover {} 2>&1", COH_COHSIM_PATH, path, copy));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(copy), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cannot write the recovered database"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("was not changed"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("copied whole"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(copy));
    EXPECT_FALSE(fs::exists(copy + "-wal"));
    EXPECT_EQ(bytesOf(path), before);
    // Without the limit the same command copies every run.
    const CliResult whole = runShell(fmt::format("{} --db {} db recover {} 2>&1", COH_COHSIM_PATH, path, copy));
    EXPECT_EQ(whole.exitCode, 0) << whole.output;
    EXPECT_NE(whole.output.find("3 runs copied whole, 0 with its summary only, 0 lost; 0 studies copied, 0 lost."),
              std::string::npos)
        << whole.output;
}

TEST(RunStoreDamage, AValueOfTheWrongShapeCostsOnlyItsRun)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        storeRun(store, "sound");
        storeRun(store, "edited");
    }
    edit(path, "UPDATE runs SET summary_json = '[1, 2]' WHERE id = 2");
    RunStore store(path);
    try {
        store.loadRun(2);
        FAIL() << "read a summary that is an array";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cannot read run 2"), std::string::npos) << what;
        EXPECT_NE(what.find("damaged"), std::string::npos) << what;
        EXPECT_EQ(what.find("json.exception"), std::string::npos) << what; // the library's words are not the user's
        EXPECT_NE(e.problems()[0].fix.find("cohsim runs delete"), std::string::npos) << what;
    }
    // The file is sound: it is not marked corrupt, the other run reads, a new run is stored, and the damaged one
    // can be deleted.
    EXPECT_FALSE(fs::exists(corruptionRecordPath(path)));
    EXPECT_EQ(store.loadRun(1).messages.size(), 10u);
    EXPECT_NO_THROW(storeRun(store, "after"));
    EXPECT_TRUE(store.deleteRun(2));
    RunStore reopened(path);
    EXPECT_EQ(reopened.listRuns().size(), 2u);
}

TEST(RunStoreDamage, APipeOrAnEmptyPathIsRefusedNotWaitedOnOrTakenForTheDefault)
{
    TempDir dir("coh-recover");
    const std::string fifo = dir.file("runs.db");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // A FIFO blocks its reader until someone writes: without the check this waits for the timeout (124).
    const CliResult r = runShell(fmt::format("timeout 20 {} --db {} runs list 2>&1", COH_COHSIM_PATH, fifo));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(fifo + ": this is not a regular file"), std::string::npos) << r.output;
    EXPECT_THROW(RunStore{fifo}, InputError);
    // An empty --db (a script's unset variable) is an error, not the user's own store.
    const CliResult empty = runShell(fmt::format("{} --db '' runs list 2>&1", COH_COHSIM_PATH));
    EXPECT_EQ(empty.exitCode, 2) << empty.output;
    EXPECT_NE(empty.output.find("--db: the path is empty"), std::string::npos) << empty.output;
    // A path through a file is not a missing folder; db recover's OUTPUT is named as the argument it is.
    const std::string aFile = dir.file("plain");
    std::ofstream(aFile) << "x";
    const CliResult through = runShell(fmt::format("{} --db {}/x.db runs list 2>&1", COH_COHSIM_PATH, aFile));
    EXPECT_EQ(through.exitCode, 2) << through.output;
    EXPECT_NE(through.output.find(aFile + " is a file, not a folder"), std::string::npos) << through.output;
    const CliResult into = runShell(
        fmt::format("{} --db {} db recover {}/no/r.db 2>&1", COH_COHSIM_PATH, dir.file("runs2.db"), dir.file("")));
    EXPECT_EQ(into.exitCode, 2) << into.output;
    EXPECT_NE(into.output.find("OUTPUT: its folder"), std::string::npos) << into.output;
    EXPECT_EQ(into.output.find("pass --db"), std::string::npos) << into.output;
}

TEST(RunStoreDamage, AResultNeitherTheDatabaseNorItsSideFileCanTakeIsFailedSayingSoWithNothingLeftBehind)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        storeRun(store, "small");
    }
    // Files may grow to 512 KiB: the finished run's 30,000 messages fit neither the database nor a pending file.
    const CliResult r = runShell(fmt::format("ulimit -f 1024; trap '' XFSZ; {} --db {} run {}/scenarios/default.json "
                                             "--max-requests 200 -q 2>&1",
                                             COH_COHSIM_PATH, path, COH_DATASETS_DIR));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("failed too"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("it is lost"), std::string::npos) << r.output;
    // Its row says what happened (not "interrupted": its process did not end early), and no half-written side file
    // or empty folder is left holding space.
    RunStore store(path);
    const auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs.front().status, RunStatus::Failed);
    EXPECT_NE(runs.front().error.find("the result is lost"), std::string::npos) << runs.front().error;
    EXPECT_FALSE(fs::exists(pendingFolder(path)));
}

TEST(RunStoreDamage, AFileTooDamagedToListItsTablesOrWithAnEditedVersionSaysSoWithAFixThatWorks)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        for (int i = 0; i < 3; ++i)
            storeRun(store, fmt::format("run {}", i), 2000);
    }
    { // closing a read-write connection checkpoints the WAL into the file
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
    }
    // Its first pages only: the list of tables points past the end. db check and db recover need that list too, so
    // they are not the fix.
    const std::string cut = dir.file("cut.db");
    {
        std::ifstream in(path, std::ios::binary);
        std::string head(5 * 4096, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        std::ofstream(cut, std::ios::binary) << head;
    }
    for (const char* command : {"runs list", "db check", "db recover " /* OUT below */}) {
        std::string args = std::string(command) + " --db " + cut;
        if (std::string(command).starts_with("db recover"))
            args = "db recover --db " + cut + " " + dir.file("out.db");
        const CliResult r = runCohsim(args);
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("too damaged to read"), std::string::npos) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("restore " + cut + " from a backup"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("fix: see what is damaged with `cohsim db check"), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(dir.file("out.db")));

    // Our application id, but a version no build writes, or another version's tables: an edited header, not
    // "another application's file".
    for (const auto& [version, says] : std::vector<std::pair<int, std::string>>{
             {-1, "schema version is -1, which no Coherence Studio writes"},
             {3, "says it has schema version 3, but it has the table 'node_blocks' of a later version"}}) {
        const std::string edited = dir.file(fmt::format("v{}.db", version));
        fs::copy_file(path, edited);
        {
            SQLite::Database db(edited, SQLite::OPEN_READWRITE);
            db.exec(fmt::format("PRAGMA user_version = {}", version));
        }
        try {
            RunStore store(edited);
            ADD_FAILURE() << "opened a file whose header says version " << version;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find("not a Coherence Studio run database"), std::string::npos) << e.what();
        }
    }
}

TEST(RunStoreDamage, OneDamagedRowOfTheRunListCostsOnlyThatRow)
{
    TempDir dir("coh-recover");
    const std::string path = dir.file("runs.db");
    const std::string longScenario = fmt::format(R"({{"name": "long", "notes": "{}"}})", std::string(40'000, 'x'));
    {
        RunStore store(path);
        for (int i = 0; i < 3; ++i)
            store.completeRun(store.beginRun(fmt::format("run {}", i), longScenario, 7), resultWithMessages(5));
    }
    // The rows spill their scenarios onto overflow pages; one of the middle row's lies halfway through them.
    const std::int64_t page =
        pageOf(path, "SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'overflow' ORDER BY pageno LIMIT 1 "
                     "OFFSET (SELECT count(*) / 2 FROM dbstat WHERE name = 'runs' AND pagetype = 'overflow')");
    ASSERT_GT(page, 1);
    overwritePage(path, page);
    RunStoreOptions reading;
    reading.readCorrupt = true;
    RunStore store(path, reading);
    const std::vector<RunInfo> runs = store.listRuns();
    ASSERT_EQ(runs.size(), 3u); // the whole list used to fail
    int damaged = 0;
    for (const RunInfo& r : runs) {
        if (r.name == "(damaged)") {
            ++damaged;
            EXPECT_EQ(r.status, RunStatus::Failed);
            EXPECT_NE(r.error.find("cohsim db recover"), std::string::npos) << r.error;
        } else {
            EXPECT_EQ(r.name, fmt::format("run {}", r.id - 1));
            EXPECT_EQ(r.status, RunStatus::Completed);
        }
    }
    EXPECT_EQ(damaged, 1);
    EXPECT_FALSE(store.corruption().empty()); // and the store knows it is corrupt
}

} // namespace
} // namespace coh::test
