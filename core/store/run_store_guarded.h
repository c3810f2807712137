#pragma once
// RunStore::guarded, for the files that implement RunStore: runs a statement group and turns SQLite and JSON
// errors into InputError naming the file, what was being done and the fix (and notes corruption).
#include "core/base/input_error.h"
#include "core/store/busy_context.h"
#include "core/store/run_store.h"
#include "core/store/store_errors.h"

#include <SQLiteCpp/Exception.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace coh::core {

template <class F> decltype(auto) RunStore::guarded(const std::string& doing, F&& f)
{
    try {
        return f();
    } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xFF;
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            foundCorruption({e.what()}); // so the next open says so before anything else is read or written
        throwStoreError(m_path, e, doing, m_busy->last);
    } catch (const nlohmann::json::exception& e) {
        // A text that is not UTF-8 cannot be written as JSON (a name, a scenario): what was given, not what is stored.
        if (e.id == 316)
            throw InputError(m_path, "", fmt::format("cannot {}: a name or text in it is not valid UTF-8", doing),
                             "give names and scenarios as UTF-8 text");
        // Stored JSON that parses but lacks what completeRun wrote (a key, a type): that row was damaged or edited.
        // The file itself is sound (its pages check out), so it is not marked corrupt: every other row still reads,
        // and new runs are still stored.
        throw InputError(m_path, "",
                         fmt::format("cannot {}: a value stored for it is damaged (not what this version of Coherence "
                                     "Studio writes: a field is missing or has another type)",
                                     doing),
                         fmt::format("where it is one run's, delete that run (`cohsim runs delete ID --db {}`): the "
                                     "other runs are not affected; `cohsim db recover` copies what reads",
                                     m_path));
    }
}

} // namespace coh::core
