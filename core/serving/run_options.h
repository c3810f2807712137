#pragma once
// How a caller (CLI, GUI worker thread, test) steers a run: cancellation, progress and the backend.
#include "core/base/run_cancelled.h"
#include "core/real/backend.h"
#include "core/serving/replayed_routes.h"
#include "core/sim/time.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

namespace coh::core {

struct RunProgress {
    SimTime now = 0;
    std::uint64_t completed = 0; // requests finished (or rejected)
    std::uint64_t total = 0;
    std::uint64_t events = 0;
};

// Called from the simulation's heartbeat event on the thread that runs it; the GUI adapts it to a signal.
class ProgressListener {
  public:
    virtual ~ProgressListener() = default;
    virtual void onProgress(const RunProgress& progress) = 0;
};

struct RunOptions {
    const std::atomic<bool>* cancel = nullptr; // polled once per event
    ProgressListener* progress = nullptr;
    double progressIntervalSeconds = 0.2; // wall-clock spacing of progress reports
    BackendOptions backend;               // what executes the messages: simulated unless a real backend is asked for
    // Where another run routed each request (routesOf), to route it there again (ReplayedRoutes) in place of the
    // scenario's router; none: the router decides. An empty recording replays nothing: every request is routed anew,
    // and the run says so.
    std::optional<std::vector<RequestRoute>> routes;
};

} // namespace coh::core
