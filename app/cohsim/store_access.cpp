#include "app/cohsim/store_access.h"

#include "core/base/input_error.h"
#include "core/store/default_paths.h"
#include "core/store/store_errors.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace coh::cli {

namespace {

constexpr const char* kBusyTimeoutVariable = "COH_DB_BUSY_TIMEOUT_MS";

std::chrono::milliseconds busyTimeout(std::chrono::milliseconds fallback)
{
    const char* text = std::getenv(kBusyTimeoutVariable);
    if (!text || !*text)
        return fallback;
    const std::string_view value(text);
    long long ms = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (error != std::errc{} || end != value.data() + value.size() || ms < 0)
        throw core::InputError("", kBusyTimeoutVariable, fmt::format("'{}' is not a number of milliseconds", value),
                               "set it to a whole number such as 60000, or unset it");
    return std::chrono::milliseconds(ms);
}

} // namespace

std::string runDatabasePath(const GlobalOptions& global)
{
    return global.dbPath.empty() ? core::defaultRunDatabasePath() : global.dbPath;
}

std::unique_ptr<core::RunStore> openRunStore(const GlobalOptions& global, core::RunStoreOptions options)
{
    options.busyTimeout = busyTimeout(options.busyTimeout);
    if (!options.onLockWait)
        options.onLockWait = [](const std::string& message) { fmt::print(stderr, "cohsim: {}\n", message); };
    auto store = std::make_unique<core::RunStore>(runDatabasePath(global), std::move(options));
    if (!global.quiet) {
        for (const auto& notice : store->notices())
            fmt::print(stderr, "cohsim: {}\n", notice);
    }
    return store;
}

void throwIfCorrupt(const core::RunStore& store)
{
    const auto& problems = store.corruption();
    if (problems.empty())
        return;
    throw core::InputError(store.path(), "",
                           fmt::format("the run database is corrupt ({}{}); what is shown is what could still be "
                                       "read, and nothing can be written to it",
                                       problems.front(),
                                       problems.size() > 1 ? fmt::format("; and {} more", problems.size() - 1) : ""),
                           core::corruptDatabaseFix(store.path()));
}

void throwUnknownRun(const core::RunStore& store, std::int64_t id, const std::string& field)
{
    throw core::InputError(store.path(), field, "there is no run with id " + std::to_string(id),
                           "list the stored runs with `cohsim runs list`");
}

std::int64_t parseStoredId(const std::string& text, const std::string& field, const std::string& what,
                           const std::string& fix)
{
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (error != std::errc{} || end != text.data() + text.size() || id <= 0)
        throw core::InputError("", field, "'" + text + "' is not a " + what + " id", fix);
    return id;
}

std::int64_t parseRunId(const std::string& text)
{
    return parseStoredId(text, "ID", "run", "pass the number shown in the first column of `cohsim runs list`");
}

} // namespace coh::cli
