#pragma once
// The backends a run can execute on, by name (docs/real-backend.md): "simulated" (the flow network), "real-cpu"
// (real copies between worker threads' memories on this machine) and "real-cuda" (real copies between partitions of
// this machine's GPUs, and the CUDA attention). Whatever the backend, the run goes
// through the same engine, protocols, store and views; only the transport differs.
#include "core/net/transport.h"
#include "core/real/calibration.h"
#include "core/real/copy_transport.h"
#include "core/real/injected_fault.h"
#include "core/real/memory_fit.h"
#include "core/scenario/scenario.h"
#include "core/sim/simulator.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core {

struct BackendOptions {
    std::string name = "simulated"; // one of backendNames()
    real::RealCpuOptions realCpu;   // for either real backend
    // Simulated only: a decode step's attention costs what this profile predicts real-cpu measures
    // (CalibratedCompute); run it on real::profiledScenario() to have the copies' costs too.
    std::optional<real::HardwareProfile> profile;
    // Real backends only: a fault the run plays on purpose, for its checks to catch (cohsim run --inject).
    std::optional<real::InjectedFault> fault;
};

// The size of one descriptor of a real-cpu copy: one layer's K and V of one KV block, the contiguous piece of a
// cache laid out per layer as vLLM lays it out (RealCpuOptions::descriptorBytes).
std::size_t descriptorBytesFor(const Scenario& scenario);

// The names makeTransport() knows, in the order a user is offered them.
const std::vector<std::string>& backendNames();
// "sim" is taken for "simulated"; anything else unknown is an InputError naming the choices.
std::string canonicalBackendName(std::string_view name);

// What plays the nodes on a real backend (none made yet): worker threads for real-cpu, GPU partitions for real-cuda;
// null for the simulated backend. Throws InputError when the backend cannot run the scenario (e.g. a link failure:
// this machine's memory paths cannot fail on cue; real-cuda without a GPU), naming the field and the fix.
std::unique_ptr<real::NodeResources> makeNodeResources(const BackendOptions& options, const Scenario& scenario);
// The backend's transport: the flow network without real nodes, real copies between them with.
// A copy fault of `fault` is played on the copy it names.
std::unique_ptr<Transport> makeTransport(const Scenario& scenario, Routing& routing, Simulator& sim,
                                         std::uint32_t wakeKind, std::uint32_t deliverKind, real::NodeResources* nodes,
                                         const std::optional<real::InjectedFault>& fault = {});

// What makeTransport() would refuse, without building anything: `cohsim validate` and the GUI ask first.
void checkBackendRuns(const BackendOptions& options, const Scenario& scenario);

// The memories a real backend makes for a scenario: an arena per node and a K/V pool per decode instance's first
// node, each starting at arenaBytes; the pools growing to poolMaxBytes (RealCpuOptions::kPoolAsMemoryAllows worked
// out from the memory they live in, or arenaBytes where that cannot be told).
struct RealMemoryPlan {
    real::MemoryNeed need;
    std::size_t arenaBytes = 0;
    std::size_t poolMaxBytes = 0;
    std::string poolMemory;                 // where the pools live: "this machine's memory", "the GPU's memory"...
    std::optional<std::uint64_t> available; // of it; none where it cannot be told
};
RealMemoryPlan realMemoryPlan(const BackendOptions& options, const Scenario& scenario);
// The plan as `cohsim validate` says it: "10 node memories of 64 MiB; 4 decode K/V pools that start at 64 MiB and
// grow to 3740 MiB at most, in this machine's memory (21.3 GiB available)".
std::string describeMemoryPlan(const RealMemoryPlan& plan);

} // namespace coh::core
