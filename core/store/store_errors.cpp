#include "core/store/store_errors.h"

#include "core/base/input_error.h"

#include <SQLiteCpp/Exception.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>

#include <unistd.h>

namespace coh::core {

namespace {

std::string folderOf(const std::string& path)
{
    const auto folder = std::filesystem::path(path).parent_path();
    return folder.empty() ? std::string(".") : folder.string();
}

bool folderWritable(const std::string& path)
{
    return ::access(folderOf(path).c_str(), W_OK) == 0;
}

std::string readOnlyMessage(const std::string& path, int extended)
{
    if (extended == SQLITE_READONLY_DIRECTORY || !folderWritable(path))
        return fmt::format("the run database cannot be written: its folder {} is read-only (SQLite must create "
                           "{}-wal and {}-shm there)",
                           folderOf(path), path, path);
    return "the run database cannot be written: the file is read-only";
}

} // namespace

std::string corruptDatabaseFix(const std::string& path)
{
    return fmt::format("see what is damaged with `cohsim db check --db {0}`, copy every run that can still be read "
                       "into a new file with `cohsim db recover --db {0} {0}.recovered` and move that to {0}, or "
                       "move {0} away (a new one is made)",
                       path);
}

void throwReadOnly(const std::string& path, const std::string& doing, const std::string& note)
{
    throw InputError(
        path, "",
        fmt::format("cannot {}: {}{}", doing, readOnlyMessage(path, 0), note.empty() ? std::string() : "; " + note),
        fmt::format("make {} and its folder writable for this user, or pass --db with another path", path));
}

void throwCorrupt(const std::string& path, const std::string& doing, const std::vector<std::string>& problems,
                  const std::string& note)
{
    std::string found = problems.empty() ? std::string("?") : problems.front();
    if (problems.size() > 1)
        found += fmt::format("; and {} more", problems.size() - 1);
    throw InputError(path, "",
                     fmt::format("cannot {}: the run database is corrupt ({}){}", doing, found,
                                 note.empty() ? std::string() : "; " + note),
                     corruptDatabaseFix(path));
}

void throwStoreError(const std::string& path, const SQLite::Exception& e, const std::string& doing,
                     const LockWait& wait, const std::string& note)
{
    const int extended = e.getExtendedErrorCode();
    const std::string fileFix = "pass --db with another path";
    std::string message, fix;
    switch (e.getErrorCode() & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        message = fmt::format("the run database is locked by another process ({})",
                              wait.abandoned ? fmt::format("stopped waiting for it after {:.1f} s", wait.seconds)
                                             : fmt::format("waited {:.1f} s for it", wait.seconds));
        fix = fmt::format("let the other cohsim or Coherence Studio writing to it finish (`fuser {}` shows which "
                          "process has it open), then try again",
                          path);
        break;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        message = readOnlyMessage(path, extended);
        fix = fmt::format("make {} and its folder writable for this user, or {}", path, fileFix);
        break;
    case SQLITE_CANTOPEN:
        if (!std::filesystem::is_directory(folderOf(path))) {
            std::error_code ec;
            const bool aFile = std::filesystem::exists(folderOf(path), ec);
            message = aFile ? fmt::format("{} is a file, not a folder that could hold the run database", folderOf(path))
                            : fmt::format("its folder {} does not exist", folderOf(path));
            fix = aFile ? fileFix : "create the folder, or " + fileFix;
        } else if (!folderWritable(path)) {
            message = readOnlyMessage(path, SQLITE_READONLY_DIRECTORY);
            fix = fmt::format("make the folder {} writable, or {}", folderOf(path), fileFix);
        } else {
            message = fmt::format("SQLite cannot open the run database or its -wal/-shm files ({})", e.what());
            fix = "check that the file and its folder are readable and writable, or " + fileFix;
        }
        break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        message = fmt::format("the run database is corrupt ({})", e.what());
        fix = corruptDatabaseFix(path);
        break;
    case SQLITE_FULL:
        message = "the disk holding the run database is full";
        fix = "free some space on it, or " + fileFix;
        break;
    case SQLITE_IOERR:
        message = fmt::format("reading or writing the run database failed ({})", e.what());
        fix = fmt::format("check the disk holding it (dmesg), then run `cohsim db check --db {}`", path);
        break;
    case SQLITE_ERROR:
    case SQLITE_SCHEMA:
        // Our statements are fixed and tested against our schema: "no such column/table" here means the file's
        // tables are not the ones its version promises (edited by another tool, or damaged).
        message = fmt::format("the run database's tables do not match its schema version ({})", e.what());
        fix = fmt::format("run `cohsim db check --db {}`; copy what can be read with `cohsim db recover`, or {}", path,
                          fileFix);
        break;
    default:
        // Constraint violations, misuse, ...: our bug, not the user's file.
        throw std::runtime_error(
            fmt::format("{}: cannot {}: {}{}", path, doing, e.what(), note.empty() ? std::string() : "; " + note));
    }
    message = fmt::format("cannot {}: {}", doing, message);
    if (!note.empty())
        message += "; " + note;
    throw InputError(path, "", std::move(message), std::move(fix));
}

} // namespace coh::core
