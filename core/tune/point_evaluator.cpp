#include "core/tune/point_evaluator.h"

#include "core/base/input_error.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/run_options.h"
#include "core/tune/metric_catalog.h"
#include "core/tune/point_executor.h"
#include "core/tune/study_point.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

struct PointEvaluator::Job {
    std::string key;
    Scenario scenario;
    std::shared_ptr<const Workload> workload;
    std::string name;
};

namespace {

// "decode=lazy-causal, factor=2": each varied field by its last pointer token.
std::string shortParams(const StudySpec& study, const Point& point)
{
    std::string text;
    for (std::size_t i = 0; i < study.parameters.size(); ++i) {
        const std::string& pointer = study.parameters[i].pointer;
        const std::string last = pointer.substr(pointer.rfind('/') + 1);
        const nlohmann::json& v = point.values[i];
        text += fmt::format("{}{}={}", text.empty() ? "" : ", ", last, v.is_string() ? v.get<std::string>() : v.dump());
    }
    return text;
}

} // namespace

PointEvaluator::PointEvaluator(const StudySpec& study, RunStore* store, std::int64_t studyId, EvaluatorOptions options)
    : m_study(study)
    , m_store(store)
    , m_studyId(studyId)
    , m_options(std::move(options))
    , m_ownExecutor(m_options.executor ? nullptr : std::make_unique<ThreadExecutor>(m_options.threads))
    , m_executor(m_options.executor ? m_options.executor : m_ownExecutor.get())
    , m_workloads(std::make_unique<WorkloadCache>())
    , m_started(std::chrono::steady_clock::now())
{
}

unsigned PointEvaluator::threads() const
{
    return m_executor->concurrency();
}

PointEvaluator::~PointEvaluator() = default;

void PointEvaluator::recordCapacity(const std::string& key, double capacity)
{
    if (m_store && !key.empty())
        m_store->setStudyPointCapacity(m_studyId, key, capacity);
}

std::vector<PointOutcome> PointEvaluator::outcomes() const
{
    std::vector<PointOutcome> out;
    for (const auto& key : m_order)
        out.push_back(m_known.at(key));
    return out;
}

void PointEvaluator::finished(const PointOutcome& outcome, const std::string& stage)
{
    m_progress.done += 1;
    m_progress.stage = stage;
    m_progress.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    if (m_progress.total > m_progress.done && m_progress.done > 0)
        m_progress.etaSeconds =
            m_progress.elapsedSeconds / static_cast<double>(m_progress.done) * (m_progress.total - m_progress.done);
    else
        m_progress.etaSeconds = m_progress.total > 0 ? 0 : -1;
    if (outcome.cached)
        m_progress.cached += 1;
    if (m_options.pointDone)
        m_options.pointDone(outcome);
    if (m_options.progress)
        m_options.progress(m_progress);
}

PointOutcome PointEvaluator::prepare(const Point& point, std::uint32_t requestLimit, Job& job)
{
    PointOutcome outcome;
    outcome.point = point;
    const std::string params = pointParams(m_study, point).dump();
    if (isExcluded(m_study, point)) {
        outcome.key = "excluded:" + params;
        outcome.excluded = true;
        outcome.error = "excluded by the study's \"exclude\"";
        return outcome;
    }
    nlohmann::json resolved;
    try {
        resolved = resolvePoint(m_study, point, requestLimit);
        // A limit the point's workload does not reach is no limit: the run is its full run.
        if (requestLimit > 0 && resolved == resolvePoint(m_study, point, 0))
            requestLimit = 0;
    } catch (const InputError& e) {
        outcome.key = "invalid:" + params;
        outcome.error = e.what();
        return outcome;
    }
    outcome.requests = requestLimit;
    // An invalid scenario is invalid wherever it runs: recorded, it is never tried again.
    const auto invalid = [&](const std::string& why) {
        outcome.error = why;
        if (m_store && !m_known.count(outcome.key))
            m_store->recordStudyPoint(m_studyId,
                                      {outcome.key, params, requestLimit, std::nullopt, why, StudyPointError::Invalid});
        return outcome;
    };
    try {
        job.scenario = parseScenario(resolved, m_study.scenarioPath);
    } catch (const InputError& e) {
        outcome.key = pointKey(m_study, resolved, nullptr);
        if (m_known.count(outcome.key))
            return m_known.at(outcome.key);
        return invalid(e.what());
    }
    outcome.key = pointKey(m_study, resolved, &job.scenario);
    if (m_known.count(outcome.key))
        return m_known.at(outcome.key);
    if (m_store) {
        if (auto found = m_store->finishedStudyPoint(outcome.key)) {
            outcome.cached = true;
            outcome.runId = found->runId;
            outcome.error = found->error;
            if (found->runId)
                if (auto summary = m_store->runSummary(*found->runId))
                    outcome.metrics = readMetrics(*summary);
            if (outcome.measured() || !outcome.error.empty()) {
                m_store->recordStudyPoint(
                    m_studyId, {outcome.key, params, requestLimit, outcome.runId, outcome.error, found->errorKind});
                return outcome;
            }
            outcome.cached = false; // its run's summary is gone: run it again
            outcome.runId.reset();
            outcome.error.clear();
        }
    }
    try {
        job.workload = m_workloads->workloadFor(job.scenario);
    } catch (const std::exception& e) {
        // The trace could not be read here (missing, unreadable, out of memory): another execution may read it.
        outcome.error = e.what();
        if (m_store)
            m_store->recordStudyPoint(
                m_studyId, {outcome.key, params, requestLimit, std::nullopt, outcome.error, StudyPointError::Failed});
        return outcome;
    }
    job.key = outcome.key;
    job.name = fmt::format("{} · {}{}", m_study.name, shortParams(m_study, point),
                           requestLimit ? fmt::format(" · {} requests", requestLimit) : std::string());
    return outcome;
}

