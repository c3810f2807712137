#pragma once
// Tells what a file is before the run store opens it for writing: switching a file to WAL or migrating it
// rewrites its header, so a SQLite file of another application must be refused before either, with not one
// byte of it (and no -wal/-shm file next to it) changed.
#include "core/store/store_errors.h"

#include <string>

namespace coh::core {

enum class DatabaseFile {
    Missing,     // no file: the run store creates it
    Empty,       // zero bytes, or a SQLite file with no schema at all: the run store initialises it
    RunDatabase, // ours (application_id and tables), of this schema version or an older one
};

// How reading the schema waits while another process holds the file locked. The run store passes its own busy
// handler, so that the wait obeys its timeout and its "stop waiting" and is said once, as every later wait is;
// without one the read waits up to 5 s.
struct LockWaiter {
    int (*handler)(void*, int) = nullptr; // as sqlite3_busy_handler takes it
    void* context = nullptr;
    const LockWait* last = nullptr; // what the handler measured of the wait that failed
};

// Reads the header and the schema through a read-only connection that cannot write (immutable=1 when no -wal
// or -journal file is next to it). Throws InputError naming `path` and the fix when the file is not SQLite,
// belongs to another application, has tables that are not a run database's, is newer than this build, its
// schema cannot be read (corrupt), or it stayed locked (saying how long it waited).
DatabaseFile identifyDatabaseFile(const std::string& path, const LockWaiter& waiter = {});

// `path` as a SQLite URI ("file:/abs/path?query"), with the characters URIs reserve escaped.
std::string sqliteUri(const std::string& path, const std::string& query);

} // namespace coh::core
