#pragma once
// Remembers that a run database was found corrupt, in PATH.corrupt next to it, so every later open says so at
// once (the full check reads every page: seconds for a large file) until the file is replaced or a full check
// finds it sound again.
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

struct CorruptionRecord {
    std::vector<std::string> problems;
    bool current = false; // the database file is still the one that was found corrupt (same inode, size, mtime)
};

std::string corruptionRecordPath(const std::string& databasePath); // PATH.corrupt

// Best effort: a read-only folder just means the next open checks again.
void recordCorruption(const std::string& databasePath, const std::vector<std::string>& problems);
std::optional<CorruptionRecord> readCorruptionRecord(const std::string& databasePath);
void clearCorruptionRecord(const std::string& databasePath);

} // namespace coh::core
