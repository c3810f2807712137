#include "core/scenario/model_catalog.h"

#include "core/scenario/datasets_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace coh::core {

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
               return std::tolower(x) == std::tolower(y);
           });
}

} // namespace

std::optional<ModelSpec> readModelObject(ObjectReader& r)
{
    const std::size_t before = r.problems().size();
    ModelSpec m;
    auto name = r.string("name", requiredAs("\"my-model\""));
    auto layers = r.count("layers", requiredAs("32"), 1);
    auto hidden = r.count("hidden_size", requiredAs("4096"), 1);
    auto heads = r.count("heads", requiredAs("32"), 1);
    auto kvHeads = r.count("kv_heads", requiredAs("8"), 1);
    auto headDim = r.count("head_dim", requiredAs("128"), 1);
    auto dtype = r.count("dtype_bytes", kOptional, 1);
    auto params = r.positive("params", requiredAs("8.03e9"));
    auto active = r.positive("active_params");
    auto source = r.string("source");
    r.finish();

    if (name && name->empty())
        r.problem("name", "model name is empty", "give the model a name, e.g. \"name\": \"my-model\"");
    if (heads && kvHeads && (*kvHeads > *heads || *heads % *kvHeads != 0))
        r.problem("kv_heads", fmt::format("kv_heads ({}) must divide heads ({})", *kvHeads, *heads),
                  "use the model's key/value head count from its config.json (num_key_value_heads)");
    if (params && active && *active > *params)
        r.problem("active_params", fmt::format("active_params ({:g}) exceeds params ({:g})", *active, *params),
                  "active_params is the share of params used per token; it can be at most params");
    if (!r.valid() || r.problems().size() != before)
        return std::nullopt;

    m.name = *name;
    m.layers = *layers;
    m.hiddenSize = *hidden;
    m.heads = *heads;
    m.kvHeads = *kvHeads;
    m.headDim = *headDim;
    m.dtypeBytes = dtype.value_or(2);
    m.params = *params;
    m.activeParams = active.value_or(*params);
    m.source = source.value_or("");
    return m;
}

std::string ModelCatalog::defaultPath()
{
    return datasetsDir() + "/models/catalog.json";
}

ModelCatalog ModelCatalog::load(const std::string& path)
{
    nlohmann::json root = readJsonFile(path);
    ProblemList problems(path);
    ModelCatalog catalog;
    catalog.m_path = path;
    if (!root.is_array()) {
        problems.add("/", fmt::format("the catalog must be an array of model objects, not {}", describeJsonType(root)),
                     "write [ { \"name\": ..., \"layers\": ..., ... }, ... ]");
        problems.throwIfAny();
    }
    if (root.empty()) {
        problems.add("/", "the catalog lists no model",
                     "write at least one: [ { \"name\": ..., \"layers\": ..., ... } ]");
        problems.throwIfAny();
    }
    for (std::size_t i = 0; i < root.size(); ++i) {
        ObjectReader reader(problems, root[i], jsonPointer("", i));
        auto model = readModelObject(reader);
        if (!model)
            continue;
        if (catalog.find(model->name))
            problems.add(jsonPointer(jsonPointer("", i), "name"),
                         fmt::format("model '{}' is listed twice (names are compared ignoring case)", model->name),
                         "remove or rename one of the entries");
        else
            catalog.m_models.push_back(std::move(*model));
    }
    problems.throwIfAny();
    return catalog;
}

std::vector<std::string> ModelCatalog::names() const
{
    std::vector<std::string> out;
    out.reserve(m_models.size());
    for (const auto& m : m_models)
        out.push_back(m.name);
    return out;
}

const ModelSpec* ModelCatalog::find(std::string_view name) const
{
    for (const auto& m : m_models)
        if (equalsIgnoreCase(m.name, name))
            return &m;
    return nullptr;
}

} // namespace coh::core
