#pragma once
// Where a study's simulations run: the seam between the tuner (which points, the cache, the one writer) and the
// machines that run them. ThreadExecutor runs them on this process's cores; the MPI executor of cohsim-tune-mpi
// (app/cohsim-mpi) sends them to other ranks. Either way `finished` is called on the writer's thread.
#include "core/engine/run_result.h"
#include "core/scenario/scenario.h"
#include "core/workload/request.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace coh::core {

// One simulation to run: the resolved scenario, parsed here, and its text for an executor that sends it elsewhere.
struct PointTask {
    const Scenario* scenario = nullptr;
    std::shared_ptr<const Workload> workload; // built by this process; a remote rank builds its own
};

struct PointTaskResult {
    std::size_t task = 0;              // index into the tasks given to run()
    std::unique_ptr<RunResult> result; // when it ran
    std::string error;                 // when it threw (deterministic: running it again fails the same way)
    bool cancelled = false;            // stopped by `halt`
};

class PointExecutor {
  public:
    virtual ~PointExecutor() = default;
    // How many simulations run at once.
    virtual unsigned concurrency() const = 0;
    // Runs every task and calls `finished` once for each, on the calling thread, as they complete. `idle` is called
    // on the calling thread at least every 50 ms while it waits. Once `halt` is set no task starts, and running
    // ones stop where they can (they come back cancelled). Exceptions from `finished` or `idle` stop the tasks and
    // propagate.
    virtual void run(const std::vector<PointTask>& tasks, const std::function<void(PointTaskResult&)>& finished,
                     const std::function<void()>& idle, std::atomic<bool>& halt) = 0;
};

// Worker threads on this machine, each running whole simulations.
class ThreadExecutor final : public PointExecutor {
  public:
    explicit ThreadExecutor(unsigned threads); // 0: one per core
    unsigned concurrency() const override { return m_threads; }
    void run(const std::vector<PointTask>& tasks, const std::function<void(PointTaskResult&)>& finished,
             const std::function<void()>& idle, std::atomic<bool>& halt) override;

  private:
    unsigned m_threads;
};

// Workloads by what they depend on, built once: points that vary only the system share their requests, and a trace
// is read once per file and request limit (a point at another time_scale gets the cached requests scaled, as the
// trace reader scales them).
class WorkloadCache {
  public:
    std::shared_ptr<const Workload> workloadFor(const Scenario& scenario);

  private:
    std::map<std::string, std::shared_ptr<const Workload>> m_workloads;
};

// Runs one task as a ThreadExecutor's worker does: the exceptions it may throw become the result's error.
PointTaskResult runPointTask(const Scenario& scenario, const Workload& workload, const std::atomic<bool>& halt);

} // namespace coh::core
