#include "core/tune/study_parser.h"

#include "core/scenario/datasets_dir.h"
#include "core/scenario/field_check.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/scenario/scenario_overrides.h"
#include "core/tune/metric_catalog.h"
#include "core/tune/study_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace coh::core {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The most points a grid may have: beyond it the study should sample (random, lhs, sobol) or search (nsga2).
constexpr double kMaxGridPoints = 100'000;
constexpr std::uint32_t kMaxPoints = 100'000;

std::optional<std::string> resolveScenarioPath(const std::string& path, const std::string& studyPath)
{
    std::vector<fs::path> candidates;
    if (fs::path(path).is_absolute()) {
        candidates.emplace_back(path);
    } else {
        candidates.push_back(fs::path(studyPath).parent_path() / path);
        candidates.push_back(fs::path(datasetsDir()) / path);
    }
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec))
            return fs::weakly_canonical(candidate, ec).string();
    }
    return std::nullopt;
}

void readScenario(ObjectReader& r, StudySpec& study)
{
    const json* set = r.get("set"); // asked for first: known even when the scenario cannot be read
    const auto path = r.string("scenario", requiredAs("\"../scenarios/default.json\""));
    if (!path)
        return;
    const auto resolved = resolveScenarioPath(*path, study.sourcePath);
    if (!resolved) {
        r.problem("scenario",
                  fmt::format("the scenario file '{}' was not found next to the study or in {}", *path, datasetsDir()),
                  "give a path relative to the study file, e.g. \"../scenarios/default.json\"");
        return;
    }
    study.scenarioPath = *resolved;
    try {
        study.baseScenario = readJsonFile(study.scenarioPath);
    } catch (const InputError& e) {
        for (const InputProblem& p : e.problems())
            r.problem("scenario", fmt::format("{}: {}", p.file, p.message), p.fix);
        return;
    }
    if (set) {
        if (!set->is_object()) {
            r.problem("set",
                      fmt::format("must be an object of JSON pointers and values, not {}", describeJsonType(*set)),
                      R"(write e.g. "set": {"/workload/max_requests": 200})");
        } else {
            for (const auto& [pointer, value] : set->items()) {
                try {
                    setScenarioField(study.baseScenario, pointer, value, study.sourcePath,
                                     "write a JSON pointer of the scenario, e.g. /workload/max_requests");
                } catch (const InputError& e) {
                    for (const InputProblem& p : e.problems())
                        r.problems().add(jsonPointer(r.pointerTo("set"), pointer), p.message, p.fix);
                }
            }
        }
    }
}

std::optional<Direction> readDirection(ObjectReader& r)
{
    const auto text = r.string("direction");
    if (!text)
        return std::nullopt;
    if (*text == "minimize" || *text == "min")
        return Direction::Minimize;
    if (*text == "maximize" || *text == "max")
        return Direction::Maximize;
    r.problem("direction", fmt::format("'{}' is not a direction", *text), "write \"minimize\" or \"maximize\"");
    return std::nullopt;
}

const MetricInfo* readMetric(ProblemList& problems, const json& value, const std::string& pointer)
{
    if (!value.is_string()) {
        problems.add(pointer, fmt::format("must be a metric name, not {}", describeJsonType(value)),
                     fmt::format("write one of: {}", joinNames(metricNames())));
        return nullptr;
    }
    const std::string name = value.get<std::string>();
    if (const MetricInfo* metric = findMetric(name))
        return metric;
    const auto close = closestName(name, metricNames());
    problems.add(pointer, fmt::format("'{}' is not a metric", name),
                 close ? fmt::format("did you mean \"{}\"?", *close)
                       : fmt::format("write one of: {}", joinNames(metricNames())));
    return nullptr;
}

