#include "core/engine/run_result.h"

namespace coh::core {

const char* toString(MessageKind kind)
{
    switch (kind) {
    case MessageKind::KvData:
        return "kv-data";
    }
    return "unknown";
}

} // namespace coh::core
