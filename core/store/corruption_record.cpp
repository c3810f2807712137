#include "core/store/corruption_record.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <system_error>

#include <sys/stat.h>

namespace coh::core {

namespace {

// Which file this is: replacing it (a recovered copy moved in) or writing to it changes one of these.
std::string fileIdentity(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return {};
    return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

} // namespace

std::string corruptionRecordPath(const std::string& databasePath)
{
    return databasePath + ".corrupt";
}

void recordCorruption(const std::string& databasePath, const std::vector<std::string>& problems)
{
    const std::string path = corruptionRecordPath(databasePath);
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::trunc);
        if (!out)
            return;
        out << fileIdentity(databasePath) << '\n';
        for (const auto& problem : problems)
            out << problem << '\n';
        if (!out)
            return;
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
}

std::optional<CorruptionRecord> readCorruptionRecord(const std::string& databasePath)
{
    std::ifstream in(corruptionRecordPath(databasePath));
    std::string identity;
    if (!in || !std::getline(in, identity))
        return std::nullopt;
    CorruptionRecord record;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty())
            record.problems.push_back(line);
    }
    if (record.problems.empty())
        record.problems.push_back("found corrupt earlier");
    record.current = !identity.empty() && identity == fileIdentity(databasePath);
    return record;
}

void clearCorruptionRecord(const std::string& databasePath)
{
    std::error_code error;
    std::filesystem::remove(corruptionRecordPath(databasePath), error);
}

} // namespace coh::core
