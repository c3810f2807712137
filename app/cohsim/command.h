#pragma once
// Each cohsim subcommand lives in its own cmd_*.cpp and registers itself here, so adding a command never
// touches main.cpp. A command adds its CLI11 subcommand and sets its callback.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace coh::cli {

// Options every command can read (set on the top-level app).
struct GlobalOptions {
    std::string dbPath; // empty: the default under $XDG_DATA_HOME
    bool quiet = false;
};

using CommandSetup = std::function<void(CLI::App& app, GlobalOptions& global)>;

struct CommandRegistration {
    std::string name; // sort key, so `cohsim --help` lists commands in a stable order
    CommandSetup setup;
};

std::vector<CommandRegistration>& commandRegistry();

// In a cmd_*.cpp:  static const bool registered = coh::cli::registerCommand("run", [](CLI::App& app, ...) {...});
bool registerCommand(std::string name, CommandSetup setup);

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the run or action failed
inline constexpr int kExitBadInput = 2; // the user's input is wrong; the message says how to fix it

// What cohsim says when an allocation fails (std::bad_alloc), with kExitBadInput: what was asked needs more memory
// than this process may have, and asking for less is the fix.
inline constexpr const char* kOutOfMemory =
    "cohsim ran out of memory: what was asked needs more than this process may use (the memory free on this "
    "machine, or a limit such as ulimit -v) (fix: where a run or a bench was asked for, ask for less: fewer requests "
    "(--max-requests, or the scenario's workload), smaller --arena-mib or --pool-mib, fewer --lps or --max-states; "
    "otherwise run where more memory is free)";

// Thrown by a command's callback to end with an exit code after printing its own message.
struct CommandExit {
    int code;
};

} // namespace coh::cli
