// cohsim: Coherence Studio's headless CLI. Commands register themselves (see command.h).
#include "app/cohsim/command.h"
#include "core/scenario/input_error.h"

#include <algorithm>
#include <iostream>

namespace coh::cli {

std::vector<CommandRegistration>& commandRegistry()
{
    static std::vector<CommandRegistration> registry;
    return registry;
}

bool registerCommand(std::string name, CommandSetup setup)
{
    commandRegistry().push_back({std::move(name), std::move(setup)});
    return true;
}

} // namespace coh::cli

int main(int argc, char** argv)
{
    using namespace coh::cli;
    CLI::App app{"cohsim: simulate KV-cache coherence for disaggregated LLM serving (Coherence Studio " COH_VERSION
                 ")"};
    app.require_subcommand(1);
    app.fallthrough(); // so `cohsim run X --db Y` works as well as `cohsim --db Y run X`
    app.set_version_flag("--version", COH_VERSION);
    GlobalOptions global;
    app.add_option("--db", global.dbPath, "Run database (default: $XDG_DATA_HOME/coherence-studio/runs.db)");
    app.add_flag("-q,--quiet", global.quiet, "No progress output on stderr");

    auto& registry = commandRegistry();
    std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& command : registry)
        command.setup(app, global);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const CommandExit& e) {
        return e.code;
    } catch (const coh::core::InputError& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitFailure;
    }
    return kExitOk;
}
