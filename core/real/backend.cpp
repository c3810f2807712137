#include "core/real/backend.h"

#include "core/base/input_error.h"
#include "core/gpu/cuda_devices.h"
#include "core/gpu/gpu_memory.h"
#include "core/net/flow_network.h"
#include "core/real/gpu_nodes.h"
#include "core/real/memory_fit.h"
#include "core/real/node_workers.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

const std::vector<std::string>& backendNames()
{
    static const std::vector<std::string> names{"simulated", "real-cpu", "real-cuda"};
    return names;
}

std::string canonicalBackendName(std::string_view name)
{
    if (name == "sim")
        return "simulated";
    for (const auto& known : backendNames())
        if (name == known)
            return known;
    throw InputError("", "--backend", fmt::format("there is no backend \"{}\"", name),
                     fmt::format("use one of: {}", fmt::join(backendNames(), ", ")));
}

namespace {

// Nodes are dealt over the GPUs in turn: the smallest GPU bounds what each may hold.
std::uint64_t smallestGpuMemory(const GpuInventory& gpus)
{
    std::uint64_t smallest = gpus.devices.front().memoryBytes;
    for (const GpuDevice& d : gpus.devices)
        smallest = std::min(smallest, d.memoryBytes);
    return smallest;
}

// The memory a real backend's K/V pools live in, with the arenas that share it: this machine's for real-cpu; for
// real-cuda one GPU's, the smallest: nodes are dealt over the GPUs in the order they first copy, so every pool and
// every GPU arena may land on the same one. None where it cannot be told.
struct PoolMemory {
    real::MemoryNeed need;
    std::uint64_t available = 0;
    std::string name;
};

std::optional<PoolMemory> poolMemory(const std::string& backend, const Scenario& scenario)
{
    const real::MemoryNeed need = real::realMemoryNeed(scenario);
    if (backend == "real-cuda") {
        const GpuInventory gpus = probeGpus();
        if (gpus.devices.empty())
            return std::nullopt;
        const std::uint64_t smallest = smallestGpuMemory(gpus);
        // CPU sockets, CXL memory and storage are pinned host memory (gpu_nodes.h), not the GPUs'.
        return PoolMemory{real::MemoryNeed{need.arenas - need.hostArenas, need.pools, 0}, smallest,
                          gpus.devices.size() == 1 ? "the GPU's memory" : "the smallest GPU's memory"};
    }
    if (const auto available = real::availableHostMemory())
        return PoolMemory{need, *available, "this machine's memory"};
    return std::nullopt;
}

void checkPoolMax(const BackendOptions& options, const std::string& backend, const Scenario& scenario)
{
    const std::size_t poolMax = options.realCpu.poolMaxBytes;
    const std::size_t arena = options.realCpu.arenaBytes;
    if (poolMax == real::RealCpuOptions::kPoolAsMemoryAllows)
        return;
    if (poolMax < arena)
        throw InputError("", "--pool-mib",
                         fmt::format("a decode node's K/V pool starts at --arena-mib ({}) and only grows, so it cannot "
                                     "stop at {}",
                                     real::memorySize(arena), real::memorySize(poolMax)),
                         fmt::format("give --pool-mib {} or more (that much keeps it from growing), or a smaller "
                                     "--arena-mib",
                                     arena >> 20));
    if (const auto memory = poolMemory(backend, scenario))
        real::checkPoolFits(memory->need, arena, poolMax, memory->available, memory->name);
}

// One block of the largest decode pool (K and V of one layer, a decode node's share of the KV heads): a pool holds at
// least one, whatever --pool-mib or the memory leave it.
std::uint64_t largestPoolBlockBytes(const Scenario& scenario, const std::string& backend)
{
    const ModelSpec& model = scenario.model;
    const std::uint64_t element = real::kvElementBytes(backend, model.dtypeBytes);
    std::uint64_t largest = 0;
    for (const InstanceSpec& inst : scenario.serving.instances)
        if (inst.role != InstanceRole::Prefill && !inst.nodes.empty()) {
            const auto tp = static_cast<std::uint32_t>(std::max<std::size_t>(1, inst.nodes.size()));
            const std::uint64_t kvHeads = std::max(1u, model.kvHeads / tp);
            largest = std::max(largest, 2 * kvHeads * std::max(1u, model.headDim) *
                                            std::max(1u, scenario.serving.blockTokens) * element);
        }
    return largest;
}

// A block larger than its pool may grow: the pool would be made one block large anyway, past --pool-mib and the
// memory check.
void checkBlockFitsPool(const BackendOptions& options, const std::string& backend, const Scenario& scenario)
{
    const std::uint64_t block = largestPoolBlockBytes(scenario, backend);
    const std::uint64_t poolMax = realMemoryPlan(options, scenario).poolMaxBytes;
    if (block == 0 || block <= poolMax)
        return;
    const std::uint32_t tokens = std::max(1u, scenario.serving.blockTokens);
    const std::uint64_t fitting = static_cast<std::uint64_t>(static_cast<double>(tokens) * poolMax / block);
    const bool userCap = options.realCpu.poolMaxBytes != real::RealCpuOptions::kPoolAsMemoryAllows;
    throw InputError(
        scenario.sourcePath, "/serving/block_tokens",
        fmt::format("one K/V block of {} tokens takes {} in a decode node's pool (K and V of one layer), more than "
                    "the pool may grow to here ({}{})",
                    tokens, real::memorySize(block), real::memorySize(poolMax),
                    userCap ? ", --pool-mib" : ", what this machine's memory leaves it"),
        fitting >= 1 ? fmt::format("give block_tokens {} or less{}", fitting, userCap ? ", or a larger --pool-mib" : "")
                     : std::string(userCap ? "give a larger --pool-mib" : "run this model on the simulator"));
}

// A tensor-parallel group splits the model's heads among its nodes as a real engine does: evenly, each node its share
// of the query heads and of the KV heads (or, with more nodes than heads, each head on as many nodes). Another
// size would give each node the floor of its share and leave the remaining heads out of every transfer and step.
void checkTensorParallelSplits(const Scenario& scenario)
{
    const ModelSpec& model = scenario.model;
    const auto splits = [&](std::uint32_t tp) {
        const auto even = [tp](std::uint32_t heads) { return heads % tp == 0 || tp % heads == 0; };
        return even(model.heads) && even(model.kvHeads);
    };
    const auto& instances = scenario.serving.instances;
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const auto tp = static_cast<std::uint32_t>(instances[i].nodes.size());
        if (tp <= 1 || model.heads == 0 || model.kvHeads == 0 || splits(tp))
            continue;
        std::vector<std::uint32_t> sizes;
        for (std::uint32_t t = 1; t <= std::max(2 * tp, 16u); ++t)
            if (splits(t))
                sizes.push_back(t);
        throw InputError(scenario.sourcePath, fmt::format("/serving/instances/{}/nodes", i),
                         fmt::format("{} nodes cannot split {}'s {} query heads and {} KV heads evenly: the real "
                                     "backend would give each node {} KV heads and carry none of the other {}",
                                     tp, model.name, model.heads, model.kvHeads, std::max(1u, model.kvHeads / tp),
                                     model.kvHeads > tp ? model.kvHeads % tp : 0),
                         fmt::format("give the instance {} or {} nodes (a tensor-parallel group the heads split "
                                     "over), or run it on the simulator",
                                     fmt::join(sizes.begin(), sizes.end() - 1, ", "), sizes.back()));
    }
}

} // namespace

