#pragma once
// Runs that cannot hang a test: a scheduler that livelocks (offloading and fetching the same sequences while none
// decodes, or routing requests back and forth between failures) is cancelled and fails the test.
#include "core/serving/serving_engine.h"

#include <atomic>
#include <cstdint>

namespace coh::test {

using namespace coh::core;

// Cancels a run that passes `maxEvents`.
class EventBudget final : public ProgressListener {
  public:
    explicit EventBudget(std::uint64_t maxEvents)
        : m_max(maxEvents)
    {
    }
    void onProgress(const RunProgress& progress) override
    {
        if (progress.events > m_max)
            cancel = true;
    }
    std::atomic<bool> cancel{false};

  private:
    std::uint64_t m_max;
};

inline RunResult runBounded(const Scenario& s, const Workload& w, std::uint64_t maxEvents = 2'000'000)
{
    EventBudget budget(maxEvents);
    RunOptions options;
    options.progress = &budget;
    options.progressIntervalSeconds = 0;
    options.cancel = &budget.cancel;
    return runScenario(s, w, options);
}

} // namespace coh::test
