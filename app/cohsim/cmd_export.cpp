// cohsim export ID --format csv|json|perfetto [--summary] [-o FILE]: a stored run for spreadsheets, scripts and
// trace viewers.
#include "app/cohsim/command.h"
#include "app/cohsim/file_extension.h"
#include "app/cohsim/output_path.h"
#include "app/cohsim/store_access.h"
#include "core/base/input_error.h"
#include "core/store/perfetto_trace.h"
#include "core/store/run_export.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace coh::cli {

namespace {

struct ExportOptions {
    std::vector<std::string> ids;
    std::string format; // empty: from the output's extension (formatOf)
    std::string output; // empty: stdout
    bool summary = false;
};

void write(const core::RunInfo& info, const std::string& scenario, const core::RunResult& result,
           const std::vector<core::CostVariant>& costVariants, const ExportOptions& options, std::ostream& out)
{
    if (options.format == "json")
        out << core::exportJson(info, scenario, result, costVariants).dump(2) << '\n';
    else if (options.summary)
        core::writeSummaryCsv(out, result.summary);
    else
        core::writeRequestsCsv(out, result);
}

// One run, or several in one trace, each run's tracks then named "#ID · ..." (a simulated and a real run of one
// scenario side by side).
void writePerfetto(core::RunStore& store, const std::vector<std::int64_t>& ids, bool quiet, std::ostream& out)
{
    nlohmann::json trace;
    core::PerfettoCounts total;
    int pidBase = 0;
    for (const std::int64_t id : ids) {
        const auto info = store.runInfo(id);
        const core::RunResult result = store.loadRun(id);
        core::PerfettoOptions options{info->name, core::instanceNodesOf(result, store.scenarioJson(id).value_or("")),
                                      pidBase, ids.size() > 1 ? fmt::format("#{} · ", id) : std::string()};
        core::PerfettoCounts counts;
        nlohmann::json one = core::perfettoTrace(result, options, &counts);
        if (trace.is_null()) {
            trace = std::move(one); // the first run's, with its description
        } else {
            trace.erase("otherData"); // describes one run only
            for (auto& e : one["traceEvents"])
                trace["traceEvents"].push_back(std::move(e));
        }
        pidBase += core::perfettoPidSpan(result);
        total.tracks += counts.tracks;
        total.slices += counts.slices;
        total.flows += counts.flows;
        total.counters += counts.counters;
    }
    out << trace.dump() << '\n';
    if (!quiet)
        std::cerr << "Perfetto trace" << (ids.size() > 1 ? fmt::format(" of {} runs", ids.size()) : std::string())
                  << ": " << total.tracks << " tracks, " << total.slices << " slices, " << total.flows << " flows, "
                  << total.counters << " counter samples (open it in ui.perfetto.dev or chrome://tracing)\n";
}

// The format an export file's name asks for: .json JSON, anything else (or stdout) CSV. `-o run.json` without --format
// must not write CSV into a file named .json; a Perfetto trace, JSON too, is asked for by name.
std::string formatOf(const std::string& output)
{
    return fileExtension(output) == ".json" ? "json" : "csv";
}

void exportRun(const GlobalOptions& global, ExportOptions options)
{
    // --summary is a CSV of the summary's keys: its own format, whatever the file is named.
    if (options.summary && (options.format == "json" || options.format == "perfetto"))
        throw core::InputError("command line", "--summary",
                               fmt::format("--summary writes the summary as CSV, not {}", options.format),
                               "drop --summary for the whole run as " + options.format + ", or drop --format");
    if (options.format.empty())
        options.format = options.summary ? "csv" : formatOf(options.output);
    std::vector<std::int64_t> ids;
    for (const std::string& text : options.ids)
        ids.push_back(parseRunId(text));
    if (ids.size() > 1 && options.format != "perfetto")
        throw core::InputError("command line", "ID", "several runs export only as one Perfetto trace",
                               "give one ID, or add --format perfetto");
    auto store = openRunStore(global);
    for (const std::int64_t id : ids)
        if (!store->runInfo(id))
            throwUnknownRun(*store, id);
    const std::int64_t id = ids.front();
    const auto info = store->runInfo(id);
    const auto writeTo = [&](std::ostream& out) {
        if (options.format == "perfetto") {
            writePerfetto(*store, ids, global.quiet, out);
            return;
        }
        // Only the JSON export carries the figures compare-real kept with the run.
        const auto variants = options.format == "json" ? store->costVariants(id) : std::vector<core::CostVariant>();
        write(*info, store->scenarioJson(id).value_or(""), store->loadRun(id), variants, options, out);
    };

    if (options.output.empty() || options.output == "-") {
        writeTo(std::cout);
        std::cout.flush();
        return;
    }
    checkOutputPath(options.output, "-o");
    std::error_code missing;
    const bool created = !std::filesystem::exists(options.output, missing);
    std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
    if (!file)
        throw core::InputError(options.output, "-o", "cannot write the export file",
                               "check that its folder exists and is writable");
    // An export that stops half-way leaves no file it made that could be taken for a whole one (a file, a pipe or a
    // device that was there before is left alone).
    const auto removeOutput = [&] {
        std::error_code ignored;
        if (created && std::filesystem::is_regular_file(options.output, ignored))
            std::filesystem::remove(options.output, ignored);
    };
    try {
        writeTo(file);
    } catch (...) {
        file.close();
        removeOutput();
        throw;
    }
    file.close();
    if (!file) {
        removeOutput();
        throw core::InputError(options.output, "-o", "writing the export file failed (disk full?)",
                               "free some space or write elsewhere");
    }
    if (!global.quiet)
        std::cerr << "Wrote run" << (ids.size() > 1 ? "s " : " ") << fmt::format("{}", fmt::join(ids, ", ")) << " to "
                  << options.output << '\n';
}

} // namespace

static const bool registered = registerCommand("export", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand("export",
                                   "Export a stored run as CSV (per request, or --summary), JSON, or a Perfetto trace");
    cmd->add_option("ID", options->ids,
                    "Run id (see `cohsim runs list`); with --format perfetto, several runs in one trace")
        ->required();
    cmd->add_option("--format", options->format,
                    "csv, json, or perfetto (a trace for ui.perfetto.dev or chrome://tracing); by default json for an "
                    "output named .json, else csv")
        ->check(CLI::IsMember({"csv", "json", "perfetto"}));
    cmd->add_flag("--summary", options->summary, "CSV: the summary as key,value rows instead of one row per request");
    cmd->add_option("-o,--output", options->output, "Output file (default: stdout)");
    cmd->callback([&global, options] { exportRun(global, *options); });
});

} // namespace coh::cli
