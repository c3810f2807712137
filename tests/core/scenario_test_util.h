#pragma once
// Helpers for the scenario loader and model catalog tests: fixture paths, an environment override that
// undoes itself, and "expect a problem at this field" for the bad-input tests.
#include "core/base/input_error.h"
#include "core/scenario/scenario_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace coh::test {

inline std::string scenarioFixture(const std::string& name)
{
    return std::string(COH_TEST_DATA_DIR) + "/scenarios/" + name;
}

inline std::string fixtureDatasetsDir()
{
    return scenarioFixture("datasets");
}

inline nlohmann::json readFixtureJson(const std::string& name)
{
    std::ifstream in(scenarioFixture(name));
    return nlohmann::json::parse(in);
}

// Sets COH_DATASETS_DIR for one test and restores the previous value.
class DatasetsDirOverride {
  public:
    explicit DatasetsDirOverride(const std::string& dir)
    {
        if (const char* old = std::getenv("COH_DATASETS_DIR"))
            m_old = old;
        ::setenv("COH_DATASETS_DIR", dir.c_str(), 1);
    }
    ~DatasetsDirOverride()
    {
        if (m_old)
            ::setenv("COH_DATASETS_DIR", m_old->c_str(), 1);
        else
            ::unsetenv("COH_DATASETS_DIR");
    }
    DatasetsDirOverride(const DatasetsDirOverride&) = delete;
    DatasetsDirOverride& operator=(const DatasetsDirOverride&) = delete;

  private:
    std::optional<std::string> m_old;
};

// Parses `root` (as if it were `file`), expecting InputError; returns all its problems.
inline std::vector<core::InputProblem> problemsOf(const nlohmann::json& root,
                                                  const std::string& file = "mem/scenario.json")
{
    try {
        core::parseScenario(root, file);
    } catch (const core::InputError& e) {
        return e.problems();
    }
    ADD_FAILURE() << "expected an InputError";
    return {};
}

// The problem reported at `field`; fails the test (naming what was reported) when there is none, or when
// it has no file or no fix.
inline core::InputProblem problemAt(const std::vector<core::InputProblem>& problems, const std::string& field)
{
    std::string all;
    for (const auto& p : problems) {
        if (p.field == field) {
            EXPECT_FALSE(p.fix.empty()) << "no fix for " << p.toString();
            EXPECT_FALSE(p.file.empty()) << "no file for " << p.toString();
            return p;
        }
        all += "\n  " + p.toString();
    }
    ADD_FAILURE() << "no problem at " << field << "; reported:" << all;
    return {};
}

inline core::InputProblem problemAt(const nlohmann::json& root, const std::string& field)
{
    return problemAt(problemsOf(root), field);
}

} // namespace coh::test
