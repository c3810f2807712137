// `cohsim tune` end to end: bad study files exit 2 naming the field, --json is complete, and a study killed with
// SIGKILL half-way resumes without losing or repeating a finished point.
#include "cli_runner.h"
#include "temp_dir.h"
#include "tune_fixtures.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace coh::test {
namespace {

using nlohmann::json;

TEST(CliTune, ABadStudyExitsTwoNamingTheFileAndField)
{
    TempDir dir("coh-cli-tune");
    json study = smallStudyJson();
    study["objectives"] = {"tpot_p99"};
    const std::string path = writeStudy(dir.file("bad.json"), study);
    const auto r = runCohsim("--db " + dir.file("runs.db") + " tune " + path);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("/objectives/0"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("tpot_p99_ms"), std::string::npos) << r.output; // the fix
}

TEST(CliTune, JsonHasEveryPointTheFrontAndTheBest)
{
    TempDir dir("coh-cli-tune");
    const std::string path = writeStudy(dir.file("study.json"), smallStudyJson());
    const auto r = runCohsim("--db " + dir.file("runs.db") + " tune " + path + " --json --threads 2", Stderr::Discard);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json out = json::parse(r.output);
    EXPECT_EQ(out.at("counts").at("ran"), 6);
    EXPECT_EQ(out.at("points").size(), 6u);
    EXPECT_FALSE(out.at("front").empty());
    const auto best = out.at("best").get<std::size_t>();
    EXPECT_TRUE(out.at("points").at(best).at("feasible").get<bool>());
    EXPECT_TRUE(out.at("points").at(0).at("run_id").is_number());
    EXPECT_TRUE(out.at("points").at(0).at("metrics").contains("coherence_bytes_per_token"));
    EXPECT_EQ(out.at("sensitivity").size(), 4u); // 2 parameters × 2 objectives
}

std::int64_t scalar(const std::string& db, const std::string& sql)
{
    SQLite::Database d(db, SQLite::OPEN_READONLY);
    return d.execAndGet(sql).getInt64();
}

TEST(CliTune, AStudyKilledHalfWayResumesWithoutRepeatingAPoint)
{
    TempDir dir("coh-cli-tune");
    const std::string db = dir.file("runs.db");
    const std::string path = writeStudy(dir.file("study.json"), smallStudyJson());
    const auto started = runShell("COH_TEST_TUNE_POINT_DELAY_MS=300 " + std::string(COH_COHSIM_PATH) + " --db " + db +
                                  " tune " + path + " --threads 1 > " + dir.file("log.txt") + " 2>&1 & echo $!");
    const pid_t pid = std::stoi(started.output);
    // Wait until two points are stored, then kill it without warning.
    std::int64_t stored = 0;
    for (int i = 0; i < 400 && stored < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        try {
            stored = scalar(db, "SELECT count(*) FROM study_points");
        } catch (const std::exception&) {
            // not created yet
        }
    }
    ASSERT_GE(stored, 2);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::int64_t before = scalar(db, "SELECT count(*) FROM study_points p JOIN runs r ON r.id = p.run_id "
                                           "WHERE r.status = 'completed'");
    ASSERT_LT(before, 6);

    const auto r = runCohsim("--db " + db + " tune " + path + " --json", Stderr::Discard);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json out = json::parse(r.output);
    EXPECT_EQ(out.at("counts").at("cached"), before);
    EXPECT_EQ(out.at("counts").at("ran"), 6 - before);
    // Six points, six completed runs: none lost, none repeated.
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs WHERE status = 'completed'"), 6);
    EXPECT_EQ(scalar(db, "SELECT count(DISTINCT run_id) FROM study_points"), 6);
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM studies WHERE status = 'completed'"), 1);
}

TEST(CliTune, TwoMpiRanksGiveTheSameStudyAsOneProcess)
{
#ifndef COH_TUNE_MPI_PATH
    GTEST_SKIP() << "cohsim-tune-mpi is not built here (no Open MPI or Boost.MPI)";
#else
    TempDir dir("coh-cli-tune");
    const std::string path = writeStudy(dir.file("study.json"), smallStudyJson());
    const auto one = runCohsim("--db " + dir.file("one.db") + " tune " + path + " --json", Stderr::Discard);
    ASSERT_EQ(one.exitCode, 0) << one.output;
    // As root, Open MPI wants to be told; --oversubscribe lets two ranks share fewer cores.
    const auto mpi = runShell(std::string(COH_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " +
                              COH_TUNE_MPI_PATH + " " + path + " --db " + dir.file("mpi.db") + " --json 2>&1");
    ASSERT_EQ(mpi.exitCode, 0) << mpi.output;
    const json a = json::parse(one.output);
    const json b = json::parse(mpi.output.substr(mpi.output.find('{')));
    ASSERT_EQ(a.at("points").size(), b.at("points").size());
    for (std::size_t i = 0; i < a.at("points").size(); ++i) {
        EXPECT_EQ(a["points"][i].at("params"), b["points"][i].at("params"));
        EXPECT_EQ(a["points"][i].at("metrics"), b["points"][i].at("metrics")) << a["points"][i].at("params");
    }
    EXPECT_EQ(a.at("front"), b.at("front"));
    EXPECT_EQ(a.at("best"), b.at("best"));
    EXPECT_EQ(b.at("threads"), 1); // one worker rank
    // Rank 0 wrote every point as a completed run, and nothing else wrote.
    EXPECT_EQ(scalar(dir.file("mpi.db"), "SELECT count(*) FROM runs WHERE status = 'completed'"), 6);
    EXPECT_EQ(scalar(dir.file("mpi.db"), "SELECT count(*) FROM studies WHERE status = 'completed'"), 1);
#endif
}

} // namespace
} // namespace coh::test
