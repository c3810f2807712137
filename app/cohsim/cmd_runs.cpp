// cohsim runs list|show|rename|delete: browse the run database.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h"
#include "app/cohsim/terminal_text.h"
#include "core/store/run_serialization.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace coh::cli {

namespace {

struct RunsOptions {
    bool json = false;
    std::string id;
    std::string name;
};

std::string readableTime(std::string iso)
{
    std::replace(iso.begin(), iso.end(), 'T', ' ');
    if (!iso.empty() && iso.back() == 'Z')
        iso.pop_back();
    return iso;
}

std::string shortened(const std::string& text, std::size_t width)
{
    return text.size() <= width ? text : text.substr(0, width - 1) + "~";
}

// Listing and showing read what can still be read of a corrupt database, then exit 2 naming it and the fix.
core::RunStoreOptions readingCorrupt()
{
    core::RunStoreOptions options;
    options.readCorrupt = true;
    return options;
}

void listRuns(const GlobalOptions& global, const RunsOptions& options)
{
    auto store = openRunStore(global, readingCorrupt());
    const auto runs = store->listRuns();
    if (options.json) {
        auto array = nlohmann::ordered_json::array();
        for (const auto& run : runs)
            array.push_back(core::toJson(run));
        fmt::print("{}\n", array.dump(2));
        std::fflush(stdout);
        throwIfCorrupt(*store);
        return;
    }
    if (runs.empty() && store->corruption().empty()) {
        fmt::print("No runs in {} yet: `cohsim run SCENARIO` makes one.\n", store->path());
        return;
    }
    std::vector<std::vector<std::string>> rows = {{"ID", "NAME", "STATUS", "BACKEND", "CREATED (UTC)", "REQUESTS",
                                                   "TTFT P50", "TTFT P99", "TPOT P50", "TPOT P99", "TOK/S"}};
    for (const auto& r : runs) {
        const bool s = r.hasSummary;
        rows.push_back({std::to_string(r.id), shortened(terminalSafe(r.name), 32), core::toString(r.status), r.backend,
                        readableTime(r.createdAt), s ? std::to_string(r.requests) : "-", number(r.ttftP50Ms, s),
                        number(r.ttftP99Ms, s), number(r.tpotP50Ms, s), number(r.tpotP99Ms, s),
                        number(r.throughputTokensPerSec, s)});
    }
    printTable(rows, 5);
    fmt::print("(times in ms; {} run{} in {})\n", runs.size(), runs.size() == 1 ? "" : "s", store->path());
    std::fflush(stdout); // the table first, then the error about it on stderr
    throwIfCorrupt(*store);
}

void showRun(const GlobalOptions& global, const RunsOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    auto store = openRunStore(global, readingCorrupt());
    const auto info = store->runInfo(id);
    if (!info)
        throwUnknownRun(*store, id);
    const auto summary = store->runSummary(id);
    const std::vector<core::CostVariant> variants = store->costVariants(id);
    if (options.json) {
        nlohmann::ordered_json out = {{"run", core::toJson(*info)},
                                      {"summary", summary ? core::toJson(*summary) : nlohmann::ordered_json()}};
        // What compare-real kept with the run, as `export --format json` gives it.
        if (!variants.empty())
            out["cost_variants"] = core::toJson(variants);
        fmt::print("{}\n", out.dump(2));
        std::fflush(stdout);
        throwIfCorrupt(*store);
        return;
    }
    fmt::print("Run {}: {}\n", info->id, terminalSafe(info->name));
    fmt::print("  status          {}\n", core::toString(info->status));
    if (!info->error.empty())
        fmt::print("  error           {}\n", info->error);
    fmt::print("  scenario        {} (seed {})\n", info->scenarioName.empty() ? "-" : terminalSafe(info->scenarioName),
               info->seed);
    fmt::print("  backend         {} (Coherence Studio {})\n", info->backend, info->version);
    if (info->modelsRun != 0)
        fmt::print("  models          real run {} (its simulator's error: cohsim report {})\n", info->modelsRun, id);
    for (const std::int64_t model : store->modelsOf(id))
        fmt::print("  modelled by     simulated run {} (cohsim report {})\n", model, id);
    // What compare-real kept with the run: the simulator on the real run's own costs, or the model's costs moved.
    for (const core::CostVariant& v : variants) {
        const std::string figures =
            fmt::format("TTFT p50 {:.3f} ms, TPOT p50 {:.3f} ms", v.summary.ttftMs.p50, v.summary.tpotMs.p50);
        if (v.kind == core::CostVariant::Kind::OwnCosts)
            fmt::print("  on own costs    the simulator gave {} (compare-real's ON OWN COSTS)\n", figures);
        else
            fmt::print("  costs x {:<6g}  the simulator gave {} (compare-real's AT COSTS)\n", v.factor, figures);
    }
    fmt::print("  created         {} UTC\n", readableTime(info->createdAt));
    if (!info->finishedAt.empty())
        fmt::print("  finished        {} UTC\n", readableTime(info->finishedAt));
    fmt::print("  process         pid {} on {}\n", info->pid, info->host.empty() ? "?" : info->host);
    if (summary) {
        printRunSummary(*summary);
        const auto blocks = store->nodeBlocks(id);
        printNodeBlocks(blocks.series, blocks.nodeIds, summary->makespan, blocks.linkInterval);
    }
    std::fflush(stdout);
    throwIfCorrupt(*store);
}

void renameRun(const GlobalOptions& global, const RunsOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    checkRunName(options.name, "NAME");
    auto store = openRunStore(global);
    if (!store->renameRun(id, options.name))
        throwUnknownRun(*store, id);
    if (!global.quiet)
        fmt::print("Renamed run {} to {}\n", id, options.name);
}

void deleteRun(const GlobalOptions& global, const RunsOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    auto store = openRunStore(global);
    if (!store->deleteRun(id))
        throwUnknownRun(*store, id);
    if (!global.quiet)
        fmt::print("Deleted run {}\n", id);
}

} // namespace

static const bool registered = registerCommand("runs", [](CLI::App& app, GlobalOptions& global) {
    auto* runs = app.add_subcommand("runs", "List, show, rename and delete stored runs");
    runs->require_subcommand(1);
    auto options = std::make_shared<RunsOptions>();

    auto* list = runs->add_subcommand("list", "List stored runs, newest first");
    list->add_flag("--json", options->json, "Print JSON instead of a table");
    list->callback([&global, options] { listRuns(global, *options); });

    auto* show = runs->add_subcommand("show", "Show a run's metadata and full summary");
    show->add_option("ID", options->id, "Run id (see `cohsim runs list`)")->required();
    show->add_flag("--json", options->json, "Print JSON instead of text");
    show->callback([&global, options] { showRun(global, *options); });

    auto* rename = runs->add_subcommand("rename", "Give a run another name");
    rename->add_option("ID", options->id, "Run id")->required();
    rename->add_option("NAME", options->name, "New name")->required();
    rename->callback([&global, options] { renameRun(global, *options); });

    auto* remove = runs->add_subcommand("delete", "Delete a run and everything stored with it");
    remove->add_option("ID", options->id, "Run id")->required();
    remove->callback([&global, options] { deleteRun(global, *options); });
});

} // namespace coh::cli
