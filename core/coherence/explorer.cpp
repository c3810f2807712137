#include "core/coherence/explorer.h"

#include "core/coherence/state_codec.h"
#include "core/coherence/state_store.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace coh::core::coherence {

namespace {

constexpr std::uint32_t kRoot = std::numeric_limits<std::uint32_t>::max();

struct Edge {
    std::uint32_t parent = kRoot;
    std::uint8_t block = 0;
    Move move;
};

class Search {
  public:
    Search(const Protocol& protocol, const ExplorerOptions& options)
        : m_protocol(protocol)
        , m_options(options)
        , m_world(options.product ? options.blocks : 1, BlockSystem(protocol, options.caches))
        , m_cacheFired(protocol.cache.transitions.size(), false)
        , m_directoryFired(protocol.directory.transitions.size(), false)
    {
    }

    ExplorerResult run();

  private:
    void encodeWorld(int replaced, const BlockSystem& scratch, std::string& out) const;
    void decodeWorld(std::string_view bytes, std::vector<BlockSystem>& world) const;
    bool expand(std::uint32_t id, int block, Move move);
    bool record(std::uint32_t id, int block, const Move& move, const StepResult& step, const BlockSystem& next);
    // The steps from the initial state to state `id`, then `last` when given; fills m_result.trace.
    void buildTrace(std::uint32_t id, const Edge* last);
    void fillCoverage();

