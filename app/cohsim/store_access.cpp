#include "app/cohsim/store_access.h"

#include "core/scenario/input_error.h"
#include "core/store/default_paths.h"

#include <charconv>

namespace coh::cli {

std::string runDatabasePath(const GlobalOptions& global)
{
    return global.dbPath.empty() ? core::defaultRunDatabasePath() : global.dbPath;
}

std::unique_ptr<core::RunStore> openRunStore(const GlobalOptions& global)
{
    return std::make_unique<core::RunStore>(runDatabasePath(global));
}

void throwUnknownRun(const core::RunStore& store, std::int64_t id)
{
    throw core::InputError(store.path(), "ID", "there is no run with id " + std::to_string(id),
                           "list the stored runs with `cohsim runs list`");
}

std::int64_t parseRunId(const std::string& text)
{
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (error != std::errc{} || end != text.data() + text.size() || id <= 0)
        throw core::InputError("", "ID", "'" + text + "' is not a run id",
                               "pass the number shown in the first column of `cohsim runs list`");
    return id;
}

} // namespace coh::cli
