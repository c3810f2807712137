#pragma once
// A tuning study (docs/tuning.md): a base scenario, the fields to vary, what to optimise and under which
// constraints, and how to search. Read from a study file by study_parser.h; everything here is validated.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

// How a varied field takes its values. Categorical lists them; the others span [min, max]: integers by `step`,
// reals (linear or log scale) by `levels` evenly spaced values on a grid and continuously otherwise.
enum class ParameterKind { Categorical, Integer, Real, LogReal };

struct Parameter {
    std::string pointer; // JSON pointer into the scenario, e.g. /coherence/decode
    ParameterKind kind = ParameterKind::Categorical;
    std::vector<nlohmann::json> values; // categorical
    double min = 0, max = 0;
    std::int64_t step = 1;    // integer
    std::uint32_t levels = 5; // real, log_real: values a grid takes

    // The values a grid takes, in order (at most `limit` of them, the first ones).
    std::vector<nlohmann::json> gridValues(std::size_t limit = SIZE_MAX) const;
    // Whether the parameter can take `value`: one of its values, or a number of its kind within its range.
    bool canTake(const nlohmann::json& value) const;
    // The value at unit coordinate u in [0, 1): categorical and integer values get equal shares of the interval.
    nlohmann::json valueAt(double u) const;
};

// A field set from another, varied one (e.g. the DRAM tier's protocol follows decode's).
struct DerivedField {
    std::string pointer;
    std::string from;
};

// A combination never run: a point whose values match every entry is excluded (each entry's value, or any of
// its values when it lists several).
struct Exclusion {
    std::vector<std::pair<std::string, std::vector<nlohmann::json>>> matches; // pointer, accepted values
};

enum class Direction { Minimize, Maximize };

struct Objective {
    std::string metric; // a name of metric_catalog.h
    Direction direction = Direction::Minimize;
};

// A point is feasible when every constrained metric lies within [min, max].
struct Constraint {
    std::string metric;
    std::optional<double> min, max;
};

enum class StrategyKind { Grid, Random, LatinHypercube, Sobol, Nsga2 };

struct StrategySpec {
    StrategyKind kind = StrategyKind::Grid;
    std::uint32_t points = 0;      // random, lhs, sobol: how many points
    std::uint32_t population = 16; // nsga2
    std::uint32_t generations = 8; // nsga2: generations after the first population
    std::uint64_t seed = 1;
};

// Successive halving over workload length: every candidate first runs `minRequests` requests, the best
// 1/eta (by Pareto rank, then crowding) run eta times as many, and so on until the scenario's full workload.
struct HalvingSpec {
    std::uint32_t minRequests = 0; // 0: no halving
    std::uint32_t eta = 3;
    bool enabled() const { return minRequests > 0; }
};

// Capacity at an SLO (as Vidur's config search): for every point, the highest load at which at least
// `attainment` of the requests meet both SLOs, found by a search over `field` (the load knob) between `min` and
// `max` to a relative `tolerance`. Each point's metrics are then those of its run at that load, plus
// capacity_at_slo: that load as a multiple of the base scenario's.
struct CapacitySpec {
    std::string field;       // "/workload/time_scale" or "/workload/arrival/rate"
    bool inverse = true;     // a larger value means less load (time_scale); false: more (a rate)
    double min = 0, max = 0; // the field's range to search, in its own units
    double attainment = 0.9;
    double tolerance = 0.025;
    double base = 1; // the field's value in the base scenario: capacity 1 is the scenario's own load
    bool enabled() const { return !field.empty(); }
    // The field's value for a load multiple, and back.
    double valueFor(double load) const { return inverse ? base / load : base * load; }
    double loadFor(double value) const { return inverse ? base / value : value / base; }
};

struct StudySpec {
    std::string name;
    std::string description;
    std::string sourcePath;      // the study file (names it in problems, anchors the scenario path)
    std::string scenarioPath;    // the base scenario, resolved
    nlohmann::json baseScenario; // the base scenario's JSON with the study's `set` edits applied
    std::vector<Parameter> parameters;
    std::vector<DerivedField> derived;
    std::vector<Exclusion> exclusions;
    std::vector<Objective> objectives;
    std::vector<Constraint> constraints;
    StrategySpec strategy;
    HalvingSpec halving;
    CapacitySpec capacity;
    std::uint32_t recordMessages = 2000; // record.max_messages of every point's run: a replay sample, small stores
    // record.max_iterations of every point's run: none unless asked for (storing 2,000 a run made the writer the
    // bottleneck of a study of short runs: 2 threads 30% slower on bench-200)
    std::uint32_t recordIterations = 0;
    // "keep": "summary": a point's stored run keeps its summary and link series but not its per-request rows, message
    // record or block counts (a study of thousands of whole-trace runs would otherwise write gigabytes).
    bool keepRequests = true;

    std::string canonicalJson; // the study file's content, canonical: its hash identifies the study
};

const char* toString(ParameterKind);
const char* toString(StrategyKind);
const char* toString(Direction);

} // namespace coh::core
