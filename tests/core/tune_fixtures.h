#pragma once
// Study files for the tuner's tests: small studies over the minimal scenario (two GPUs, 50 synthetic requests,
// tens of milliseconds a run), written into a test's temporary folder.
#include "core/tune/study_parser.h"
#include "scenario_test_util.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace coh::test {

// Three decode protocols × two block sizes, two objectives.
inline nlohmann::json smallStudyJson()
{
    return {
        {"name", "small"},
        {"scenario", scenarioFixture("minimal.json")},
        {"parameters",
         {{{"field", "/coherence/decode"}, {"values", {"msi-directory", "lazy-causal", "sealed-lease"}}},
          {{"field", "/serving/block_tokens"}, {"values", {16, 32}}}}},
        {"objectives", {"tpot_p99_ms", "coherence_bytes_per_token"}},
    };
}

inline std::string writeStudy(const std::string& path, const nlohmann::json& study)
{
    std::ofstream(path) << study.dump(2);
    return path;
}

inline core::StudySpec parseStudyJson(const nlohmann::json& study, const std::string& file = "mem/study.json")
{
    return core::parseStudy(study, file);
}

} // namespace coh::test
