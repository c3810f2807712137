// cohsim export-murphi --protocol P [--caches N] [-o FILE]: the protocol's tables as a Murphi model, so Rumur can
// check them independently of the built-in explorer.
#include "app/cohsim/command.h"
#include "core/base/input_error.h"
#include "core/coherence/murphi_export.h"
#include "core/coherence/protocol_registry.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace coh::cli {

namespace {

struct ExportMurphiOptions {
    std::string protocol;
    int caches = 3;
    int maxMessages = 0;
    std::string output; // empty or "-": stdout
};

void exportMurphiModel(const GlobalOptions& global, const ExportMurphiOptions& o)
{
    namespace co = core::coherence;
    const co::Protocol& protocol = co::findProtocol(o.protocol);
    const std::string model = co::exportMurphi(protocol, {o.caches, o.maxMessages});
    if (o.output.empty() || o.output == "-") {
        std::cout << model;
        std::cout.flush();
        return;
    }
    std::ofstream file(o.output, std::ios::binary | std::ios::trunc);
    if (!file)
        throw core::InputError(o.output, "-o", "cannot write the model file",
                               "check that its folder exists and is writable");
    file << model;
    file.close();
    if (!file)
        throw core::InputError(o.output, "-o", "writing the model file failed (disk full?)",
                               "free some space or write elsewhere");
    if (!global.quiet)
        std::cerr << "Wrote the Murphi model of " << protocol.name << " (" << o.caches << " caches) to " << o.output
                  << "\nCheck it: rumur --output model.c " << o.output
                  << " && cc -O2 -mcx16 model.c -lpthread -o model && ./model\n";
}

} // namespace

static const bool registered = registerCommand("export-murphi", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<ExportMurphiOptions>();
    auto* cmd = app.add_subcommand("export-murphi", "Write a protocol's tables as a Murphi model for Rumur");
    cmd->add_option("--protocol", options->protocol, "Protocol name (see `cohsim verify --list`)")->required();
    cmd->add_option("--caches", options->caches, "Number of caches (default 3)");
    cmd->add_option("--max-messages", options->maxMessages,
                    "Network capacity in the model (default 0: 3 per cache; Rumur reports an overflow as an error)");
    cmd->add_option("-o,--output", options->output, "Output file (default: stdout)");
    cmd->callback([&global, options] { exportMurphiModel(global, *options); });
});

} // namespace coh::cli
