#include "core/scenario/datasets_dir.h"

#include <cstdlib>

namespace coh::core {

std::string datasetsDir()
{
    if (const char* env = std::getenv("COH_DATASETS_DIR"); env && *env)
        return env;
    return COH_DATASETS_DIR;
}

} // namespace coh::core
