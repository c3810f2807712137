// cohsim runs list|show|rename|delete: browse the run database.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "core/store/run_serialization.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace coh::cli {

namespace {

struct RunsOptions {
    bool json = false;
    std::string id;
    std::string name;
};

// A table cell: one decimal for everyday magnitudes, three below 1 so sub-millisecond times still show;
// "-" where there is no value yet.
std::string number(double v, bool present = true)
{
    if (!present || std::isnan(v))
        return "-";
    const double a = std::fabs(v);
    if (a >= 1000 || a == 0)
        return fmt::format("{:.0f}", v);
    return a >= 1 ? fmt::format("{:.1f}", v) : fmt::format("{:.3f}", v);
}

// Large quantities with a decimal prefix: scaled(1.25e10, "B") is "12.5 GB", scaled(1.48e6, "") is "1.48 M".
std::string scaled(double v, const char* unit)
{
    static constexpr std::pair<double, const char*> kPrefixes[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    std::string text = fmt::format("{:.3g} {}", v, unit);
    for (const auto& [factor, prefix] : kPrefixes) {
        if (std::fabs(v) >= factor) {
            text = fmt::format("{:.3g} {}{}", v / factor, prefix, unit);
            break;
        }
    }
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

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

void printTable(const std::vector<std::vector<std::string>>& rows, std::size_t leftAligned)
{
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c > 0)
                line += "  ";
            line +=
                c < leftAligned ? fmt::format("{:<{}}", row[c], widths[c]) : fmt::format("{:>{}}", row[c], widths[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        fmt::print("{}\n", line);
    }
}

void listRuns(const GlobalOptions& global, const RunsOptions& options)
{
    auto store = openRunStore(global);
    const auto runs = store->listRuns();
    if (options.json) {
        auto array = nlohmann::ordered_json::array();
        for (const auto& run : runs)
            array.push_back(core::toJson(run));
        fmt::print("{}\n", array.dump(2));
        return;
    }
    if (runs.empty()) {
        fmt::print("No runs in {} yet: `cohsim run SCENARIO` makes one.\n", store->path());
        return;
    }
    std::vector<std::vector<std::string>> rows = {
        {"ID", "NAME", "STATUS", "CREATED (UTC)", "REQUESTS", "TTFT P50", "TTFT P99", "TPOT P50", "TPOT P99", "TOK/S"}};
    for (const auto& r : runs) {
        const bool s = r.hasSummary;
        rows.push_back({std::to_string(r.id), shortened(r.name, 32), core::toString(r.status),
                        readableTime(r.createdAt), s ? std::to_string(r.requests) : "-", number(r.ttftP50Ms, s),
                        number(r.ttftP99Ms, s), number(r.tpotP50Ms, s), number(r.tpotP99Ms, s),
                        number(r.throughputTokensPerSec, s)});
    }
    printTable(rows, 4);
    fmt::print("(times in ms; {} run{} in {})\n", runs.size(), runs.size() == 1 ? "" : "s", store->path());
}

void printSummary(const core::RunSummary& s)
{
    fmt::print("\nSummary\n");
    fmt::print("  requests        {} ({} completed), {} output tokens, makespan {} s\n", s.requests, s.completed,
               s.outputTokens, number(core::toSeconds(s.makespan)));
    fmt::print("  throughput      {} tok/s, {} req/s\n", number(s.throughputTokensPerSec),
               number(s.throughputRequestsPerSec));
    fmt::print("  goodput         {} req/s, SLO attainment {}%\n", number(s.goodputRequestsPerSec),
               number(100 * s.sloAttainment));
    fmt::print("  KV transfers    {} ({}), {} messages\n", s.kvTransfers, scaled(s.kvBytes, "B"), s.messages);
    fmt::print("  simulation      {} events in {} s ({} events/s)\n\n", s.eventsExecuted, number(s.wallSeconds),
               scaled(s.eventsPerSecond, ""));

    const std::pair<const char*, const core::Distribution*> distributions[] = {
        {"TTFT", &s.ttftMs},
        {"TPOT", &s.tpotMs},
        {"end to end", &s.e2eMs},
        {"inter-token", &s.itlMs},
        {"  queue", &s.queueMs},
        {"  prefill", &s.prefillMs},
        {"  admission", &s.admissionMs},
        {"  KV transfer", &s.transferMs},
        {"  KV load", &s.loadMs},
        {"  first decode", &s.firstDecodeMs},
    };
    std::vector<std::vector<std::string>> rows = {{"  METRIC (ms)", "COUNT", "MEAN", "P50", "P90", "P99", "MAX"}};
    for (const auto& [label, d] : distributions)
        rows.push_back({std::string("  ") + label, std::to_string(d->count), number(d->mean), number(d->p50),
                        number(d->p90), number(d->p99), number(d->max)});
    printTable(rows, 1);
    fmt::print("  (queue ... first decode are the parts of TTFT)\n");
}

void showRun(const GlobalOptions& global, const RunsOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    auto store = openRunStore(global);
    const auto info = store->runInfo(id);
    if (!info)
        throwUnknownRun(*store, id);
    const auto summary = store->runSummary(id);
    if (options.json) {
        const nlohmann::ordered_json out = {{"run", core::toJson(*info)},
                                            {"summary", summary ? core::toJson(*summary) : nlohmann::ordered_json()}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("Run {}: {}\n", info->id, info->name);
    fmt::print("  status          {}\n", core::toString(info->status));
    if (!info->error.empty())
        fmt::print("  error           {}\n", info->error);
    fmt::print("  scenario        {} (seed {})\n", info->scenarioName.empty() ? "-" : info->scenarioName, info->seed);
    fmt::print("  backend         {} (Coherence Studio {})\n", info->backend, info->version);
    fmt::print("  created         {} UTC\n", readableTime(info->createdAt));
    if (!info->finishedAt.empty())
        fmt::print("  finished        {} UTC\n", readableTime(info->finishedAt));
    fmt::print("  process         pid {} on {}\n", info->pid, info->host.empty() ? "?" : info->host);
    if (summary)
        printSummary(*summary);
}

void renameRun(const GlobalOptions& global, const RunsOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
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
