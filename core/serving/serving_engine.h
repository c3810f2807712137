#pragma once
// Disaggregated serving over the event kernel: arrival -> routing policy -> prefill queue -> prefill batch
// (writes KV) -> routing policy -> decode admission (KV memory) -> KV read at the decode instance (through
// KvMemory) -> continuous decode batching -> done. Everything observable lands in a RunResult.
//
// The engine moves requests between the parts that own each job: RoutingPolicy (where a request goes, through
// a read-only ClusterView), PrefillScheduler (queues, batches, prefix loads), DecodeScheduler (admission,
// continuous batching), DeviceSharing (instances on one node take turns), and each instance's life cycle
// (InstanceLife: only an instance that is up takes work). serving_events.h orders same-instant events.
#include "core/engine/event_recorder.h"
#include "core/engine/kv_memory.h"
#include "core/engine/run_result.h"
#include "core/net/routing.h"
#include "core/net/transport.h"
#include "core/scenario/scenario.h"
#include "core/serving/cluster_view.h"
#include "core/serving/compute_cost.h"
#include "core/serving/cost_model.h"
#include "core/serving/decode_scheduler.h"
#include "core/serving/device_sharing.h"
#include "core/serving/failures.h"
#include "core/serving/instance_state.h"
#include "core/serving/kv_tiers.h"
#include "core/serving/local_prefix_cache.h"
#include "core/serving/prefill_scheduler.h"
#include "core/serving/prefix_cache.h"
#include "core/serving/resume_loads.h"
#include "core/serving/routing_policy.h"
#include "core/serving/run_options.h"
#include "core/sim/simulator.h"
#include "core/workload/request.h"

#include <chrono>
#include <deque>
#include <memory>
#include <vector>

namespace coh::core {

class ServingEngine final : public KvListener, public PrefixLoadListener, public KvTierListener {
  public:
    // `backend` executes the messages (docs/real-backend.md); throws InputError when it cannot run the scenario.
    ServingEngine(const Scenario& scenario, const Workload& workload, const BackendOptions& backend = {});
    ~ServingEngine() override;

    // Runs to completion; throws RunCancelled if options.cancel is raised.
    RunResult run(const RunOptions& options = {});

    // The event handler the kernel calls (a switch on the kind: no virtual dispatch per event).
    void operator()(const Event& ev);
    // KvMemory and KvTiers name KV sequences: a request's own id until a failure starts its KV over.
    void onKvReady(std::uint32_t sequence) override { toDecode(sequence, &DecodeScheduler::onKvReady); }
    void onStepReady(std::uint32_t sequence) override { toDecode(sequence, &DecodeScheduler::onStepReady); }
    void onPrefixLoaded(std::uint32_t instance) override { m_prefill->onPrefixLoaded(instance); }
    void onOffloaded(std::uint32_t sequence) override { toDecode(sequence, &DecodeScheduler::onOffloaded); }
    void onFetched(std::uint32_t sequence) override { toDecode(sequence, &DecodeScheduler::onFetched); }

    const Routing& routing() const { return m_routing; }
    const std::vector<InstanceState>& instances() const { return m_instances; }

  private:
    // Throws InputError for input no run can serve sensibly (run_limits.cpp): a request larger than every
    // decode instance's KV, a step longer than kMaxStepTime.
    void refuseImpossibleInput() const;
    void onArrival(std::uint32_t request);
    void onPrefillDone(std::uint32_t instance);
    void onDecodeKick(std::uint32_t instance);
    void onDecodeDone(std::uint32_t instance);
    void onHeartbeat();