void checkBackendRuns(const BackendOptions& options, const Scenario& scenario)
{
    const std::string name = canonicalBackendName(options.name);
    if (name == "simulated" && options.fault)
        throw InputError("", "--inject", "the simulated backend moves no bytes for a fault to corrupt",
                         "inject it into a real run: --backend real-cpu (or real-cuda)");
    if (name == "simulated" && options.realCpu.poolMaxBytes != real::RealCpuOptions::kPoolAsMemoryAllows)
        throw InputError("", "--pool-mib", "the simulated backend holds no K/V pool in this machine's memory",
                         "use it with --backend real-cpu or real-cuda");
    if (name == "simulated")
        return;
    if (options.fault && options.fault->read == real::ReadFault::CorruptedRow && !options.realCpu.sumSeals)
        throw InputError("", "--inject",
                         "corrupted-row changes a block's bytes and leaves its stamp as it was, so only the sum of its "
                         "rows against its seal can catch it, and this run does not sum them",
                         "leave out --no-seal-sums, or inject another fault");
    if (options.profile)
        throw InputError("", "--profile", "a calibrated profile stands in for real-cpu in a simulated run",
                         "run the profile on the simulated backend, or real-cpu without a profile");
    const auto& events = scenario.failures.events;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].isLink())
            throw InputError(scenario.sourcePath, fmt::format("/failures/events/{}/link", i),
                             fmt::format("the {} backend cannot fail link \"{}\": this machine's memory paths do "
                                         "not fail on cue",
                                         name, events[i].link),
                             "remove the link failure, or run it on the simulated backend (--backend simulated)");
    if (options.realCpu.arenaBytes < real::NodeArena::kAlign)
        throw InputError("", "--arena-mib", "a node's arena must hold at least one cache line",
                         "give it 1 MiB or more");
    if (name == "real-cuda") {
        const GpuInventory gpus = probeGpus();
        if (gpus.devices.empty())
            throw InputError("", "--backend",
                             fmt::format("real-cuda needs a GPU, and there is none here: {}", gpus.reason),
                             "run it on a machine with an NVIDIA GPU and a CUDA build, or use --backend real-cpu");
        // CPU sockets, CXL memory and storage are pinned host memory (gpu_nodes.h): the machine's, page-locked.
        const real::MemoryNeed need = real::realMemoryNeed(scenario);
        real::checkMemoryFits(real::MemoryNeed{need.arenas - need.hostArenas, need.pools, 0},
                              options.realCpu.arenaBytes, smallestGpuMemory(gpus) * gpus.devices.size(),
                              gpus.devices.size() == 1 ? "the GPU's memory"
                                                       : "the GPUs' memory (the smallest's, each)");
        if (need.hostArenas > 0)
            if (const auto available = real::availableHostMemory())
                real::checkMemoryFits(real::MemoryNeed{need.hostArenas, 0, need.hostArenas}, options.realCpu.arenaBytes,
                                      *available,
                                      "this machine's memory (pinned for its CPU sockets, CXL memory and storage)");
        if (scenario.model.headDim > kGpuMaxHeadDim)
            throw InputError(scenario.sourcePath, "/model",
                             fmt::format("the CUDA attention serves heads of at most {} dimensions, not {}",
                                         kGpuMaxHeadDim, scenario.model.headDim),
                             "run this model on real-cpu (--backend real-cpu) or the simulator");
    }
    if (name == "real-cpu")
        if (const auto available = real::availableHostMemory())
            real::checkMemoryFits(scenario, options.realCpu.arenaBytes, *available, "this machine's memory");
    checkPoolMax(options, name, scenario);
    checkBlockFitsPool(options, name, scenario);
    checkTensorParallelSplits(scenario);
    if (const auto memory = poolMemory(name, scenario))
        real::checkBlockMessageFits(scenario, memory->available, memory->name);
    if (options.realCpu.layers == 0 || options.realCpu.layers > scenario.model.layers)
        throw InputError("", "--layers",
                         fmt::format("{} attention layers per decode step is not between 1 and the model's {}",
                                     options.realCpu.layers, scenario.model.layers),
                         fmt::format("give 1 to {}", scenario.model.layers));
}

