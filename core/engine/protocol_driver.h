#pragma once
// Drives blocks under a protocol table over the network, for any number of participants: each participant is a
// cache of the table (a role: prefill, decode, a pool client; later a replica or a tier copy) on a node, the home
// is the directory on its node. Per (block, participant) the driver keeps a queue of processor ops; the front
// one is issued when the table lets it (a Stalled issue is retried after the block's next step), every message
// a step sends becomes a flow to its receiver's node, and an arrival is delivered once the table takes it. The
// op queue -> issue -> pump -> send -> arrive loop lives here once; CoherentKv (the KV path) and PoolCoherence
// (the prefix pool) say only what their ops mean to them.
//
// A driven block may stand for many blocks with identical histories (CoherentKv's groups): its weight scales
// every message's bytes and counts, so one interpreter serves them all.
//
// The driver is a template over its client, which owns the blocks and answers, inline:
//   Key                                    names a block (or group) for as long as it lives
//   Ref resolve(Key)                       the block now; valid until the client's onOpDone (which may add blocks)
//   DriverBlock<N>& driverBlock(Ref)       its queues and in-flight tags (N: the most participants it takes)
//   const coherence::BlockSystem& shape(Ref)                    its controllers and messages
//   coherence::CheckedStep issue(Ref, std::uint8_t cache, coherence::ProcessorOp)
//   coherence::CheckedStep deliverOne(Ref)  the first arrived message the table takes (MessageArrivals)
//   std::uint32_t weight(Ref)              blocks it stands for
//   const Participants& participants(Ref)
//   FlowEndpoint& endpoint(); std::uint64_t flowTag(Key, std::uint16_t)   where its flows come back to
// and is told: gate, before an op is issued (Go, Wait, or Skip: done without a step); onIssued, after an op's
// issue went through; onStep, for every step before its messages are sent (check it, bookkeeping); mayComplete,
// when a front op is performed (false: the client holds it, e.g. a read beyond the staleness bound, and
// mayCompleteHeld is asked after each later step of that participant); onOpDone, once the op left its queue.
#include "core/coherence/block_set.h"
#include "core/engine/message_arrivals.h"
#include "core/engine/message_kinds.h"
#include "core/net/transport.h"

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// Who takes part in a block's protocol: the node of each cache (cache index = the table's Pi) and of the home.
// A table, not constants: a role is a cache index, so more roles (replicas, tier copies) are more rows.
struct Participants {
    std::array<std::uint32_t, coherence::kMaxCaches> cacheNodes{};
    std::uint32_t home = 0;

    std::uint32_t nodeOf(std::uint8_t controller) const
    {
        return controller == coherence::kDirNode ? home : cacheNodes[controller];
    }
};

// An op a participant waits to run on a block; `kind` and `payload` are the client's (its job, its request).
struct DriverOp {
    coherence::ProcessorOp op = coherence::ProcessorOp::Load;
    std::uint8_t kind = 0;
    std::uint32_t payload = 0;
};

// One participant's ops on one block, in order; the front one runs. Nodes live in the driver's pool, so a
// block's queues are a few fixed bytes and copy cheaply (CoherentKv copies a fresh block per decode block).
struct OpQueue {
    std::uint32_t head = 0, tail = 0; // node index + 1; 0: empty
    bool issued = false;              // the front op went through the table and waits to be performed
    bool held = false;                // the front op was performed, but the client holds its completion
};

// The driver's part of a block with up to N participants: its queues and its messages in flight.
template <int N> struct DriverBlock {
    static_assert(N <= 32, "busy is a 32-bit mask");
    MessageArrivals arrivals;
    std::uint32_t queued = 0; // ops in all its queues
    std::uint32_t busy = 0;   // bit per participant whose queue holds ops: the pump tries only those
    std::array<OpQueue, N> queues{};
};

enum class Gate : std::uint8_t { Go, Wait, Skip };

// Message sizes and how the driver's traffic is counted.
struct DriverCosts {
    double blockBytes = 0;      // a data message, per block
    double controlBytes = 0;    // any other message, per block
    std::uint8_t firstKind = 0; // where the protocol's kinds start in the run's MessageRecord::kind
};

