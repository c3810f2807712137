#pragma once
// Disaggregated serving over the event kernel: arrival -> router -> prefill queue -> prefill batch (writes
// KV) -> decode admission (KV memory) -> KV read at the decode instance (through KvMemory) -> continuous
// decode batching -> done. Everything observable lands in a RunResult.
#include "core/engine/event_recorder.h"
#include "core/engine/kv_memory.h"
#include "core/engine/latency_histogram.h"
#include "core/engine/run_result.h"
#include "core/net/flow_network.h"
#include "core/net/routing.h"
#include "core/scenario/scenario.h"
#include "core/serving/cost_model.h"
#include "core/serving/instance_state.h"
#include "core/serving/prefix_cache.h"
#include "core/serving/router.h"
#include "core/serving/run_options.h"
#include "core/sim/simulator.h"
#include "core/workload/request.h"

#include <chrono>
#include <memory>
#include <vector>

namespace coh::core {

class ServingEngine final : public KvListener, public PrefixLoadListener {
  public:
    ServingEngine(const Scenario& scenario, const Workload& workload);
    ~ServingEngine() override;

    // Runs to completion; throws RunCancelled if options.cancel is raised.
    RunResult run(const RunOptions& options = {});

    // The event handler the kernel calls (a switch on the kind: no virtual dispatch per event).
    void operator()(const Event& ev);
    void onKvReady(std::uint32_t request) override;
    void onStepReady(std::uint32_t request) override;
    void onPrefixLoaded(std::uint32_t instance) override;

    const Routing& routing() const { return m_routing; }
    const std::vector<InstanceState>& instances() const { return m_instances; }

  private:
    void buildInstances();
    // Throws InputError for input no run can serve sensibly (run_limits.cpp): a request larger than every
    // decode instance's KV, a step longer than kMaxStepTime.
    void refuseImpossibleInput() const;
    void onArrival(std::uint32_t request);
    void onPrefillDone(std::uint32_t instance);
    void onDecodeKick(std::uint32_t instance);
    void onDecodeDone(std::uint32_t instance);
    void onHeartbeat();

    void tryStart(std::uint32_t instance);
    bool claimDevices(std::uint32_t instance);
    void releaseDevices(std::uint32_t instance);
    void startPrefill(InstanceState& inst, std::uint32_t index);
    void startDecode(InstanceState& inst, std::uint32_t index);
    void runDecodeCompute(InstanceState& inst, std::uint32_t index);
    void tryAdmit(std::uint32_t instance);
    void finishRequest(std::uint32_t request, InstanceState& inst);
    std::uint32_t blocksFor(std::uint32_t request) const;
    RunResult collect();

    const Scenario& m_scenario;
    const Workload& m_workload;
    Simulator m_sim;
    Routing m_routing;
    FlowNetwork m_network;
    EventRecorder m_recorder;
    CostModel m_cost;
    std::vector<InstanceState> m_instances;
    std::unique_ptr<Router> m_router;
    std::unique_ptr<KvMemory> m_kv;
    std::unique_ptr<PrefixCache> m_prefix; // the shared prefix pool, when the scenario has one

    std::vector<RequestMetrics> m_metrics;
    std::vector<RequestState> m_state;
    LatencyHistogram m_interTokenGaps;
    std::uint64_t m_finished = 0;
    std::uint64_t m_rejected = 0;

    // Instances that share a node (role "both") take turns on the device.
    bool m_sharedDevices = false;
    std::vector<std::uint8_t> m_nodeBusy;
    std::vector<std::vector<std::uint32_t>> m_nodeWaiters;

    const RunOptions* m_options = nullptr;
    SimTime m_heartbeatPeriod = 0;
    std::chrono::steady_clock::time_point m_lastProgress;
};

// What `cohsim validate` checks beyond the file: the engine is built for this workload (instances, KV path,
// the limits of run_limits.cpp) and not run. Throws InputError where runScenario would.
void checkRunnable(const Scenario& scenario, const Workload& workload);

// Convenience: build the engine and run it.
RunResult runScenario(const Scenario& scenario, const Workload& workload, const RunOptions& options = {});

} // namespace coh::core
