#pragma once
// What went wrong with the run database file, in words the user can act on: every SQLite failure the user can
// fix (locked, read-only, corrupt, disk full, cannot open) becomes an InputError naming the file and the fix;
// anything else (a bug) stays a std::runtime_error, still naming the file.
#include <string>
#include <vector>

namespace SQLite {
class Exception;
}

namespace coh::core {

// The fix for a corrupt run database: copy what can be read into a new file (`cohsim db recover`), or move it
// away.
std::string corruptDatabaseFix(const std::string& path);

// How long the last lock wait lasted and whether it was cut short, for the "locked" message.
struct LockWait {
    double seconds = 0;
    bool abandoned = false; // RunStoreOptions::stopWaiting asked to stop waiting
};

// Throws the InputError for writing to a database that opened read-only (file or folder; the message says which).
[[noreturn]] void throwReadOnly(const std::string& path, const std::string& doing, const std::string& note = {});

// Throws the InputError for a database whose check found `problems` (PRAGMA quick_check/integrity_check rows).
[[noreturn]] void throwCorrupt(const std::string& path, const std::string& doing,
                               const std::vector<std::string>& problems, const std::string& note = {});

// Throws the InputError (or runtime_error) for `e`. `doing` says what failed ("store run 5"); `note` (may be
// empty) is appended to the message, e.g. where a finished result was kept.
[[noreturn]] void throwStoreError(const std::string& path, const SQLite::Exception& e, const std::string& doing,
                                  const LockWait& wait = {}, const std::string& note = {});

} // namespace coh::core