void PointEvaluator::store(Job& job, PointTaskResult& ran)
{
    PointOutcome& outcome = m_known.at(job.key);
    const std::string params = pointParams(m_study, outcome.point).dump();
    if (!ran.error.empty()) {
        outcome.error = ran.error;
        if (m_store)
            m_store->recordStudyPoint(
                m_studyId, {job.key, params, outcome.requests, std::nullopt, ran.error, StudyPointError::Failed});
        return;
    }
    RunResult& result = *ran.result;
    outcome.metrics = readMetrics(result.summary);
    if (!m_study.keepRequests) {
        result.requests.clear();
        result.messages.clear();
        result.nodeBlocks.clear();
        result.iterations.clear();
    }
    if (m_store) // the run and its point in one transaction: a kill leaves both or neither
        outcome.runId = m_store->storeStudyRun(m_studyId, {job.key, params, outcome.requests, std::nullopt, ""},
                                               job.name, job.scenario.json, job.scenario.seed, result);
}

void PointEvaluator::runJobs(std::vector<Job>& jobs, const std::string& stage)
{
    std::vector<PointTask> tasks;
    for (const Job& job : jobs)
        tasks.push_back({&job.scenario, job.workload});
    std::atomic<bool> halt{false};
    bool cancelled = false;
    const auto userCancelled = [&] { return m_options.cancel && m_options.cancel->load(); };
    m_executor->run(
        tasks,
        [&](PointTaskResult& ran) {
            if (ran.cancelled) {
                cancelled = true;
                return;
            }
            Job& job = jobs.at(ran.task);
            store(job, ran);
            m_progress.ran += 1;
            finished(m_known.at(job.key), stage);
            // Stop at once: a run finished meanwhile is still stored, one in flight is dropped.
            if (userCancelled())
                halt = true;
        },
        [&] {
            if (userCancelled())
                halt = true;
        },
        halt);
    if (cancelled || userCancelled())
        throw RunCancelled();
}

std::vector<PointOutcome> PointEvaluator::evaluate(const std::vector<Point>& points, std::uint32_t requestLimit,
                                                   const std::string& stage)
{
    if (m_options.cancel && m_options.cancel->load())
        throw RunCancelled();
    std::vector<Job> jobs;
    std::vector<std::string> keys;
    for (const Point& point : points) {
        Job job;
        PointOutcome outcome = prepare(point, requestLimit, job);
        keys.push_back(outcome.key);
        if (m_known.count(outcome.key))
            continue; // asked before (in this call or an earlier one)
        m_order.push_back(outcome.key);
        const bool toRun = !job.key.empty();
        m_known.emplace(outcome.key, outcome);
        if (toRun)
            jobs.push_back(std::move(job));
        else
            finished(outcome, stage);
    }
    runJobs(jobs, stage);
    std::vector<PointOutcome> out;
    for (const auto& key : keys)
        out.push_back(m_known.at(key));
    return out;
}

} // namespace coh::core
