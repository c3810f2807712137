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
        // Stored JSON that parses but lacks what completeRun wrote (a key, a type): the file was damaged or edited.
        foundCorruption({e.what()});
        throw InputError(
            m_path, "", fmt::format("cannot {}: a stored value is damaged ({})", doing, e.what()),
            fmt::format("run `cohsim db check --db {}`; copy what can be read with `cohsim db recover`", m_path));
    }
}

} // namespace coh::core
