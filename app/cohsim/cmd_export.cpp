// cohsim export ID --format csv|json [--summary] [-o FILE]: a stored run for spreadsheets and scripts.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "core/base/input_error.h"
#include "core/store/run_export.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace coh::cli {

namespace {

struct ExportOptions {
    std::string id;
    std::string format = "csv";
    std::string output; // empty: stdout
    bool summary = false;
};

void write(const core::RunInfo& info, const std::string& scenario, const core::RunResult& result,
           const ExportOptions& options, std::ostream& out)
{
    if (options.format == "json")
        out << core::exportJson(info, scenario, result).dump(2) << '\n';
    else if (options.summary)
        core::writeSummaryCsv(out, result.summary);
    else
        core::writeRequestsCsv(out, result);
}

void exportRun(const GlobalOptions& global, const ExportOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    auto store = openRunStore(global);
    const auto info = store->runInfo(id);
    if (!info)
        throwUnknownRun(*store, id);
    const core::RunResult result = store->loadRun(id);
    const std::string scenario = store->scenarioJson(id).value_or("");

    if (options.output.empty() || options.output == "-") {
        write(*info, scenario, result, options, std::cout);
        std::cout.flush();
        return;
    }
    std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
    if (!file)
        throw core::InputError(options.output, "-o", "cannot write the export file",
                               "check that its folder exists and is writable");
    write(*info, scenario, result, options, file);
    file.close();
    if (!file)
        throw core::InputError(options.output, "-o", "writing the export file failed (disk full?)",
                               "free some space or write elsewhere");
    if (!global.quiet)
        std::cerr << "Wrote run " << id << " to " << options.output << '\n';
}

} // namespace

static const bool registered = registerCommand("export", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand("export", "Export a stored run as CSV (per request, or --summary) or JSON");
    cmd->add_option("ID", options->id, "Run id (see `cohsim runs list`)")->required();
    cmd->add_option("--format", options->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
    cmd->add_flag("--summary", options->summary, "CSV: the summary as key,value rows instead of one row per request");
    cmd->add_option("-o,--output", options->output, "Output file (default: stdout)");
    cmd->callback([&global, options] { exportRun(global, *options); });
});

} // namespace coh::cli
