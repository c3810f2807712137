// cohsim db check | recover: the full integrity check of the run database (opening does a quicker one), and
// copying what can still be read of a corrupt one into a new file.
#include "app/cohsim/command.h"
#include "app/cohsim/output_path.h"
#include "app/cohsim/store_access.h"
#include "core/base/input_error.h"
#include "core/store/pending_results.h"
#include "core/store/run_recovery.h"
#include "core/store/store_errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

namespace coh::cli {

namespace {

constexpr int kMaxProblems = 100;

void checkDatabase(const GlobalOptions& global)
{
    const std::string path = runDatabasePath(global);
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        throw core::InputError(path, "", "there is no run database here",
                               "pass --db with the path of one (`cohsim run` makes one)");
    core::RunStoreOptions options;
    options.readCorrupt = true; // the whole point is to look at a damaged file
    auto store = openRunStore(global, options);
    const auto problems = store->checkIntegrity(kMaxProblems);
    if (problems.empty()) {
        fmt::print("{}: ok (PRAGMA integrity_check and foreign_key_check found no problem; {} runs)\n", path,
                   store->listRuns().size());
        return;
    }
    for (const auto& problem : problems)
        fmt::print("{}: {}\n", path, problem);
    std::fflush(stdout);
    throw core::InputError(path, "",
                           fmt::format("the run database is corrupt: the check found {}{} problem{}", problems.size(),
                                       problems.size() >= kMaxProblems ? " or more" : "",
                                       problems.size() == 1 ? "" : "s"),
                           core::corruptDatabaseFix(path));
}

void recoverDatabase(const GlobalOptions& global, const std::string& output)
{
    const std::string path = runDatabasePath(global);
    checkOutputPath(output, "OUTPUT"); // named as the argument it is, before anything is read
    const core::RecoveryReport report = core::recoverRunDatabase(path, output);
    for (const auto& [id, why] : report.partial)
        fmt::print("run {}: its rows are damaged ({}); kept as failed with its summary only\n", id, why);
    for (const auto& [id, why] : report.lost)
        fmt::print("run {}: lost ({})\n", id, why);
    for (const auto& [id, why] : report.figuresLost)
        fmt::print("run {}: the simulator's figures on other costs kept with it are damaged ({}); the run is kept "
                   "without them\n",
                   id, why);
    for (const std::int64_t id : report.pendingStored)
        fmt::print("run {}: its finished result, kept in {} while the database could not take it, is stored in the "
                   "copy\n",
                   id, core::pendingFolder(path));
    for (const auto& [id, why] : report.studiesLost)
        fmt::print("study {}: lost ({})\n", id, why);
    if (report.pointsWithoutRun > 0)
        fmt::print("{} study point{} lost {} run{}: running {} study again measures {} again\n",
                   report.pointsWithoutRun, report.pointsWithoutRun == 1 ? "" : "s",
                   report.pointsWithoutRun == 1 ? "its" : "their", report.pointsWithoutRun == 1 ? "" : "s",
                   report.pointsWithoutRun == 1 ? "its" : "their", report.pointsWithoutRun == 1 ? "it" : "them");
    for (const auto& [id, why] : report.pendingFailed)
        fmt::print("run {}: its finished result kept in {} could not be stored in the copy ({}); it stays there\n", id,
                   core::pendingFolder(path), why);
    const std::size_t studies = report.studiesRecovered.size();
    fmt::print("{}: {} run{} copied whole, {} with its summary only, {} lost; {} stud{} copied, {} lost.", output,
               report.recovered.size(), report.recovered.size() == 1 ? "" : "s", report.partial.size(),
               report.lost.size(), studies, studies == 1 ? "y" : "ies", report.studiesLost.size());
    // A list that broke off hides how many were lost: the copy must not be taken for the whole of the original.
    std::vector<std::string> damagedLists;
    if (!report.runsTableError.empty())
        damagedLists.push_back(fmt::format("the list of runs ({})", report.runsTableError));
    if (!report.studiesTableError.empty())
        damagedLists.push_back(fmt::format("the list of studies ({})", report.studiesTableError));
    if (!damagedLists.empty()) {
        fmt::print(" Damaged: {}; what lay on its damaged pages could not be found, so how much was lost is not known. "
                   "Keep {}; check the copy with `cohsim db check --db {}` before you use it.\n",
                   fmt::join(damagedLists, "; "), path, output);
        return;
    }
    fmt::print(" Check it with `cohsim db check --db {}`, then move it to {}.\n", output, path);
}

} // namespace

static const bool registered = registerCommand("db", [](CLI::App& app, GlobalOptions& global) {
    auto* db = app.add_subcommand("db", "Look after the run database");
    db->require_subcommand(1);
    auto* check = db->add_subcommand("check", "Check every page of the run database (exit 0: sound, 2: corrupt)");
    check->callback([&global] { checkDatabase(global); });
    auto output = std::make_shared<std::string>();
    auto* recover = db->add_subcommand("recover", "Copy every run that can still be read into a new database file");
    recover->add_option("OUTPUT", *output, "The new database file (must not exist)")->required();
    recover->callback([&global, output] { recoverDatabase(global, *output); });
});

} // namespace coh::cli
