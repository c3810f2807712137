// Where cohsim writes a file (-o): a path it cannot write is refused before the work that would fill it (a
// calibration measured for a minute, an export), naming the path and why, and nothing is left behind.
#include "cli_runner.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

namespace coh::test {
namespace {

namespace fs = std::filesystem;

TEST(CliOutputPaths, APathThatCannotBeWrittenIsRefusedBeforeTheWork)
{
    TempDir dir("coh-output");
    const std::string missing = dir.file("no/such/folder/out.json");
    const std::string aFile = dir.file("plain");
    std::ofstream(aFile) << "x";

    // calibrate refuses at once, rather than after measuring.
    const CliResult calibrate = runCohsim("calibrate -o " + missing);
    EXPECT_EQ(calibrate.exitCode, 2) << calibrate.output;
    EXPECT_NE(calibrate.output.find("-o: its folder '" + dir.file("no/such/folder") + "' does not exist"),
              std::string::npos)
        << calibrate.output;
    EXPECT_EQ(calibrate.output.find("copies"), std::string::npos) << "it measured first:\n" << calibrate.output;
    const CliResult throughAFile = runCohsim("calibrate -o " + aFile + "/p.json");
    EXPECT_EQ(throughAFile.exitCode, 2) << throughAFile.output;
    EXPECT_NE(throughAFile.output.find("is a file, not a folder"), std::string::npos) << throughAFile.output;
    const CliResult aFolder = runCohsim("calibrate -o " + dir.file(""));
    EXPECT_EQ(aFolder.exitCode, 2) << aFolder.output;
    EXPECT_NE(aFolder.output.find("this is a folder, not a file to write"), std::string::npos) << aFolder.output;
    // An empty path is refused as one, not taken as none (which printed the profile and wrote nothing); a named pipe,
    // whose writing waits for a reader after all the work, is refused too.
    const CliResult empty = runCohsim("calibrate -o ''");
    EXPECT_EQ(empty.exitCode, 2) << empty.output;
    EXPECT_NE(empty.output.find("-o: the path is empty"), std::string::npos) << empty.output;
    const std::string fifo = dir.file("profile.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const CliResult pipe = runCohsim("calibrate -o " + fifo);
    EXPECT_EQ(pipe.exitCode, 2) << pipe.output;
    EXPECT_NE(pipe.output.find("this is a named pipe"), std::string::npos) << pipe.output;
    // compare-real's --profile: empty is refused, not a fresh calibration.
    const CliResult noProfile =
        runCohsim("compare-real " + std::string(COH_DATASETS_DIR) + "/scenarios/default.json --no-store --profile ''");
    EXPECT_EQ(noProfile.exitCode, 2) << noProfile.output;
    EXPECT_NE(noProfile.output.find("--profile: the path is empty"), std::string::npos) << noProfile.output;

    // export: the same words, and no file.
    const std::string db = " --db " + dir.file("runs.db");
    ASSERT_EQ(
        runCohsim("run " + std::string(COH_DATASETS_DIR) + "/scenarios/default.json --max-requests 2 -q" + db).exitCode,
        0);
    const CliResult exported = runCohsim("export 1 -o " + missing + db);
    EXPECT_EQ(exported.exitCode, 2) << exported.output;
    EXPECT_NE(exported.output.find("does not exist"), std::string::npos) << exported.output;
    EXPECT_FALSE(fs::exists(dir.file("no")));
    const CliResult written = runCohsim("export 1 -o " + dir.file("run.json") + db);
    EXPECT_EQ(written.exitCode, 0) << written.output;
    EXPECT_GT(fs::file_size(dir.file("run.json")), 0u);

    // A report tool named by COH_REPORT_TOOL that is not there is named, exit 2 (it was the child's 127).
    const CliResult tool = runShell("COH_REPORT_TOOL=" + dir.file("no-tool") + " " + COH_COHSIM_PATH + " report 1 -o " +
                                    dir.file("r.html") + db + " 2>&1");
    EXPECT_EQ(tool.exitCode, 2) << tool.output;
    EXPECT_NE(tool.output.find("COH_REPORT_TOOL: there is no program to run here"), std::string::npos) << tool.output;
}

// A profile that a full disk cannot take (a small file shows that only when it is flushed) fails with the reason, and
// the measurement is printed on standard output rather than lost.
TEST(CliOutputPaths, AProfileAFullDiskCannotTakeIsPrintedInstead)
{
    if (!fs::exists("/dev/full"))
        GTEST_SKIP() << "no /dev/full here";
    const CliResult full = runCohsim("calibrate --rounds 1 -o /dev/full");
    EXPECT_EQ(full.exitCode, 2) << full.output;
    EXPECT_NE(full.output.find("cannot write the profile there (No space left on device); it is printed on standard "
                               "output instead"),
              std::string::npos)
        << full.output;
    EXPECT_NE(full.output.find("\"profile\": \"real-cpu\""), std::string::npos) << full.output;
}

} // namespace
} // namespace coh::test