std::size_t descriptorBytesFor(const Scenario& scenario)
{
    const auto layers = std::max<std::uint64_t>(1, scenario.model.layers);
    return static_cast<std::size_t>(std::max<std::uint64_t>(
        1, scenario.model.kvBytesPerToken() / layers * std::max<std::uint32_t>(1, scenario.serving.blockTokens)));
}

std::unique_ptr<real::NodeResources> makeNodeResources(const BackendOptions& options, const Scenario& scenario)
{
    checkBackendRuns(options, scenario);
    const std::string name = canonicalBackendName(options.name);
    if (name == "simulated")
        return nullptr;
    real::RealCpuOptions realCpu = options.realCpu;
    if (realCpu.descriptorBytes == 0)
        realCpu.descriptorBytes = descriptorBytesFor(scenario);
    realCpu.poolMaxBytes = realMemoryPlan(options, scenario).poolMaxBytes;
    if (name == "real-cuda")
        return std::make_unique<real::GpuNodes>(scenario.topology, realCpu, scenario.seed, probeGpus().devices);
    return std::make_unique<real::NodeWorkers>(scenario.topology, realCpu, scenario.seed);
}

RealMemoryPlan realMemoryPlan(const BackendOptions& options, const Scenario& scenario)
{
    const std::string name = canonicalBackendName(options.name);
    RealMemoryPlan plan;
    plan.need = real::realMemoryNeed(scenario);
    plan.arenaBytes = options.realCpu.arenaBytes;
    plan.poolMaxBytes = options.realCpu.poolMaxBytes;
    const auto memory = poolMemory(name, scenario);
    plan.poolMemory =
        memory ? memory->name : std::string(name == "real-cuda" ? "the GPUs' memory" : "this machine's memory");
    if (memory)
        plan.available = memory->available;
    // Pools grow as far as the memory they live in leaves room beside the arenas; where that cannot be told, not at
    // all.
    if (plan.poolMaxBytes == real::RealCpuOptions::kPoolAsMemoryAllows)
        plan.poolMaxBytes =
            memory ? real::largestPoolBytes(memory->need, plan.arenaBytes, memory->available) : plan.arenaBytes;
    return plan;
}

