#include "core/store/default_paths.h"

#include "core/base/input_error.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace coh::core {

namespace fs = std::filesystem;

std::string defaultRunDatabasePath()
{
    return defaultRunDatabasePath(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
}

std::string defaultRunDatabasePath(const char* xdgDataHome, const char* home)
{
    fs::path dataHome;
    if (xdgDataHome && *xdgDataHome && fs::path(xdgDataHome).is_absolute())
        dataHome = xdgDataHome;
    else if (home && *home)
        dataHome = fs::path(home) / ".local" / "share";
    else
        throw InputError("", "$HOME", "neither XDG_DATA_HOME nor HOME is set, so there is no default run database",
                         "pass --db with the path of the run database");

    const fs::path folder = dataHome / "coherence-studio";
    std::error_code error;
    fs::create_directories(folder, error);
    if (error)
        throw InputError(folder.string(), "", "cannot create the folder for the run database: " + error.message(),
                         "make it writable, set XDG_DATA_HOME, or pass --db with another path");
    return (folder / "runs.db").string();
}

} // namespace coh::core
