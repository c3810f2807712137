// cohsim validate FILE...: check scenario files and list every problem with the field and the fix.
#include "app/cohsim/command.h"
#include "app/cohsim/option_checks.h"
#include "core/base/input_error.h"
#include "core/real/backend.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>

namespace coh::cli {

namespace {

std::string summary(const core::Scenario& s)
{
    auto count = [&](core::InstanceRole role) {
        return std::count_if(s.serving.instances.begin(), s.serving.instances.end(),
                             [role](const core::InstanceSpec& i) { return i.role == role; });
    };
    return fmt::format("{} nodes, {} links, model {}, {} prefill / {} decode instances", s.topology.nodes.size(),
                       s.topology.links.size(), s.model.name, count(core::InstanceRole::Prefill),
                       count(core::InstanceRole::Decode));
}

// Validates one file; returns the exit code it deserves.
int validateFile(const std::string& path, const core::BackendOptions& backend)
{
    try {
        core::Scenario scenario = core::loadScenarioFile(path);
        // What `run` reads and checks besides the file: the trace (every row, its columns, types and range) or
        // the generated workload, and the limits the engine refuses before it starts. validate-ok means run-ok.
        const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed, scenario.sourcePath);
        core::checkRunnable(scenario, workload, backend);
        fmt::print("{}: ok ({}, {} requests)\n", path, summary(scenario), workload.requests.size());
        // A real backend also says what memory it would take: the arenas, and how far the pools may grow.
        if (backend.name != "simulated")
            fmt::print("  {} memory: {}\n", backend.name,
                       core::describeMemoryPlan(core::realMemoryPlan(backend, scenario)));
        return kExitOk;
    } catch (const core::InputError& e) {
        const auto& problems = e.problems();
        fmt::print(stderr, "{}: {} problem{}\n", path, problems.size(), problems.size() == 1 ? "" : "s");
        for (const auto& p : problems) {
            // A problem in another file (the trace the scenario names) says which.
            const std::string where = p.file.empty() || p.file == path ? std::string() : p.file + ": ";
            fmt::print(stderr, "  {}{}{}\n", where, p.field.empty() ? "" : p.field + ": ", p.message);
            if (!p.fix.empty())
                fmt::print(stderr, "    fix: {}\n", p.fix);
        }
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "{}: error: {}\n", path, kOutOfMemory);
        return kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: error: {}\n", path, e.what());
        return kExitFailure;
    }
}

} // namespace

static const bool registered = registerCommand("validate", [](CLI::App& app, GlobalOptions&) {
    auto files = std::make_shared<std::vector<std::string>>();
    auto backend = std::make_shared<std::string>("simulated");
    auto arenaMib = std::make_shared<std::optional<std::uint32_t>>();
    auto poolMib = std::make_shared<std::optional<std::uint32_t>>();
    auto* cmd = app.add_subcommand("validate", "Check scenario files; list every problem with its field and fix");
    cmd->add_option("files", *files, "Scenario JSON files")->required();
    cmd->add_option("--backend", *backend, "Also check that this backend can run them (simulated, real-cpu, real-cuda)")
        ->capture_default_str();
    cmd->add_option("--arena-mib", *arenaMib,
                    "real backends: each node's memory, and where its K/V pool starts, in MiB (default: 64)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--pool-mib", *poolMib, "real backends: the most each decode node's K/V pool grows to, in MiB")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 1 << 20));
    cmd->callback([files, backend, arenaMib, poolMib] {
        core::BackendOptions options;
        options.name = core::canonicalBackendName(*backend);
        // As run does: an option the simulated backend would ignore is a mistake to say so.
        if (*arenaMib && options.name == "simulated")
            throw core::InputError("", "--arena-mib", "the simulated backend makes no node memories",
                                   "use it with --backend real-cpu or real-cuda");
        options.realCpu.arenaBytes = std::size_t{arenaMib->value_or(64)} << 20;
        if (*poolMib)
            options.realCpu.poolMaxBytes = std::size_t{**poolMib} << 20;
        int worst = kExitOk;
        for (const auto& path : *files) {
            int code = validateFile(path, options);
            // Bad input (2) outranks an internal failure (1): it is what the user can act on.
            if (code == kExitBadInput || (code == kExitFailure && worst == kExitOk))
                worst = code;
        }
        std::fflush(stdout);
        if (worst != kExitOk)
            throw CommandExit{worst};
    });
});

} // namespace coh::cli
