#include "core/store/pending_results.h"

#include "core/store/run_record.h"
#include "core/store/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace coh::core {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "run-";
constexpr std::string_view kSuffix = ".db";

// The rename is durable only once the folder's entry is on disk.
void syncFolder(const std::string& folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

std::string pendingFolder(const std::string& databasePath)
{
    return databasePath + ".pending";
}

std::string pendingFile(const std::string& databasePath, std::int64_t id)
{
    return (fs::path(pendingFolder(databasePath)) / fmt::format("{}{}{}", kPrefix, id, kSuffix)).string();
}

std::string savePendingResult(const std::string& databasePath, std::int64_t id, const RunResult& result)
{
    const std::string folder = pendingFolder(databasePath);
    fs::create_directories(folder);
    const std::string target = pendingFile(databasePath, id);
    const std::string temporary = fmt::format("{}.tmp-{}", target, ::getpid());
    fs::remove(temporary);
    try {
        // A rollback-journal file (SQLite's default) with synchronous=FULL: no -wal/-shm to carry along, and the
        // commit is on disk before the rename makes the file visible.
        SQLite::Database db(temporary, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        migrateRunDatabase(db, temporary);
        SQLite::Transaction transaction(db);
        writeDetachedRun(db, id, result);
        transaction.commit();
    } catch (...) {
        // A full disk, most likely: half a file helps no one and holds space the user is trying to free.
        std::error_code ignored;
        fs::remove(temporary, ignored);
        fs::remove(temporary + "-journal", ignored);
        fs::remove(folder, ignored); // only if nothing else waits in it
        throw;
    }
    std::error_code renamed;
    fs::rename(temporary, target, renamed);
    if (renamed) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw fs::filesystem_error("cannot move the kept result into place", temporary, target, renamed);
    }
    syncFolder(folder);
    return target;
}

std::vector<std::int64_t> pendingRunIds(const std::string& databasePath)
{
    std::vector<std::int64_t> ids;
    std::error_code error;
    for (fs::directory_iterator it(pendingFolder(databasePath), error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix))
            continue; // temporary files of a save that did not finish, or anything else
        std::int64_t id = 0;
        const char* first = name.data() + kPrefix.size();
        const char* last = name.data() + name.size() - kSuffix.size();
        const auto [parsedTo, parseError] = std::from_chars(first, last, id);
        if (parseError == std::errc{} && parsedTo == last && id > 0)
            ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

RunResult loadPendingResult(const std::string& databasePath, std::int64_t id)
{
    const std::string file = pendingFile(databasePath, id);
    SQLite::Database db(file, SQLite::OPEN_READONLY);
    auto result = readStoredRun(db, file, id);
    if (!result)
        throw std::runtime_error(fmt::format("{} holds no run {}", file, id));
    return std::move(*result);
}

bool removePendingResult(const std::string& databasePath, std::int64_t id)
{
    std::error_code error;
    const bool removed = fs::remove(pendingFile(databasePath, id), error);
    fs::remove(pendingFolder(databasePath), error); // only succeeds when empty
    return removed;
}

} // namespace coh::core
