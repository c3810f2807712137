#pragma once
// Where the run database lives when the user names none (--db): $XDG_DATA_HOME/coherence-studio/runs.db, else
// $HOME/.local/share/coherence-studio/runs.db, per the XDG base directory spec.
#include <string>

namespace coh::core {

// Reads the environment; creates the folder. Throws InputError when there is no usable home or the folder
// cannot be created.
std::string defaultRunDatabasePath();

// The same from given values (nullptr or empty = unset; a relative XDG_DATA_HOME is ignored, as the spec says).
std::string defaultRunDatabasePath(const char* xdgDataHome, const char* home);

} // namespace coh::core
