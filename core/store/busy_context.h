#pragma once
// Inside core/store only: what RunStore's busy handler shares with the rest of the store (the options it obeys,
// and how long the last wait for a lock lasted, for the error message).
#include "core/store/run_store.h"
#include "core/store/store_errors.h"

#include <chrono>
#include <string>

namespace coh::core {

struct RunStore::BusyContext {
    std::string path;
    const RunStoreOptions* options = nullptr;
    std::chrono::steady_clock::time_point since;
    LockWait last;
};

} // namespace coh::core
