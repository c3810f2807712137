#pragma once
// Runs a study's points: on every core (a pool of worker threads, each running whole simulations), each
// identical point once (by the key of its resolved scenario, in this process and across the run store), every
// finished point stored by one writer (the calling thread) as a run linked to the study. Cancellable; what
// finished before a cancel, an error or a kill stays stored, and a study run again takes it from the store.
#include "core/store/run_store.h"
#include "core/tune/point_executor.h"
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace coh::core {

struct StudyProgress {
    std::uint64_t done = 0;  // points evaluated so far (run, cached, invalid or excluded)
    std::uint64_t total = 0; // points the study expects to evaluate (a search's budget)
    std::uint64_t ran = 0, cached = 0;
    double elapsedSeconds = 0;
    double etaSeconds = -1; // -1: not known yet
    std::string stage;      // "full workload", "50 requests", "generation 3", ...
};

struct EvaluatorOptions {
    unsigned threads = 0;                      // worker threads; 0: one per core
    PointExecutor* executor = nullptr;         // where the simulations run; null: a ThreadExecutor of `threads`
    const std::atomic<bool>* cancel = nullptr; // polled by the writer and by every run
    std::function<void(const StudyProgress&)> progress; // on the writer's thread, after each point
    std::function<void(const PointOutcome&)> pointDone; // on the writer's thread: each point as it is known
};

class PointEvaluator {
  public:
    // `store` may be null (nothing stored, no cross-study cache); then `studyId` is ignored.
    PointEvaluator(const StudySpec& study, RunStore* store, std::int64_t studyId, EvaluatorOptions options);
    ~PointEvaluator();

    // Evaluates the points with `requestLimit` requests (0: the scenario's own) and returns their outcomes in
    // the points' order. Throws RunCancelled after a cancel (finished points are stored), and the store's
    // errors as they come.
    std::vector<PointOutcome> evaluate(const std::vector<Point>& points, std::uint32_t requestLimit,
                                       const std::string& stage);

    // The points the study expects in all (for the progress's ETA).
    void setExpectedTotal(std::uint64_t total) { m_progress.total = total; }
    // Every distinct point evaluated so far, in the order they were first asked for.
    std::vector<PointOutcome> outcomes() const;
    const StudyProgress& progress() const { return m_progress; }
    unsigned threads() const;
    // A capacity search chose the point `key`'s run at `capacity`: the store says so (StudyPoint::capacityAtSlo).
    void recordCapacity(const std::string& key, double capacity);

  private:
    struct Job;
    PointOutcome prepare(const Point& point, std::uint32_t requestLimit, Job& job);
    void runJobs(std::vector<Job>& jobs, const std::string& stage);
    void store(Job& job, PointTaskResult& ran);
    void finished(const PointOutcome& outcome, const std::string& stage);

    const StudySpec& m_study;
    RunStore* m_store;
    std::int64_t m_studyId;
    EvaluatorOptions m_options;
    std::unique_ptr<PointExecutor> m_ownExecutor;
    PointExecutor* m_executor;
    std::map<std::string, PointOutcome> m_known; // by key
    std::vector<std::string> m_order;            // keys, first asked first
    std::unique_ptr<WorkloadCache> m_workloads;
    StudyProgress m_progress;
    std::chrono::steady_clock::time_point m_started;
};

} // namespace coh::core
