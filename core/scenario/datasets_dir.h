#pragma once
// Where the shipped datasets live: $COH_DATASETS_DIR when set and non-empty, else the folder the build
// was configured with (COH_DATASETS_DIR in CMake). Relative trace paths and the model catalog use it.
#include <string>

namespace coh::core {

std::string datasetsDir();

} // namespace coh::core
