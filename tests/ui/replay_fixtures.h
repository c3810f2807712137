#pragma once
// Runs of shipped scenarios for the replay tests: small (a few dozen requests) so they take well under a second.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <string>

namespace coh::test {

inline std::string datasetPath(const std::string& relative)
{
    return std::string(COH_TEST_DATA_DIR) + "/../../datasets/" + relative;
}

inline nlohmann::ordered_json loadJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::ordered_json::parse(in);
}

// `json` as if it were the file at `path` (relative trace paths resolve from there), limited to `requests`.
inline std::shared_ptr<const core::RunResult> runJson(const nlohmann::ordered_json& json, const std::string& path,
                                                      std::uint32_t requests = 60)
{
    core::Scenario scenario = core::parseScenario(nlohmann::json::parse(json.dump()), path);
    core::limitRequests(scenario.workload, requests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    return std::make_shared<const core::RunResult>(core::runScenario(scenario, workload));
}

} // namespace coh::test
