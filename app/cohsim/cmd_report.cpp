// cohsim report ID [--compare ID2 ...] [--study S] [--format html|md|pdf] -o FILE: a run's report to hand to a
// colleague (docs/reports.md). The report is drawn by the desktop app's chart code, so cohsim (which stays free of Qt)
// runs the report tool cohsim-report, built with the UI, on Qt's offscreen platform: no display is needed.
#include "app/cohsim/command.h"
#include "app/cohsim/file_extension.h"
#include "app/cohsim/output_path.h"
#include "app/cohsim/store_access.h"
#include "core/base/input_error.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace coh::cli {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
    std::string id;
    std::vector<std::string> compare;
    std::string study;
    std::string format; // empty: from the output's extension
    std::string output;
};

// The format a report file's name asks for: .pdf, .md (or .markdown), else HTML. `-o run.pdf` without --format
// must not write HTML into a file named .pdf.
std::string formatOf(const std::string& output)
{
    const std::string extension = fileExtension(output);
    if (extension == ".pdf")
        return "pdf";
    if (extension == ".md" || extension == ".markdown")
        return "md";
    return "html";
}

// $COH_REPORT_TOOL, else cohsim-report next to cohsim (installed) or in the build tree's app/cohsim-report.
std::string findReportTool()
{
    std::error_code ec;
    if (const char* tool = std::getenv("COH_REPORT_TOOL"); tool && *tool) {
        if (!fs::is_regular_file(tool, ec) || ::access(tool, X_OK) != 0)
            throw core::InputError(tool, "COH_REPORT_TOOL", "there is no program to run here",
                                   "set COH_REPORT_TOOL to the path of cohsim-report, or unset it to use the one "
                                   "built beside cohsim");
        return tool;
    }
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& candidate : {self.parent_path() / "cohsim-report",
                                          self.parent_path().parent_path() / "cohsim-report" / "cohsim-report"})
            if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
                return candidate.string();
    }
    throw core::InputError("cohsim report", "",
                           "the report tool cohsim-report is not built here (it draws the charts with Qt)",
                           "build with the desktop app (-DCOH_BUILD_UI=ON, which scripts/run and scripts/test do), "
                           "or set COH_REPORT_TOOL to its path");
}

int runTool(const std::string& tool, const std::vector<std::string>& args)
{
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(tool.c_str()));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::cout.flush();
    const pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("cohsim report: fork failed");
    if (pid == 0) {
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
        ::execv(tool.c_str(), argv.data());
        std::cerr << "error: cannot run " << tool << '\n';
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            throw std::runtime_error("cohsim report: waiting for the report tool failed");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void report(const GlobalOptions& global, const ReportOptions& options)
{
    const std::int64_t id = parseRunId(options.id);
    // Every format alike, before the tool starts: a missing folder is the user's to create.
    checkOutputPath(options.output, "-o");
    std::vector<std::string> args{"--db", runDatabasePath(global), "--run", std::to_string(id)};
    {
        auto store = openRunStore(global); // the same checks and messages as every command, before the tool runs
        if (!store->runInfo(id))
            throwUnknownRun(*store, id);
        for (const std::string& text : options.compare) {
            const std::int64_t other = parseStoredId(text, "--compare", "run",
                                                     "pass the number shown in the first column of `cohsim runs list`");
            if (!store->runInfo(other))
                throwUnknownRun(*store, other, "--compare");
            args.insert(args.end(), {"--compare", std::to_string(other)});
        }
    }
    if (!options.study.empty())
        args.insert(args.end(), {"--study", std::to_string(parseStoredId(options.study, "--study", "study",
                                                                         "pass the number `cohsim tune` printed for "
                                                                         "the study"))});
    args.insert(args.end(),
                {"--format", options.format.empty() ? formatOf(options.output) : options.format, "-o", options.output});
    const int rc = runTool(findReportTool(), args);
    if (rc != 0)
        std::exit(rc); // the tool said why on stderr
    if (!global.quiet)
        std::cerr << "Wrote the report of run " << id << " to " << options.output << '\n';
}

} // namespace

static const bool registered = registerCommand("report", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<ReportOptions>();
    auto* cmd =
        app.add_subcommand("report", "Write a stored run's report: scenario, figures, charts (docs/reports.md)");
    cmd->add_option("ID", options->id, "Run id (see `cohsim runs list`)")->required();
    cmd->add_option("--compare", options->compare, "Runs to compare it with: a comparison section, CDFs overlaid");
    cmd->add_option("--study", options->study, "A study (id from `cohsim tune`) whose Pareto front it shows");
    cmd->add_option("--format", options->format,
                    "html, md (charts as SVG files beside it) or pdf; by default the output's extension says (.pdf, "
                    ".md, else html)")
        ->check(CLI::IsMember({"html", "md", "pdf"}));
    cmd->add_option("-o,--output", options->output, "Report file")->required();
    cmd->callback([&global, options] { report(global, *options); });
});

} // namespace coh::cli
