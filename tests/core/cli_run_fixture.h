#pragma once
// The fixtures of the tests that run the cohsim binary end to end (test_cli_run.cpp, test_cli_compare_real.cpp,
// test_hostile_input.cpp): a folder of its own per test, removed after it, with files written into it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace coh::test {

namespace fs = std::filesystem;

// A test's own folder under the system's temporary one (named by its suite, this process and the test), removed
// after it, and the files the test writes into it.
class TestFolder : public ::testing::Test {
  protected:
    void SetUp() override
    {
        const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() / (std::string("cohsim-") + test->test_suite_name() + "-" +
                                             std::to_string(::getpid()) + "-" + test->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // Writes `content` to `name` in the folder, byte for byte; returns its path.
    std::string file(const std::string& name, const std::string& content) const
    {
        const fs::path path = m_dir / name;
        std::ofstream(path, std::ios::binary) << content;
        return path.string();
    }

    fs::path m_dir;
};

// The cohsim tests': the folder holds their run database too.
class CliRun : public TestFolder {
  protected:
    std::string db() const { return "--db " + (m_dir / "runs.db").string(); }
    static std::string defaultScenario() { return std::string(COH_DATASETS_DIR) + "/scenarios/default.json"; }
};

} // namespace coh::test