std::string describeMemoryPlan(const RealMemoryPlan& plan)
{
    const std::string pools = plan.poolMaxBytes > plan.arenaBytes
                                  ? fmt::format("{} decode K/V pool{} that start{} at {} and grow{} to {} at most",
                                                plan.need.pools, plan.need.pools == 1 ? "" : "s",
                                                plan.need.pools == 1 ? "s" : "", real::memorySize(plan.arenaBytes),
                                                plan.need.pools == 1 ? "s" : "", real::memorySize(plan.poolMaxBytes))
                                  : fmt::format("{} decode K/V pool{} of {}, not growing", plan.need.pools,
                                                plan.need.pools == 1 ? "" : "s", real::memorySize(plan.arenaBytes));
    const std::string available =
        plan.available ? fmt::format(" ({:.1f} GiB available)", static_cast<double>(*plan.available) / (1 << 30))
                       : std::string(" (how much is available cannot be told here)");
    return fmt::format("{} node memories of {}; {}, in {}{}", plan.need.arenas, real::memorySize(plan.arenaBytes),
                       pools, plan.poolMemory, available);
}

std::unique_ptr<Transport> makeTransport(const Scenario& scenario, Routing& routing, Simulator& sim,
                                         std::uint32_t wakeKind, std::uint32_t deliverKind, real::NodeResources* nodes,
                                         const std::optional<real::InjectedFault>& fault)
{
    if (nodes) {
        auto copies = std::make_unique<real::CopyTransport>(scenario.topology, routing, sim, wakeKind, deliverKind,
                                                            scenario.metrics.linkInterval, *nodes);
        // Transfers carry the first layer's K/V rows as the decode node's pool lays them out (decodeAttentionShape).
        copies->carryKvRows({.kvHeads = std::max(1u, scenario.model.kvHeads),
                             .headDim = std::max(1u, scenario.model.headDim),
                             .blockTokens = std::max(1u, scenario.serving.blockTokens),
                             .elementBytes = real::kvElementBytes(nodes->name(), scenario.model.dtypeBytes)});
        // A decode instance's pool (on its first node) has the rows its transfers land set aside until it takes
        // them, in up to half of the node's memory.
        for (const InstanceSpec& inst : scenario.serving.instances)
            if (inst.role != InstanceRole::Prefill && !inst.nodes.empty())
                if (const auto node = scenario.topology.nodeIndex(inst.nodes.front()))
                    nodes->landedRows().setAsideFor(*node, nodes->options().arenaBytes / 2);
        if (fault && fault->copy)
            copies->injectIntoCopy(*fault->copy, fault->at);
        return copies;
    }
    return std::make_unique<FlowNetwork>(scenario.topology, routing, sim, wakeKind, deliverKind,
                                         scenario.metrics.linkInterval);
}

} // namespace coh::core