template <class Client> class ProtocolDriver {
  public:
    using Key = typename Client::Key;
    using Ref = typename Client::Ref;

    ProtocolDriver(Client& client, const coherence::Protocol& protocol, Transport& network, int caches,
                   DriverCosts costs, const std::string& kindPrefix = {})
        : m_client(client)
        , m_protocol(protocol)
        , m_network(network)
        , m_caches(static_cast<std::uint8_t>(caches))
        , m_costs(costs)
        , m_kinds(protocol, kindPrefix)
    {
    }

    // Queues `op` at `cache`, issues it if it is first and the table lets it, then runs what follows.
    void request(Key key, std::uint8_t cache, DriverOp op)
    {
        Ref ref = m_client.resolve(key);
        push(m_client.driverBlock(ref), cache, op, false);
        tryIssue(key, ref, cache);
        pump(key, ref);
    }
    // Queues `op` without running anything (the pump the caller is in picks it up), at the back or the front.
    void enqueue(Key key, std::uint8_t cache, DriverOp op)
    {
        push(m_client.driverBlock(m_client.resolve(key)), cache, op, false);
    }
    void enqueueFront(Key key, std::uint8_t cache, DriverOp op)
    {
        auto& block = m_client.driverBlock(m_client.resolve(key));
        assert(!block.queues[cache].issued && "an op queued before one the table is working on would take its place");
        push(block, cache, op, true);
    }
    // `op` was performed without a step (a hit) but the client holds its completion (see mayCompleteHeld).
    void hold(Key key, std::uint8_t cache, DriverOp op)
    {
        auto& block = m_client.driverBlock(m_client.resolve(key));
        assert(block.queues[cache].head == 0 && "only the front op can be held: hold() needs an empty queue");
        push(block, cache, op, false);
        block.queues[cache].issued = block.queues[cache].held = true;
    }
    template <class Block> static bool idle(const Block& block, std::uint8_t cache)
    {
        return block.queues[cache].head == 0;
    }
    template <class Block> static bool idle(const Block& block) { return block.queued == 0; }

    // Delivers what has arrived and the table takes, and issues what waits, until nothing moves.
    void pump(Key key)
    {
        Ref ref = m_client.resolve(key);
        pump(key, ref);
    }

    // The block's flow tagged `tag` arrived: returns the message's index (for the client's record), or -1.
    int arrive(Key key, std::uint16_t tag)
    {
        const Ref ref = m_client.resolve(key);
        return m_client.driverBlock(ref).arrivals.arrive(m_client.shape(ref), tag);
    }

    const std::vector<MessageKindStats>& kinds() const { return m_kinds.kinds(); }
    std::uint64_t transfers() const { return m_transfers; } // data messages that crossed links, per block
    double crossBytes() const { return m_crossBytes; }      // their bytes
    std::uint64_t upgrades() const { return m_upgrades; }   // stores issued at a readable copy, per block

  private:
    struct OpNode {
        DriverOp op;
        std::uint32_t next = 0;
    };

    // `ref` is re-resolved after anything that may have reached the client's onOpDone.
    void pump(Key key, Ref& ref)
    {
        for (bool progress = true; progress;) {
            progress = false;
            if (const coherence::CheckedStep step = m_client.deliverOne(ref);
                step.result.status != coherence::StepStatus::Stalled) {
                afterStep(key, ref, step);
                ref = m_client.resolve(key);
                progress = true;
            }
            // Participants in order, as a plain loop over all of them would, skipping those with nothing queued: a
            // block with many participants (shared prefix blocks have one per instance) has few busy at once.
            for (unsigned c = 0;; ++c) {
                const std::uint32_t busy = c < 32 ? m_client.driverBlock(ref).busy >> c : 0;
                if (busy == 0)
                    break;
                c += static_cast<unsigned>(std::countr_zero(busy));
                progress |= tryIssue(key, ref, static_cast<std::uint8_t>(c));
            }
        }
    }
    bool tryIssue(Key key, Ref& ref, std::uint8_t cache);
    void afterStep(Key key, Ref ref, const coherence::CheckedStep& checked);
    // Inlined into afterStep, its only caller: a call per step costs a few percent of a run.
    [[gnu::always_inline]] void send(Key key, Ref ref, const coherence::StepResult& step);
    void complete(Key key, Ref ref, std::uint8_t cache, const coherence::StepResult* step);
    template <class Block> void push(Block& block, std::uint8_t cache, DriverOp op, bool front);
    template <class Block> DriverOp pop(Block& block, std::uint8_t cache);

    Client& m_client;
    const coherence::Protocol& m_protocol;
    Transport& m_network;
    std::uint8_t m_caches;
    DriverCosts m_costs;
    ProtocolKinds m_kinds;
    std::vector<OpNode> m_nodes; // every queue's ops; free ones chained from m_free
    std::uint32_t m_free = 0;
    std::uint64_t m_transfers = 0;
    double m_crossBytes = 0;
    std::uint64_t m_upgrades = 0;
};

template <class Client> bool ProtocolDriver<Client>::tryIssue(Key key, Ref& ref, std::uint8_t cache)
{
    const OpQueue& q = m_client.driverBlock(ref).queues[cache];
    if (q.head == 0 || q.issued)
        return false;
    const DriverOp op = m_nodes[q.head - 1].op;
    switch (m_client.gate(ref, cache, op)) {
    case Gate::Wait:
        return false;
    case Gate::Skip:
        complete(key, ref, cache, nullptr);
        ref = m_client.resolve(key);
        return true;
    case Gate::Go:
        break;
    }
    // A table with nothing to drop in this state (no Evict transition) is done with the eviction.
    if (op.op == coherence::ProcessorOp::Evict &&
        m_client.shape(ref).resolveOp(cache, op.op).status == coherence::StepStatus::Undefined) {
        complete(key, ref, cache, nullptr);
        ref = m_client.resolve(key);
        return true;
    }
    const coherence::CheckedStep step = m_client.issue(ref, cache, op.op);
    if (step.result.status == coherence::StepStatus::Stalled)
        return false; // a transient state: retried after the block's next step
    if (op.op == coherence::ProcessorOp::Store && step.result.status == coherence::StepStatus::Done &&
        m_protocol.cache.states[step.result.from].permission == coherence::Permission::Read)
        m_upgrades += m_client.weight(ref);
    m_client.driverBlock(ref).queues[cache].issued = true;
    m_client.onIssued(ref, cache, op);
    afterStep(key, ref, step);
    ref = m_client.resolve(key);
    return true;
}

