#pragma once
// The loader's section readers (one file each) and the cross-section checks. Internal to the scenario
// loader: other code uses scenario_loader.h.
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario.h"

#include <optional>
#include <string>

namespace coh::core {

// Each reader takes the top-level object, reads its own key and leaves defaults where values are absent
// or wrong (the problems are in the list, so the scenario is never used in that case). Arrays are kept
// aligned with the JSON (an entry with problems is still there), so index i is /…/i in messages.
void readTopology(ObjectReader& top, Topology& topology);
std::optional<ModelSpec> readModel(ObjectReader& top);
void readWorkload(ObjectReader& top, const std::string& scenarioDir, WorkloadSpec& workload);
// Returns whether "instances" was given (otherwise they are derived from node roles).
bool readServing(ObjectReader& top, ServingSpec& serving);

// The "coherence" section: protocol names are checked against the protocol registry; a named home node
// is checked later, with the topology (validateScenario).
void readCoherence(ObjectReader& top, CoherenceSpec& coherence);

// The "failures" section; checkFailures() checks its nodes once instances are known (validateScenario).
void readFailures(ObjectReader& top, FailuresSpec& failures);
// `component`: linkComponents() of the topology.
void checkFailures(const Scenario& scenario, const std::vector<int>& component, ProblemList& problems);

// Connected components over links (plain BFS: the question is only whether anything can get from one node to
// another at all), leaving out the links marked in `without` (per link; shorter: the rest count); empty when a
// link names an unknown node (reported elsewhere).
std::vector<int> linkComponents(const Topology& topology, const std::vector<std::uint8_t>& without = {});

struct ValidationInput {
    bool topologyClean = false; // no problems in /topology, so routing checks are meaningful
    bool explicitInstances = false;
    bool modelKnown = false;
};

// Derives instances when not given, fills default batch limits and checks what spans sections: instance
// nodes, serving roles, model fit in HBM and prefill-to-decode reachability.
void validateScenario(Scenario& scenario, const ValidationInput& input, ProblemList& problems);

} // namespace coh::core
