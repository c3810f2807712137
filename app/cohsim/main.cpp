// cohsim: Coherence Studio's headless CLI. Commands register themselves (see command.h).
#include "app/cohsim/command.h"
#include "core/base/input_error.h"

#include <algorithm>
#include <iostream>
#include <new>

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

namespace {

// The subcommand the user was typing when the error came: its --help is the one to read.
std::string commandPath(const CLI::App& app)
{
    std::string path = "cohsim";
    const CLI::App* at = &app;
    for (;;) {
        const auto parsed = at->get_subcommands();
        if (parsed.empty())
            break;
        at = parsed.front();
        path += ' ' + at->get_name();
    }
    return path;
}

// --help and --version end with 0 as CLI11 prints them; every usage mistake ends with the documented 2 (not
// CLI11's own codes 104-114) and one line that says what was wrong and where the help is.
int usageError(CLI::App& app, const CLI::ParseError& e)
{
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
        return app.exit(e);
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    const std::string command = commandPath(app);
    std::cerr << "error: " << what << " (see '" << command << " --help')\n";
    return kExitBadInput;
}

} // namespace

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
    app.add_option("--db", global.dbPath, "Run database (default: $XDG_DATA_HOME/coherence-studio/runs.db)")
        ->check([](const std::string& path) {
            // An empty path is not the default: a script whose variable was empty must not write the user's store.
            return path.empty() ? std::string("the path is empty (leave --db out for the default store)")
                                : std::string();
        });
    app.add_flag("-q,--quiet", global.quiet, "No progress output on stderr");

    auto& registry = commandRegistry();
    std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& command : registry)
        command.setup(app, global);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return usageError(app, e);
    } catch (const CommandExit& e) {
        return e.code;
    } catch (const coh::core::InputError& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: " << kOutOfMemory << '\n';
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitFailure;
    }
    return kExitOk;
}