    const Protocol& m_protocol;
    ExplorerOptions m_options;
    std::vector<BlockSystem> m_world; // the state being expanded, one system per explored block
    StateStore m_store;
    std::vector<Edge> m_edges; // parent pointers, indexed by state id
    std::string m_buffer;
    std::vector<bool> m_cacheFired;
    std::vector<bool> m_directoryFired;
    ExplorerResult m_result;
};

void Search::encodeWorld(int replaced, const BlockSystem& scratch, std::string& out) const
{
    out.clear();
    for (int b = 0; b < static_cast<int>(m_world.size()); ++b)
        encodeState(b == replaced ? scratch : m_world[b], out);
}

void Search::decodeWorld(std::string_view bytes, std::vector<BlockSystem>& world) const
{
    std::size_t pos = 0;
    for (BlockSystem& system : world)
        pos = decodeState(bytes, pos, system);
}

bool Search::record(std::uint32_t id, int block, const Move& move, const StepResult& step, const BlockSystem& next)
{
    ++m_result.transitions;
    if (step.status == StepStatus::Done || step.status == StepStatus::Fault)
        (step.atDirectory ? m_directoryFired : m_cacheFired)[step.transition] = true;
    Violation v = checkStep(step);
    if (v == Violation::None)
        v = checkState(next);
    if (v != Violation::None) {
        m_result.violation = v;
        m_result.description = describeViolation(v, next, &step);
        const Edge last{id, static_cast<std::uint8_t>(block), move};
        buildTrace(id, &last);
        return false;
    }
    encodeWorld(block, next, m_buffer);
    if (m_store.insert(m_buffer).second) {
        m_edges.push_back({id, static_cast<std::uint8_t>(block), move});
        int inFlight = 0;
        for (int b = 0; b < static_cast<int>(m_world.size()); ++b)
            inFlight += b == block ? next.messageCount() : m_world[b].messageCount();
        m_result.maxInFlight = std::max(m_result.maxInFlight, inFlight);
    }
    return true;
}

bool Search::expand(std::uint32_t id, int block, Move move)
{
    // Copy the block, not the world: other blocks are unchanged and encoded from m_world.
    BlockSystem next = m_world[block];
    const StepResult step = next.apply(move);
    if (!record(id, block, move, step, next))
        return false;
    // A bounded-staleness store writes the next version whatever value the move carries: one successor.
    if (!step.takesValue || m_protocol.consistency != Consistency::Strong)
        return true;
    // A store writes 0 or 1: explore both, so a stale copy is always distinguishable from the latest value.
    move.storeValue = 1;
    next = m_world[block];
    const StepResult other = next.apply(move);
    return record(id, block, move, other, next);
}

void Search::buildTrace(std::uint32_t id, const Edge* last)
{
    std::vector<Edge> path;
    if (last)
        path.push_back(*last);
    for (std::uint32_t at = id; at != 0; at = m_edges[at].parent)
        path.push_back(m_edges[at]);
    std::reverse(path.begin(), path.end());

    std::vector<BlockSystem> world(m_world.size(), BlockSystem(m_protocol, m_options.caches));
    std::string bytes;
    for (const Edge& e : path) {
        BlockSystem& system = world[e.block];
        const BlockSystem before = system;
        const StepResult step = system.apply(e.move);
        StepRecord r = recordStep(before, e.move, step, system, static_cast<int>(m_result.trace.size()) + 1);
        r.block = m_options.product ? e.block : -1;
        m_result.trace.push_back(std::move(r));
        // Back to canonical message order, which is what the search's message indices refer to.
        bytes.clear();
        encodeState(system, bytes);
        decodeState(bytes, 0, system);
    }
}

void Search::fillCoverage()
{
    auto tally = [&](const ControllerTable& table, const std::vector<bool>& fired, int& firedCount, int& defined) {
        for (std::size_t i = 0; i < table.transitions.size(); ++i) {
            if (table.transitions[i].kind != EntryKind::Fire)
                continue;
            ++defined;
            if (fired[i]) {
                ++firedCount;
                continue;
            }
            const std::size_t events = table.events.size();
            m_result.unexercised.push_back(table.name + " (" + table.states[i / events].name + ", " +
                                           table.events[i % events].name + ")");
        }
    };
    tally(m_protocol.cache, m_cacheFired, m_result.cacheFired, m_result.cacheDefined);
    tally(m_protocol.directory, m_directoryFired, m_result.directoryFired, m_result.directoryDefined);
}

ExplorerResult Search::run()
{
    const auto start = std::chrono::steady_clock::now();
    m_result.protocol = m_protocol.name;
    m_result.caches = m_options.caches;
    m_result.blocks = m_options.blocks;
    m_result.product = m_options.product;

    encodeWorld(-1, m_world[0], m_buffer);
    m_store.insert(m_buffer);
    m_edges.push_back({});
    m_result.complete = true;
    std::string current;
    for (std::uint32_t id = 0; id < m_store.size() && m_result.violation == Violation::None; ++id) {
        if (m_store.size() > m_options.maxStates) {
            m_result.complete = false;
            break;
        }
        if (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed)) {
            m_result.complete = false;
            m_result.cancelled = true;
            break;
        }
        current.assign(m_store.get(id)); // the arena moves as states are added
        decodeWorld(current, m_world);
        for (int b = 0; b < static_cast<int>(m_world.size()) && m_result.violation == Violation::None; ++b) {
            const BlockSystem& system = m_world[b];
            if (isDeadlocked(system)) {
                m_result.violation = Violation::Deadlock;
                m_result.description = describeViolation(Violation::Deadlock, system, nullptr);
                buildTrace(id, nullptr);
                break;
            }
            bool go = true;
            for (int c = 0; c < system.caches() && go; ++c)
                for (int op = 0; op < kProcessorOps && go; ++op) {
                    const auto processorOp = static_cast<ProcessorOp>(op);
                    if (system.resolveOp(c, processorOp).status == StepStatus::Done)
                        go = expand(id, b, {false, static_cast<std::uint8_t>(c), processorOp, 0});
                }
            for (int i = 0; i < system.messageCount() && go; ++i)
                if (system.canDeliver(i))
                    go = expand(id, b, {true, static_cast<std::uint8_t>(i), ProcessorOp::Load, 0});
        }
    }
    if (m_result.violation != Violation::None)
        m_result.complete = false;
    m_result.states = m_store.size();
    if (m_options.blocks > 1 && !m_options.product)
        m_result.impliedProductStates = std::pow(static_cast<double>(m_result.states), m_options.blocks);
    fillCoverage();
    m_result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return m_result;
}

} // namespace

ExplorerResult explore(const Protocol& protocol, const ExplorerOptions& options)
{
    return Search(protocol, options).run();
}

} // namespace coh::core::coherence
