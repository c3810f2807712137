// cohsim models [--json]: the model catalog with the KV bytes per token each model costs.
#include "app/cohsim/command.h"
#include "core/scenario/model_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace coh::cli {

namespace {

struct ModelsOptions {
    bool json = false;
    std::string catalog;
};

nlohmann::json toJson(const core::ModelSpec& m)
{
    return {{"name", m.name},
            {"layers", m.layers},
            {"hidden_size", m.hiddenSize},
            {"heads", m.heads},
            {"kv_heads", m.kvHeads},
            {"head_dim", m.headDim},
            {"dtype_bytes", m.dtypeBytes},
            {"params", m.params},
            {"active_params", m.activeParams},
            {"kv_bytes_per_token", m.kvBytesPerToken()},
            {"source", m.source}};
}

void printTable(const core::ModelCatalog& catalog)
{
    std::vector<std::vector<std::string>> rows = {
        {"NAME", "LAYERS", "KV HEADS", "HEAD DIM", "PARAMS", "ACTIVE", "KV BYTES/TOKEN", "KV KiB/TOKEN"}};
    for (const auto& m : catalog.models())
        rows.push_back({m.name, std::to_string(m.layers), std::to_string(m.kvHeads), std::to_string(m.headDim),
                        fmt::format("{:.2f}B", m.params / 1e9), fmt::format("{:.2f}B", m.activeParams / 1e9),
                        std::to_string(m.kvBytesPerToken()), fmt::format("{:g}", m.kvBytesPerToken() / 1024.0)});
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());
    for (const auto& row : rows) {
        std::string line = fmt::format("{:<{}}", row[0], widths[0]);
        for (std::size_t c = 1; c < row.size(); ++c)
            line += fmt::format("  {:>{}}", row[c], widths[c]);
        fmt::print("{}\n", line);
    }
    fmt::print("\n{} models from {}\n", catalog.models().size(), catalog.path());
}

} // namespace

static const bool registered = registerCommand("models", [](CLI::App& app, GlobalOptions&) {
    auto options = std::make_shared<ModelsOptions>();
    auto* cmd = app.add_subcommand("models", "List the model catalog with KV bytes per token");
    cmd->add_flag("--json", options->json, "Print a JSON array (with kv_bytes_per_token) instead of a table");
    cmd->add_option("--catalog", options->catalog, "Catalog file (default: $COH_DATASETS_DIR/models/catalog.json)");
    cmd->callback([options] {
        auto catalog =
            core::ModelCatalog::load(options->catalog.empty() ? core::ModelCatalog::defaultPath() : options->catalog);
        if (options->json) {
            auto array = nlohmann::json::array();
            for (const auto& m : catalog.models())
                array.push_back(toJson(m));
            fmt::print("{}\n", array.dump(2));
            return;
        }
        printTable(catalog);
    });
});

} // namespace coh::cli
