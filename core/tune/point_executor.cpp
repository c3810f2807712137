#include "core/tune/point_executor.h"

#include "core/serving/serving_engine.h"
#include "core/workload/trace_replay.h"
#include "core/workload/workload_builder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace coh::core {

ThreadExecutor::ThreadExecutor(unsigned threads)
    : m_threads(threads ? threads : std::max(1u, std::thread::hardware_concurrency()))
{
}

PointTaskResult runPointTask(const Scenario& scenario, const Workload& workload, const std::atomic<bool>& halt)
{
    PointTaskResult out;
    RunOptions options;
    options.cancel = &halt;
    try {
        out.result = std::make_unique<RunResult>(runScenario(scenario, workload, options));
    } catch (const RunCancelled&) {
        out.cancelled = true;
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

void ThreadExecutor::run(const std::vector<PointTask>& tasks, const std::function<void(PointTaskResult&)>& finished,
                         const std::function<void()>& idle, std::atomic<bool>& halt)
{
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<PointTaskResult> done;
    unsigned active = std::min<unsigned>(m_threads, static_cast<unsigned>(tasks.size()));

    const auto work = [&] {
        while (!halt.load()) {
            const std::size_t i = next.fetch_add(1);
            if (i >= tasks.size())
                break;
            PointTaskResult result = runPointTask(*tasks[i].scenario, *tasks[i].workload, halt);
            result.task = i;
            const std::lock_guard lock(mutex);
            done.push_back(std::move(result));
            wake.notify_one();
        }
        const std::lock_guard lock(mutex);
        --active;
        wake.notify_one();
    };
    std::vector<std::jthread> workers;
    const unsigned count = active;
    for (unsigned t = 0; t < count; ++t)
        workers.emplace_back(work);
    try {
        std::unique_lock lock(mutex);
        while (active > 0 || !done.empty()) {
            wake.wait_for(lock, std::chrono::milliseconds(50), [&] { return !done.empty() || active == 0; });
            lock.unlock();
            idle();
            lock.lock();
            while (!done.empty()) {
                PointTaskResult result = std::move(done.front());
                done.pop_front();
                lock.unlock();
                finished(result);
                lock.lock();
            }
        }
    } catch (...) {
        halt = true;
        throw; // the workers stop at their next event and join as `workers` is destroyed
    }
}

std::shared_ptr<const Workload> WorkloadCache::workloadFor(const Scenario& scenario)
{
    const WorkloadSpec& spec = scenario.workload;
    if (spec.kind == WorkloadKind::Trace) {
        const TraceWorkload& trace = spec.trace;
        const nlohmann::json key = {{"trace", trace.resolvedPath.empty() ? trace.path : trace.resolvedPath},
                                    {"format", toString(trace.format)},
                                    {"max_requests", trace.maxRequests}};
        auto& unscaled = m_workloads[key.dump()];
        if (!unscaled) {
            WorkloadSpec atRecordedPace = spec;
            atRecordedPace.trace.timeScale = 1.0;
            unscaled = std::make_shared<const Workload>(buildWorkload(atRecordedPace, scenario.seed));
        }
        if (trace.timeScale == 1.0)
            return unscaled;
        auto scaled = std::make_shared<Workload>(*unscaled);
        scaleArrivals(*scaled, trace.timeScale, trace.path);
        return scaled;
    }
    const nlohmann::json key = {{"workload", nlohmann::json::parse(scenario.json).at("workload")},
                                {"seed", scenario.seed}};
    auto& slot = m_workloads[key.dump()];
    if (!slot)
        slot = std::make_shared<const Workload>(buildWorkload(spec, scenario.seed));
    return slot;
}

} // namespace coh::core