    // Node failures (failure_recovery.cpp).
    static constexpr std::uint32_t kNoRequest = UINT32_MAX;
    // The request whose current KV sequence this is; kNoRequest for one a failure made it give up.
    std::uint32_t requestOf(std::uint32_t sequence) const
    {
        const std::uint32_t r = sequence < m_state.size() ? sequence : m_kvOwner[sequence - m_state.size()];
        return m_state[r].kv == sequence ? r : kNoRequest;
    }
    // Hands a KV callback to the decode scheduler as its request's, unless the sequence is one a failure gave up.
    void toDecode(std::uint32_t sequence, void (DecodeScheduler::*handle)(std::uint32_t))
    {
        if (const auto r = requestOf(sequence); r != kNoRequest)
            (m_decode.get()->*handle)(r);
    }
    void onNodeFail(std::uint32_t entry);
    void onFailureDetected(std::uint32_t record);
    void onNodeRepair(std::uint32_t record);
    // Link failures (link_failures.cpp): the network stops, reroutes and resumes the messages; no request is lost.
    void onLinkFail(std::uint32_t entry);
    void onLinkFailureDetected(std::uint32_t record);
    void onLinkRepair(std::uint32_t record);
    // A failure took the request (its instance, or its KV's only copy): it waits in the record until detected.
    void take(std::uint32_t request, std::uint32_t record);
    // The requests of a stopped instance, which is left empty.
    std::vector<std::uint32_t> takeAll(std::uint32_t instance);
    void recover(const LostRequest& lost);
    // A later failure took what a request waiting for its recovery still had: its KV source, or its copy.
    void loseMore(LostRequest& lost);
    // The node failed: recomputes that would resume from a prefix there and have not started loading it compute
    // everything instead.
    void cancelResumesFrom(std::uint32_t node);
    // The request's KV sequence is given up; with recovery "replica" the copy to restore from is chosen first.
    void abandonKv(LostRequest& lost);
    // No instance of the role is up: wait for a repair, or fail when none can come.
    void waitForInstance(std::uint32_t request, InstanceRole role);
    void giveUp(std::uint32_t request);
    void newSequence(std::uint32_t request);
    bool kvSourceDown(std::uint32_t request) const;
    // To an instance that is up, or to wait for one (routing found none).
    void routeToPrefill(std::uint32_t request);
    void routeToDecode(std::uint32_t request);
    std::uint32_t instancesRunning() const;
    bool allAccounted() const;
    // When the run's last request was done: runs with MTBF failures may have a failure pending past it.
    SimTime runEnd() const;

    // Starts the instance's next iteration if it is up, idle, has work and gets its device.
    void tryStart(std::uint32_t instance);
    // After an iteration: the device goes to whoever waited for it, then the instance tries again.
    void endIteration(std::uint32_t instance);
    RunResult collect();

    const Scenario& m_scenario;
    const Workload& m_workload;
    Simulator m_sim;
    Routing m_routing;
    std::unique_ptr<real::NodeResources> m_workers; // what plays the nodes on a real backend; null when simulated
    std::unique_ptr<Transport> m_transport;         // the backend's: the simulated network or real copies
    EventRecorder m_recorder;
    Reservoir<DecodeIterationRecord> m_iterations; // the decode iterations' record (record.max_iterations)
    CostModel m_cost;
    std::unique_ptr<ComputeCost> m_compute; // the roofline, or measured kernels on a real backend
    std::vector<InstanceState> m_instances;
    ClusterView m_view;
    DeviceSharing m_devices;
    std::unique_ptr<RoutingPolicy> m_policy;
    std::unique_ptr<KvMemory> m_kv;
    std::unique_ptr<PrefixCache> m_prefix;                       // the shared prefix pool, when the scenario has one
    std::unique_ptr<LocalPrefixCache> m_local;                   // the prefill instances' own prefix caches, when kept
    std::unique_ptr<KvTiers> m_tiers;                            // decode KV below HBM (serving.kv_tiers), when listed
    std::unique_ptr<Failures> m_failures;                        // the scenario's node failures, when it lists any
    std::unique_ptr<ResumeLoads> m_resume;                       // recomputes' prefix loads, with m_failures
    std::vector<std::uint32_t> m_kvOwner;                        // per KV sequence past the requests' own: its request
    std::deque<std::uint32_t> m_waitingPrefill, m_waitingDecode; // no instance of the role was up for them
    std::uint64_t m_failed = 0;                                  // requests given up

    std::vector<RequestMetrics> m_metrics;
    std::vector<RequestState> m_state;
    std::unique_ptr<PrefillScheduler> m_prefill; // built once the KV path and the pool are
    std::unique_ptr<DecodeScheduler> m_decode;

    const RunOptions* m_options = nullptr;
    SimTime m_heartbeatPeriod = 0;
    std::chrono::steady_clock::time_point m_lastProgress;
};

// What `cohsim validate` checks beyond the file: the engine is built for this workload (instances, KV path,
// the limits of run_limits.cpp, what the backend can run) and not run. Throws InputError where runScenario would.
void checkRunnable(const Scenario& scenario, const Workload& workload, const BackendOptions& backend = {});

// Convenience: build the engine and run it.
RunResult runScenario(const Scenario& scenario, const Workload& workload, const RunOptions& options = {});

} // namespace coh::core
