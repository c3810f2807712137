// A run's name on a terminal: a stored name's control characters are printed as \xNN (a newline no longer breaks
// `runs list`'s table, an escape no longer recolours the terminal), and a new name may not be empty or hold one.
#include "cli_runner.h"
#include "core/store/run_store.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <string>

namespace coh::test {
namespace {

TEST(CliRunNames, StoredControlCharactersArePrintedVisiblyAndNewNamesRefuseThem)
{
    TempDir dir("coh-names");
    const std::string db = dir.file("runs.db");
    {
        core::RunStore store(db);
        const auto id = store.beginRun("plain", "{}", 7);
        store.completeRun(id, core::RunResult{});
    }
    {
        SQLite::Database edit(db, SQLite::OPEN_READWRITE);
        edit.exec("UPDATE runs SET name = 'a' || char(10) || char(27) || '[31mred' WHERE id = 1");
    }
    const std::string dbArg = " --db " + db;
    const CliResult list = runCohsim("runs list" + dbArg);
    ASSERT_EQ(list.exitCode, 0) << list.output;
    EXPECT_NE(list.output.find("a\\x0a\\x1b[31mred"), std::string::npos) << list.output;
    EXPECT_EQ(list.output.find('\x1b'), std::string::npos) << list.output;
    const CliResult show = runCohsim("runs show 1" + dbArg);
    ASSERT_EQ(show.exitCode, 0) << show.output;
    EXPECT_NE(show.output.find("Run 1: a\\x0a\\x1b[31mred\n"), std::string::npos) << show.output;

    const CliResult empty = runCohsim("runs rename 1 ''" + dbArg);
    EXPECT_EQ(empty.exitCode, 2) << empty.output;
    EXPECT_NE(empty.output.find("a run's name may not be empty"), std::string::npos) << empty.output;
    // popen's shell is sh, which has no $'...': printf writes the control characters.
    const CliResult tab = runCohsim("runs rename 1 \"$(printf 'a\\tb')\"" + dbArg);
    EXPECT_EQ(tab.exitCode, 2) << tab.output;
    EXPECT_NE(tab.output.find("holds a control character (\\x09)"), std::string::npos) << tab.output;
    const CliResult named = runCohsim("run " + std::string(COH_DATASETS_DIR) +
                                      "/scenarios/default.json --max-requests 2 --name \"$(printf 'x\\ny')\"" + dbArg);
    EXPECT_EQ(named.exitCode, 2) << named.output;
    EXPECT_NE(named.output.find("--name: 'x\\x0ay' holds a control character"), std::string::npos) << named.output;
    // Any script is a name.
    const CliResult fine = runCohsim("runs rename 1 'décodage · 解码'" + dbArg);
    EXPECT_EQ(fine.exitCode, 0) << fine.output;
}

} // namespace
} // namespace coh::test