void readParameter(ProblemList& problems, const json& value, const std::string& pointer, StudySpec& study)
{
    ObjectReader r(problems, value, pointer, R"({ "field": "/coherence/decode", "values": ["msi-directory"] })");
    if (!r.valid())
        return;
    Parameter p;
    p.pointer = r.string("field", requiredAs("\"/coherence/decode\"")).value_or("");
    if (value.contains("field") && value["field"].is_string() && p.pointer.empty())
        r.problem("field", "an empty field names the whole scenario, not a field of it",
                  "name one field, e.g. \"/serving/block_tokens\"");
    else if (!p.pointer.empty() && p.pointer.front() != '/')
        r.problem("field", fmt::format("'{}' is not a JSON pointer", p.pointer),
                  "start it with '/', e.g. \"/serving/block_tokens\"");
    const json* values = r.get("values");
    const auto type = r.string("type");
    if (type && *type == "categorical")
        p.kind = ParameterKind::Categorical;
    else if (type && *type == "integer")
        p.kind = ParameterKind::Integer;
    else if (type && *type == "real")
        p.kind = ParameterKind::Real;
    else if (type && *type == "log_real")
        p.kind = ParameterKind::LogReal;
    else if (type)
        r.problem("type", fmt::format("'{}' is not a parameter type", *type),
                  "write \"categorical\" (with \"values\"), \"integer\", \"real\" or \"log_real\" (with \"min\" and "
                  "\"max\")");
    else if (!values)
        r.problem(
            "values", "the parameter has neither values nor a type",
            R"(list its values ("values": [16, 32, 64]) or give a range ("type": "integer", "min": 1, "max": 3))");
    if (p.kind == ParameterKind::Categorical) {
        if (!values && type)
            r.problem("values", "a categorical parameter lists its values",
                      R"(write e.g. "values": ["msi-directory", "lazy-causal"])");
        if (values && (!values->is_array() || values->empty())) {
            r.problem("values", "must be a non-empty array",
                      R"(write e.g. "values": ["msi-directory", "lazy-causal"])");
        } else if (values) {
            for (std::size_t i = 0; i < values->size(); ++i) {
                const json& v = (*values)[i];
                if (std::find(p.values.begin(), p.values.end(), v) != p.values.end())
                    problems.add(jsonPointer(r.pointerTo("values"), i), fmt::format("{} is listed twice", v.dump()),
                                 "list each value once");
                p.values.push_back(v);
            }
        }
        r.rejectKeys({"min", "max", "step", "levels"}, "is only used by integer and real parameters");
    } else {
        r.rejectKeys({"values"}, "is only used by categorical parameters (leave out \"type\")");
        const auto min = r.number("min", requiredAs("1"));
        const auto max = r.number("max", requiredAs("4"));
        p.min = min.value_or(0);
        p.max = max.value_or(0);
        if (min && max && !(*min < *max))
            r.problem("max", fmt::format("max ({}) must be greater than min ({})", *max, *min), "swap or widen them");
        // Beyond 2^53 doubles skip integers and counts overflow: no scenario field needs such values.
        constexpr double kLargest = 9007199254740992.0;
        for (const auto& [key, bound] : {std::pair{"min", min}, std::pair{"max", max}})
            if (bound && std::abs(*bound) > kLargest)
                r.problem(key, fmt::format("{} is beyond ±2^53", *bound), "give a bound of a magnitude below 2^53");
        if (p.kind == ParameterKind::Integer) {
            r.rejectKeys({"levels"}, "is only used by real parameters");
            p.step = static_cast<std::int64_t>(r.integer("step", kOptional, 1, 1'000'000'000).value_or(1));
            if ((min && *min != std::floor(*min)) || (max && *max != std::floor(*max)))
                r.problem("min", "an integer parameter's min and max must be whole numbers",
                          "write e.g. \"min\": 1, \"max\": 4");
        } else {
            r.rejectKeys({"step"}, "is only used by integer parameters");
            p.levels = r.integer("levels", kOptional, 1, 1000).value_or(5);
            if (p.kind == ParameterKind::LogReal && min && *min <= 0)
                r.problem("min", "a log_real parameter's min must be positive", "write a positive min, e.g. 0.05");
        }
    }
    r.finish();
    if (p.pointer.empty() || p.pointer.front() != '/')
        return;
    // "/" or "/serving//x" names a member whose name is empty: no scenario field has one.
    if (p.pointer.back() == '/' || p.pointer.find("//") != std::string::npos) {
        r.problem("field",
                  fmt::format("'{}' names a member with an empty name, which no scenario field has", p.pointer),
                  "name a field of the base scenario, e.g. \"/serving/block_tokens\"");
        return;
    }
    // A field the scenario has no place for (a malformed escape, an index past an array, a path through a number) is
    // the study's mistake, found here rather than as every point "invalid".
    if (!study.baseScenario.is_null()) {
        try {
            nlohmann::json probe = study.baseScenario;
            setScenarioField(probe, p.pointer, 0, study.scenarioPath, "");
        } catch (const InputError& e) {
            r.problem("field", e.problems().front().message,
                      "name a field of the base scenario, e.g. \"/serving/block_tokens\" or \"/topology/links/0/"
                      "bandwidth\"");
            return;
        }
    }
    for (const Parameter& other : study.parameters)
        if (other.pointer == p.pointer)
            r.problem("field", fmt::format("{} is varied twice", p.pointer), "vary each field in one parameter");
    // Every value the parameter can take must be one the scenario loader reads at that field.
    if (problems.empty() && !study.baseScenario.is_null()) {
        std::vector<json> probes = p.kind == ParameterKind::Categorical ? p.values : p.gridValues(64);
        for (std::size_t i = 0; i < probes.size(); ++i) {
            const std::string what = checkFieldValue(study.baseScenario, p.pointer, probes[i], study.scenarioPath);
            if (!what.empty()) {
                problems.add(p.kind == ParameterKind::Categorical ? jsonPointer(r.pointerTo("values"), i)
                                                                  : r.pointerTo("min"),
                             fmt::format("{} at {}: {}", probes[i].dump(), p.pointer, what),
                             "give values the scenario accepts at that field (docs/scenario-format.md)");
                break;
            }
        }
    }
    study.parameters.push_back(std::move(p));
}

void readParameters(ObjectReader& r, StudySpec& study)
{
    const json* list = r.get("parameters", requiredAs(R"([{ "field": "/coherence/decode", "values": [...] }])"));
    if (!list)
        return;
    if (!list->is_array() || list->empty()) {
        r.problem("parameters", "must be a non-empty array of parameters",
                  R"(write e.g. [{ "field": "/coherence/decode", "values": ["msi-directory", "lazy-causal"] }])");
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i)
        readParameter(r.problems(), (*list)[i], jsonPointer(r.pointerTo("parameters"), i), study);
}

const Parameter* parameterAt(const StudySpec& study, const std::string& pointer)
{
    for (const Parameter& p : study.parameters)
        if (p.pointer == pointer)
            return &p;
    return nullptr;
}

std::vector<std::string> parameterPointers(const StudySpec& study)
{
    std::vector<std::string> pointers;
    for (const Parameter& p : study.parameters)
        pointers.push_back(p.pointer);
    return pointers;
}

void readDerived(ObjectReader& r, StudySpec& study)
{
    const json* list = r.get("derived");
    if (!list)
        return;
    if (!list->is_array()) {
        r.problem("derived", "must be an array",
                  R"(write e.g. [{ "field": "/coherence/tiers/dram", "from": "/coherence/decode" }])");
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        ObjectReader d(r.problems(), (*list)[i], jsonPointer(r.pointerTo("derived"), i),
                       R"({ "field": "/coherence/tiers/dram", "from": "/coherence/decode" })");
        if (!d.valid())
            continue;
        DerivedField field;
        field.pointer = d.string("field", requiredAs("\"/coherence/tiers/dram\"")).value_or("");
        field.from = d.string("from", requiredAs("\"/coherence/decode\"")).value_or("");
        d.finish();
        if (!field.from.empty() && !parameterAt(study, field.from))
            d.problem("from", fmt::format("{} is not a varied field", field.from),
                      fmt::format("derive from one of: {}", joinNames(parameterPointers(study))));
        else if (!field.pointer.empty() && parameterAt(study, field.pointer))
            d.problem("field", fmt::format("{} is varied itself", field.pointer), "derive a field that is not varied");
        else if (!field.pointer.empty() && field.pointer.front() != '/')
            d.problem("field", fmt::format("'{}' is not a JSON pointer", field.pointer), "start it with '/'");
        else
            study.derived.push_back(std::move(field));
    }
}

void readExclusions(ObjectReader& r, StudySpec& study)
{
    const json* list = r.get("exclude");
    if (!list)
        return;
    const char* example = R"([{ "/coherence/decode": "unified-memory", "/serving/replication/factor": [2, 3] }])";
    if (!list->is_array()) {
        r.problem("exclude", "must be an array of combinations", fmt::format("write e.g. {}", example));
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string at = jsonPointer(r.pointerTo("exclude"), i);
        const json& entry = (*list)[i];
        if (!entry.is_object() || entry.empty()) {
            r.problems().add(at, "must be a non-empty object of varied fields and values",
                             fmt::format("write e.g. {}", example));
            continue;
        }
        Exclusion exclusion;
        for (const auto& [pointer, value] : entry.items()) {
            if (!parameterAt(study, pointer)) {
                r.problems().add(jsonPointer(at, pointer), fmt::format("{} is not a varied field", pointer),
                                 fmt::format("exclude values of: {}", joinNames(parameterPointers(study))));
                continue;
            }
            std::vector<json> accepted = value.is_array() ? value.get<std::vector<json>>() : std::vector<json>{value};
            const Parameter& parameter = *parameterAt(study, pointer);
            for (const json& v : accepted)
                if (!parameter.canTake(v))
                    r.problems().add(jsonPointer(at, pointer),
                                     fmt::format("{} is not a value {} takes, so the exclusion would never match",
                                                 v.dump(), pointer),
                                     parameter.kind == ParameterKind::Categorical
                                         ? "name one of its values"
                                         : fmt::format("give a number from {} to {}", parameter.min, parameter.max));
            exclusion.matches.emplace_back(pointer, std::move(accepted));
        }
        study.exclusions.push_back(std::move(exclusion));
    }
}

void readObjectives(ObjectReader& r, StudySpec& study)
{
    const json* list = r.get("objectives", requiredAs(R"(["tpot_p99_ms", "coherence_bytes_per_token"])"));
    if (!list)
        return;
    if (!list->is_array() || list->empty()) {
        r.problem("objectives", "must be a non-empty array of metrics",
                  fmt::format("write e.g. [\"tpot_p99_ms\", \"coherence_bytes_per_token\"]; metrics: {}",
                              joinNames(metricNames())));
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string at = jsonPointer(r.pointerTo("objectives"), i);
        const json& entry = (*list)[i];
        Objective objective;
        const MetricInfo* metric = nullptr;
        if (entry.is_object()) {
            ObjectReader o(r.problems(), entry, at, R"({ "metric": "goodput_req_s", "direction": "maximize" })");
            if (const json* name = o.get("metric", requiredAs("\"tpot_p99_ms\"")))
                metric = readMetric(r.problems(), *name, o.pointerTo("metric"));
            const auto direction = readDirection(o);
            o.finish();
            if (metric)
                objective.direction = direction.value_or(metric->better);
        } else {
            metric = readMetric(r.problems(), entry, at);
            if (metric)
                objective.direction = metric->better;
        }
        if (!metric)
            continue;
        objective.metric = metric->name;
        for (const Objective& other : study.objectives)
            if (other.metric == objective.metric)
                r.problems().add(at, fmt::format("{} is an objective twice", objective.metric), "list it once");
        study.objectives.push_back(std::move(objective));
    }
}

void readConstraints(ObjectReader& r, StudySpec& study)
{
    const json* list = r.get("constraints");
    if (!list)
        return;
    if (!list->is_array()) {
        r.problem("constraints", "must be an array", R"(write e.g. [{ "metric": "failed_requests", "max": 0 }])");
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        ObjectReader c(r.problems(), (*list)[i], jsonPointer(r.pointerTo("constraints"), i),
                       R"({ "metric": "stale_reads", "max": 0 })");
        if (!c.valid())
            continue;
        Constraint constraint;
        const MetricInfo* metric = nullptr;
        if (const json* name = c.get("metric", requiredAs("\"stale_reads\"")))
            metric = readMetric(r.problems(), *name, c.pointerTo("metric"));
        constraint.min = c.number("min");
        constraint.max = c.number("max");
        if (!constraint.min && !constraint.max)
            c.problem("max", "a constraint needs a min, a max or both", R"(write e.g. "max": 0)");
        if (constraint.min && constraint.max && *constraint.min > *constraint.max)
            c.problem("max", "max is below min", "swap them");
        c.finish();
        if (metric) {
            constraint.metric = metric->name;
            study.constraints.push_back(std::move(constraint));
        }
    }
}

void readStrategy(ObjectReader& r, StudySpec& study)
{
    const json* value = r.get("strategy");
    if (!value)
        return; // a grid
    ObjectReader s(r.problems(), *value, r.pointerTo("strategy"), R"({ "kind": "lhs", "points": 50 })");
    if (!s.valid())
        return;
    StrategySpec& spec = study.strategy;
    const auto kind = s.string("kind", requiredAs("\"grid\""));
    const std::vector<std::string> kinds = {"grid", "random", "lhs", "sobol", "nsga2"};
    if (kind == "grid")
        spec.kind = StrategyKind::Grid;
    else if (kind == "random")
        spec.kind = StrategyKind::Random;
    else if (kind == "lhs")
        spec.kind = StrategyKind::LatinHypercube;
    else if (kind == "sobol")
        spec.kind = StrategyKind::Sobol;
    else if (kind == "nsga2")
        spec.kind = StrategyKind::Nsga2;
    else if (kind)
        s.problem("kind", fmt::format("'{}' is not a strategy", *kind),
                  fmt::format("write one of: {}", joinNames(kinds)));
    spec.seed = s.integer("seed", kOptional, 0, UINT64_MAX).value_or(1);
    const bool sampled = spec.kind == StrategyKind::Random || spec.kind == StrategyKind::LatinHypercube ||
                         spec.kind == StrategyKind::Sobol;
    if (sampled)
        spec.points = s.count("points", requiredAs("50"), 1).value_or(1);
    else
        s.rejectKeys({"points"}, "is only used by random, lhs and sobol");
    if (spec.points > kMaxPoints)
        s.problem("points", fmt::format("{} points is more than {}", spec.points, kMaxPoints), "sample fewer points");
    if (spec.kind == StrategyKind::Nsga2) {
        spec.population = s.count("population", kOptional, 8).value_or(16);
        spec.generations = s.count("generations", kOptional, 1).value_or(8);
        if (spec.population % 4 != 0)
            s.problem("population",
                      fmt::format("NSGA-II needs a population that is a multiple of 4, not {}", spec.population),
                      fmt::format("write {}", (spec.population / 4 + 1) * 4));
        if (double(spec.population) * (spec.generations + 1) > kMaxPoints)
            s.problem("generations", "population × (generations + 1) is more than 100,000 runs", "search less");
        if (study.objectives.size() < 2)
            s.problem("kind", "NSGA-II searches two or more objectives; the study has fewer",
                      "add an objective, or use \"lhs\" or \"grid\" for one");
    } else {
        s.rejectKeys({"population", "generations"}, "is only used by nsga2");
    }
    s.finish();
}

void readHalving(ObjectReader& r, StudySpec& study)
{
    const json* value = r.get("halving");
    if (!value)
        return;
    ObjectReader h(r.problems(), *value, r.pointerTo("halving"), R"({ "min_requests": 50, "eta": 3 })");
    if (!h.valid())
        return;
    study.halving.minRequests = h.count("min_requests", requiredAs("50"), 1).value_or(0);
    study.halving.eta = h.count("eta", kOptional, 2).value_or(3);
    h.finish();
    if (study.strategy.kind == StrategyKind::Nsga2)
        h.problem("min_requests", "successive halving screens a fixed set of points; NSGA-II chooses its own",
                  "remove \"halving\", or use grid, random, lhs or sobol");
}

void readCapacity(ObjectReader& r, StudySpec& study)
{
    const json* value = r.get("capacity");
    const bool asked = std::any_of(study.objectives.begin(), study.objectives.end(),
                                   [](const Objective& o) { return o.metric == "capacity_at_slo"; }) ||
                       std::any_of(study.constraints.begin(), study.constraints.end(),
                                   [](const Constraint& c) { return c.metric == "capacity_at_slo"; });
    constexpr const char* kExample =
        R"({ "field": "/workload/time_scale", "min": 0.02, "max": 1, "slo_attainment": 0.9 })";
    if (!value) {
        if (asked)
            r.problem("capacity", "capacity_at_slo is asked for but the study has no \"capacity\" search",
                      fmt::format("add \"capacity\": {}", kExample));
        return;
    }
    ObjectReader c(r.problems(), *value, r.pointerTo("capacity"), kExample);
    if (!c.valid())
        return;
    CapacitySpec& cap = study.capacity;
    cap.field = c.string("field", requiredAs("\"/workload/time_scale\"")).value_or("");
    cap.min = c.positive("min", requiredAs("0.02")).value_or(0);
    cap.max = c.positive("max", requiredAs("1")).value_or(0);
    cap.attainment = c.fraction("slo_attainment").value_or(cap.attainment);
    cap.tolerance = c.positive("tolerance").value_or(cap.tolerance);
    const auto larger = c.string("larger_is");
    cap.inverse = larger ? *larger == "lighter" : cap.field.ends_with("time_scale");
    if (larger && *larger != "lighter" && *larger != "heavier")
        c.problem("larger_is", fmt::format("'{}' is neither \"lighter\" nor \"heavier\"", *larger),
                  "say whether a larger value of the field is a lighter load (time_scale) or a heavier one (a rate)");
    c.finish();
    if (cap.min > 0 && cap.max > 0 && !(cap.min < cap.max))
        c.problem("max", "max must be greater than min", "widen the range");
    if (cap.tolerance >= 1)
        c.problem("tolerance", "the tolerance is relative and below 1", "write e.g. 0.025 (2.5%)");
    if (cap.field.empty() || cap.field.front() != '/') {
        if (!cap.field.empty())
            c.problem("field", fmt::format("'{}' is not a JSON pointer", cap.field), "start it with '/'");
        cap.field.clear();
        return;
    }
    for (const Parameter& p : study.parameters)
        if (p.pointer == cap.field)
            c.problem("field", fmt::format("{} is varied by a parameter too", cap.field),
                      "search the load over a field that is not varied");
    const json* base = nullptr;
    try {
        const auto pointer = json::json_pointer(cap.field);
        base = study.baseScenario.contains(pointer) ? &study.baseScenario.at(pointer) : nullptr;
    } catch (const json::exception&) {
        // not a pointer into this scenario: reported below
    }
    if (!base || !base->is_number() || base->get<double>() <= 0)
        c.problem("field", fmt::format("the base scenario has no positive number at {}", cap.field),
                  "name the workload's load knob: /workload/time_scale for a trace, /workload/arrival/rate for a "
                  "synthetic workload");
    else
        cap.base = base->get<double>();
}

double gridSize(const StudySpec& study)
{
    double size = 1;
    for (const Parameter& p : study.parameters)
        size *= static_cast<double>(p.kind == ParameterKind::Integer
                                        ? std::floor((p.max - p.min) / static_cast<double>(p.step)) + 1
                                        : p.gridValues().size());
    return size;
}

} // namespace

StudySpec parseStudyGoals(const json& root, const std::string& sourcePath)
{
    ProblemList problems(sourcePath);
    StudySpec study;
    study.sourcePath = sourcePath;
    ObjectReader r(problems, root, "", R"({ "scenario": "...", "parameters": [...], "objectives": [...] })");
    if (r.valid()) {
        study.name = r.string("name").value_or(fs::path(sourcePath).stem().string());
        readObjectives(r, study);
        readConstraints(r, study);
    }
    problems.throwIfAny(); // no finish(): the other keys are parseStudy's to check
    return study;
}

StudySpec parseStudy(const json& root, const std::string& sourcePath)
{
    ProblemList problems(sourcePath);
    StudySpec study;
    study.sourcePath = sourcePath;
    ObjectReader r(problems, root, "", R"({ "scenario": "...", "parameters": [...], "objectives": [...] })");
    if (!r.valid())
        problems.throwIfAny();
    study.name = r.string("name").value_or(fs::path(sourcePath).stem().string());
    study.description = r.string("description").value_or("");
    readScenario(r, study);
    readObjectives(r, study);
    readParameters(r, study);
    readDerived(r, study);
    readExclusions(r, study);
    readConstraints(r, study);
    readStrategy(r, study);
    readHalving(r, study);
    readCapacity(r, study);
    study.recordMessages = r.count("record_messages").value_or(study.recordMessages);
    study.recordIterations = r.count("record_iterations").value_or(study.recordIterations);
    if (const auto keep = r.string("keep")) {
        if (*keep == "summary")
            study.keepRequests = false;
        else if (*keep != "full")
            r.problem("keep", fmt::format("'{}' is not what a point's run keeps", *keep),
                      "write \"full\" (every request and a message sample) or \"summary\" (the summary and series)");
    }
    r.finish();
    if (study.strategy.kind == StrategyKind::Grid && problems.empty() && gridSize(study) > kMaxGridPoints)
        problems.add("/parameters",
                     fmt::format("the grid has {:.0f} points, more than {:.0f}", gridSize(study), kMaxGridPoints),
                     "vary fewer values, or sample with \"strategy\": { \"kind\": \"lhs\", \"points\": 500 }");
    // The base scenario with the study's edits must itself be a valid scenario: its problems name its fields.
    if (problems.empty()) {
        try {
            parseScenario(study.baseScenario, study.scenarioPath);
        } catch (const InputError& e) {
            for (const InputProblem& p : e.problems())
                problems.add("/scenario",
                             fmt::format("the base scenario {} at {}: {}", study.scenarioPath, p.field, p.message),
                             p.fix);
        }
    }
    problems.throwIfAny();
    study.canonicalJson = root.dump();
    return study;
}

StudySpec loadStudyFile(const std::string& path)
{
    return parseStudy(readJsonFile(path), path);
}

std::string studyHash(const StudySpec& study)
{
    return scenarioKey(json{{"study", json::parse(study.canonicalJson)}, {"scenario", study.baseScenario}});
}

} // namespace coh::core
