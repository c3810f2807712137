// cohsim verify: exhaustive explicit-state check of a protocol (every interleaving of ops and deliveries) for
// SWMR, data-value, lost writes, protocol errors and deadlocks, with the shortest counterexample.
#include "app/cohsim/command.h"
#include "app/cohsim/option_checks.h"
#include "core/base/input_error.h"
#include "core/coherence/explorer.h"
#include "core/coherence/protocol_registry.h"

#include <fmt/format.h>

#include <memory>

namespace coh::cli {

namespace {

struct VerifyOptions {
    std::string protocol;
    int caches = 3;
    int blocks = 1;
    bool product = false;
    std::uint64_t maxStates = 5'000'000;
    bool json = false;
    bool list = false;
};

void runVerifyCommand(const VerifyOptions& o)
{
    namespace co = core::coherence;
    if (o.list) {
        fmt::print("{}", co::protocolListText());
        return;
    }
    const co::Protocol& protocol = co::findProtocol(o.protocol);
    std::vector<core::InputProblem> problems;
    if (o.caches < 1 || o.caches > co::kMaxCaches)
        problems.push_back({"", "--caches", fmt::format("{} caches is out of range", o.caches),
                            fmt::format("use 1 to {} (3 explores in seconds)", co::kMaxCaches)});
    if (o.blocks < 1 || o.blocks > 64)
        problems.push_back({"", "--blocks", fmt::format("{} blocks is out of range", o.blocks), "use 1 to 64"});
    if (o.maxStates < 1)
        problems.push_back({"", "--max-states", "must be at least 1", "use e.g. 5000000"});
    if (!problems.empty())
        throw core::InputError(std::move(problems));

    co::ExplorerOptions options;
    options.caches = o.caches;
    options.blocks = o.blocks;
    options.product = o.product;
    options.maxStates = o.maxStates;
    const co::ExplorerResult result = co::explore(protocol, options);
    if (o.json)
        fmt::print("{}\n", co::explorerToJson(result).dump(2));
    else
        fmt::print("{}", co::explorerToText(result));
    std::fflush(stdout);
    if (result.violation != co::Violation::None || !result.complete)
        throw CommandExit{kExitFailure};
}

} // namespace

static const bool registered = registerCommand("verify", [](CLI::App& app, GlobalOptions&) {
    auto options = std::make_shared<VerifyOptions>();
    auto* cmd = app.add_subcommand("verify", "Exhaustively check a coherence protocol; print a counterexample");
    cmd->add_option("--protocol", options->protocol, "Protocol name (see --list)");
    cmd->add_option("--caches", options->caches, "Number of caches (default 3)");
    cmd->add_option("--blocks", options->blocks, "Number of independent blocks (default 1)");
    cmd->add_flag("--product", options->product,
                  "Explore the blocks as one product state space instead of checking one block (small configs only)");
    cmd->add_option("--max-states", options->maxStates, "Stop after this many states (default 5000000)")
        ->transform(wholeNumber());
    cmd->add_flag("--json", options->json, "Print the result as JSON (format in docs/protocols.md)");
    cmd->add_flag("--list", options->list, "List the protocols; [bug hunt] marks deliberately broken ones");
    cmd->callback([options] { runVerifyCommand(*options); });
});

} // namespace coh::cli
