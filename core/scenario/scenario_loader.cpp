#include "core/scenario/scenario_loader.h"

#include "core/scenario/model_catalog.h"
#include "core/scenario/scenario_sections.h"

#include <fmt/format.h>

#include <filesystem>

namespace coh::core {

using nlohmann::json;

std::optional<ModelSpec> readModel(ObjectReader& top)
{
    const json* value = top.get("model", requiredAs("\"Llama-3-8B\""));
    if (!value)
        return std::nullopt;
    if (value->is_object()) {
        ObjectReader r(top.problems(), *value, top.pointerTo("model"));
        return readModelObject(r);
    }
    if (!value->is_string()) {
        top.problem("model", fmt::format("model must be a catalog name or an object, not {}", describeJsonType(*value)),
                    "write \"model\": \"Llama-3-8B\" (see `cohsim models`) or an inline model object");
        return std::nullopt;
    }
    const std::string name = value->get<std::string>();
    std::optional<ModelCatalog> catalog;
    try {
        catalog = ModelCatalog::loadDefault();
    } catch (const InputError& e) {
        const InputProblem& first = e.problems().front();
        top.problem("model",
                    fmt::format("cannot look up model '{}': the model catalog {} is unusable: {}", name, first.file,
                                first.message),
                    "set COH_DATASETS_DIR to the project's datasets folder, or write the model inline as an object");
        return std::nullopt;
    }
    if (const ModelSpec* model = catalog->find(name))
        return *model;
    std::string message = fmt::format("unknown model '{}'", name);
    if (auto near = closestName(name, catalog->names()))
        message += fmt::format("; did you mean '{}'?", *near);
    top.problem("model", message + fmt::format(" available: {}", joinNames(catalog->names(), 100)),
                "use a name from the catalog (`cohsim models` lists them) or write the model inline as an object");
    return std::nullopt;
}

namespace {

void readSmallSections(ObjectReader& top, Scenario& s)
{
    ProblemList& problems = top.problems();
    if (const json* slo = top.get("slo")) {
        ObjectReader r(problems, *slo, top.pointerTo("slo"), R"({ "ttft": "2 s", "tpot": "100 ms" })");
        s.slo.ttft = r.time("ttft", kOptional, false).value_or(s.slo.ttft);
        s.slo.tpot = r.time("tpot", kOptional, false).value_or(s.slo.tpot);
        r.finish();
    }
    if (const json* record = top.get("record")) {
        ObjectReader r(problems, *record, top.pointerTo("record"),
                       R"({ "max_messages": 100000, "max_iterations": 100000 })");
        s.record.maxMessages = r.count("max_messages").value_or(s.record.maxMessages);
        s.record.maxIterations = r.count("max_iterations").value_or(s.record.maxIterations);
        r.finish();
    }
    if (const json* metrics = top.get("metrics")) {
        ObjectReader r(problems, *metrics, top.pointerTo("metrics"), R"({ "link_interval": "1 s" })");
        s.metrics.linkInterval = r.time("link_interval", kOptional, false).value_or(s.metrics.linkInterval);
        r.finish();
    }
}

} // namespace

Scenario parseScenario(const json& root, const std::string& sourcePath)
{
    ProblemList problems(sourcePath);
    Scenario s;
    s.sourcePath = sourcePath;
    ObjectReader top(problems, root, "", R"({ "name": ..., "topology": ..., "model": ..., "workload": ... })");
    problems.throwIfAny();

    s.name = top.string("name", requiredAs("\"my-scenario\"")).value_or("");
    if (root.contains("name") && root["name"].is_string() && s.name.empty())
        top.problem("name", "scenario name is empty", "give it a name shown in run lists, e.g. \"name\": \"dgx-h100\"");
    s.description = top.string("description").value_or("");
    s.seed = top.integer("seed", kOptional, 0, UINT64_MAX).value_or(s.seed);

    const std::size_t beforeTopology = problems.size();
    readTopology(top, s.topology);
    ValidationInput input;
    input.topologyClean = problems.size() == beforeTopology;

    auto model = readModel(top);
    input.modelKnown = model.has_value();
    if (model)
        s.model = std::move(*model);

    std::filesystem::path dir = std::filesystem::path(sourcePath).parent_path();
    readWorkload(top, dir.empty() ? std::string(".") : dir.string(), s.workload);
    input.explicitInstances = readServing(top, s.serving);
    readCoherence(top, s.coherence);
    readFailures(top, s.failures);
    readSmallSections(top, s);
    top.finish();

    validateScenario(s, input, problems);
    problems.throwIfAny();
    s.json = root.dump(2);
    return s;
}

Scenario loadScenarioFile(const std::string& path)
{
    return parseScenario(readJsonFile(path), path);
}

} // namespace coh::core