template <class Client> void ProtocolDriver<Client>::afterStep(Key key, Ref ref, const coherence::CheckedStep& checked)
{
    const coherence::StepResult& step = checked.result;
    m_client.onStep(key, ref, checked);
    send(key, ref, step);
    // The op at the acting cache is done once its load or store is performed, or, for an eviction, once the
    // cache is back in a stable state.
    if (step.atDirectory)
        return;
    OpQueue& q = m_client.driverBlock(ref).queues[step.actor];
    if (q.held) {
        if (m_client.mayCompleteHeld(key, ref, step.actor))
            complete(key, ref, step.actor, &step);
        return;
    }
    if (q.head == 0 || !q.issued)
        return;
    const DriverOp op = m_nodes[q.head - 1].op;
    const bool done = (op.op == coherence::ProcessorOp::Load && step.loaded) ||
                      (op.op == coherence::ProcessorOp::Store && step.stored) ||
                      (op.op == coherence::ProcessorOp::Evict && m_protocol.cache.states[step.to].stable);
    if (!done)
        return;
    if (!m_client.mayComplete(key, ref, step.actor, op, step)) {
        q.held = true;
        return;
    }
    complete(key, ref, step.actor, &step);
}

template <class Client> inline void ProtocolDriver<Client>::send(Key key, Ref ref, const coherence::StepResult& step)
{
    const coherence::BlockSystem& shape = m_client.shape(ref);
    const Participants& who = m_client.participants(ref);
    const std::uint32_t weight = m_client.weight(ref);
    MessageArrivals& arrivals = m_client.driverBlock(ref).arrivals;
    for (int i = step.firstSent; i < step.firstSent + step.sentCount; ++i) {
        const coherence::Message& m = shape.message(i);
        const double bytes = (m.hasData ? m_costs.blockBytes : m_costs.controlBytes) * weight;
        // The kind is looked up once, here; the record on delivery takes it from the origin.
        const auto kind = static_cast<std::uint8_t>(m_costs.firstKind + m_kinds.count(m, weight, bytes));
        const std::uint16_t tag = arrivals.sent(i, MessageOrigin::of(step, kind));
        const std::uint32_t src = who.nodeOf(m.src), dst = who.nodeOf(m.dst);
        m_network.send(m_network.routing().routeId(src, dst), src == dst ? 0.0 : bytes, m_client.endpoint(),
                       m_client.flowTag(key, tag));
        if (m.hasData && src != dst) {
            m_transfers += weight;
            m_crossBytes += bytes;
        }
    }
}

template <class Client>
void ProtocolDriver<Client>::complete(Key key, Ref ref, std::uint8_t cache, const coherence::StepResult* step)
{
    const DriverOp op = pop(m_client.driverBlock(ref), cache);
    m_client.onOpDone(key, cache, op, step);
}

template <class Client>
template <class Block>
void ProtocolDriver<Client>::push(Block& block, std::uint8_t cache, DriverOp op, bool front)
{
    std::uint32_t node = m_free;
    if (node != 0) {
        m_free = m_nodes[node - 1].next;
    } else {
        m_nodes.emplace_back();
        node = static_cast<std::uint32_t>(m_nodes.size());
    }
    m_nodes[node - 1] = OpNode{op, 0};
    assert(cache < m_caches && "an op for a participant the driver was not made for");
    OpQueue& q = block.queues[cache];
    ++block.queued;
    block.busy |= 1u << cache;
    if (q.head == 0) {
        q.head = q.tail = node;
    } else if (front) {
        m_nodes[node - 1].next = q.head;
        q.head = node;
    } else {
        m_nodes[q.tail - 1].next = node;
        q.tail = node;
    }
}

template <class Client> template <class Block> DriverOp ProtocolDriver<Client>::pop(Block& block, std::uint8_t cache)
{
    OpQueue& q = block.queues[cache];
    const std::uint32_t node = q.head;
    const DriverOp op = m_nodes[node - 1].op;
    q.head = m_nodes[node - 1].next;
    if (q.head == 0) {
        q.tail = 0;
        block.busy &= ~(1u << cache);
    }
    q.issued = q.held = false;
    --block.queued;
    m_nodes[node - 1].next = m_free;
    m_free = node;
    return op;
}

} // namespace coh::core
