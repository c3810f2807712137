#pragma once
// The fixture of the tests that run the cohsim binary end to end (test_cli_run.cpp, test_cli_compare_real.cpp): a
// folder of its own per test, removed after it, with a run database and files written into it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace coh::test {

namespace fs = std::filesystem;

class CliRun : public ::testing::Test {
  protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() / ("cohsim-cli-" + std::to_string(::getpid()) + "-" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string db() const { return "--db " + (m_dir / "runs.db").string(); }
    std::string file(const std::string& name, const std::string& content) const
    {
        const fs::path path = m_dir / name;
        std::ofstream(path) << content;
        return path.string();
    }
    static std::string defaultScenario() { return std::string(COH_DATASETS_DIR) + "/scenarios/default.json"; }

    fs::path m_dir;
};

} // namespace coh::test
