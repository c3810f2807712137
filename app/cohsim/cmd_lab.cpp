// cohsim lab: the coherence teaching lab. Runs processor ops on one block under a protocol and prints every
// step (op issues and message deliveries) with the states afterwards and why; --table prints the protocol.
#include "app/cohsim/command.h"
#include "core/base/input_error.h"
#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_registry.h"
#include "core/coherence/table_markdown.h"

#include <fmt/format.h>

#include <memory>

namespace coh::cli {

namespace {

struct LabOptions {
    std::string protocol;
    int caches = 3;
    std::string ops;
    bool json = false;
    bool table = false;
    bool list = false;
};

void runLabCommand(const LabOptions& o)
{
    namespace co = core::coherence;
    if (o.list) {
        fmt::print("{}", co::protocolListText());
        return;
    }
    const co::Protocol& protocol = co::findProtocol(o.protocol);
    if (o.table) {
        fmt::print("{}", co::protocolMarkdown(protocol));
        return;
    }
    if (o.caches < 1 || o.caches > co::kMaxCaches)
        throw core::InputError("", "--caches", fmt::format("{} caches is out of range", o.caches),
                               fmt::format("use 1 to {}", co::kMaxCaches));
    const std::string opsText = o.ops.empty() ? co::defaultLabOps(o.caches) : o.ops;
    const auto ops = co::parseLabOps(opsText, o.caches);
    const co::LabRun run = co::runLab(protocol, o.caches, ops, opsText);
    if (o.json)
        fmt::print("{}\n", co::labToJson(run).dump(2));
    else
        fmt::print("{}", co::labToText(run));
    std::fflush(stdout);
    // An error with no violation is a script item the run refused (a D:<i> that cannot arrive): bad input.
    if (!run.error.empty())
        throw CommandExit{run.violation == co::Violation::None ? kExitBadInput : kExitFailure};
}

} // namespace

static const bool registered = registerCommand("lab", [](CLI::App& app, GlobalOptions&) {
    auto options = std::make_shared<LabOptions>();
    auto* cmd = app.add_subcommand("lab", "Coherence teaching lab: step through a protocol on one KV block");
    cmd->add_option("--protocol", options->protocol, "Protocol name (see --list)");
    cmd->add_option("--caches", options->caches, "Number of caches P0..P(N-1) (default 3)");
    cmd->add_option("--ops", options->ops,
                    "Ops to run, e.g. \"P0:R,P1:W,P2:E\" (R load, W store, E evict); default: a tour of the protocol. "
                    "D:<i> delivers in-flight message i (D:* all): a script naming a delivery delivers nothing else");
    cmd->add_flag("--json", options->json, "Print the steps as JSON (format in docs/protocols.md)");
    cmd->add_flag("--table", options->table, "Print the protocol's messages, states and transitions as Markdown");
    cmd->add_flag("--list", options->list, "List the protocols");
    cmd->callback([options] { runLabCommand(*options); });
});

} // namespace coh::cli
