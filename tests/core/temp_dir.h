#pragma once
// A fresh folder under the system's temporary directory, removed with everything in it when the test ends.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace coh::test {

class TempDir {
  public:
    // `prefix` names the folder ("coh-store-XXXXXX"), so one left behind by a crash says which test made it.
    explicit TempDir(const std::string& prefix = "coh-test")
    {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(m_path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (m_path / name).string(); }

  private:
    std::filesystem::path m_path;
};

} // namespace coh::test
