#pragma once
// One KV block under a directory or bus protocol: every cache's copy state, the home's entry and the messages in
// flight, with step functions that interpret the protocol tables. Fixed-size storage and no allocation per step,
// so the serving simulator can run one instance per block and the explorer can copy it per successor.
#include "core/coherence/protocol_table.h"

#include <array>
#include <cstdint>

namespace coh::core::coherence {

using Value = std::uint16_t; // a written value (the lab: a version; the explorer: 0 or 1)
inline constexpr int kMaxMessages = 64;

struct CacheLine {
    std::uint8_t state = 0;
    bool dataValid = false;
    std::int8_t acks = 0; // invalidation acks still owed (negative: acks that beat the Data)
    Value value = 0;      // meaningful only when dataValid
};

struct DirectoryEntry {
    std::uint8_t state = 0;
    std::uint8_t owner = kNoNode;
    std::uint16_t sharers = 0; // bit i: cache Pi
    Value memory = 0;
};

struct Message {
    std::uint8_t type = 0;
    std::uint8_t src = 0;
    std::uint8_t dst = 0;
    std::uint8_t requestor = 0; // the cache whose request this message serves
    std::int8_t ackCount = 0;
    bool hasData = false;
    Value value = 0;
};

enum class StepStatus : std::uint8_t {
    Done,
    Stalled,      // the table says wait; nothing changed
    Undefined,    // no transition for (state, event): a protocol error
    Unclassified, // no event's guards matched the arrival: a protocol error
    Fault,        // an action was impossible (see Fault)
};

enum class Fault : std::uint8_t { None, NoDataToSend, NoOwner, NoMessageData, LoadWithoutData, TooManyMessages };

// What the table says about a processor op or an arrival, before anything changes; when it fires, what the
// transition does (next state and action range), so the step needs no second lookup.
struct Resolution {
    StepStatus status = StepStatus::Done; // Done: a transition fires
    std::uint8_t event = 0;
    std::uint8_t next = 0;
    std::uint8_t actionCount = 0;
    std::uint16_t firstAction = 0;
    std::uint16_t transition = 0; // index into the controller's transitions
};

struct StepResult {
    StepStatus status = StepStatus::Done;
    Fault fault = Fault::None;
    bool atDirectory = false;
    std::uint8_t actor = 0; // cache index, or kDirNode
    std::uint8_t event = 0;
    bool hasValue = false; // `value` means something: the step loaded or stored (at a cache or the home)
    std::uint16_t transition = 0;
    std::uint8_t from = 0;
    std::uint8_t to = 0;
    std::uint8_t firstSent = 0; // messages sent are [firstSent, firstSent + sentCount) after the step
    std::uint8_t sentCount = 0;
    bool loaded = false;
    bool stored = false;
    bool loadMismatch = false; // the load returned something other than the latest written value
    bool takesValue = false;   // the step used the move's storeValue (a store, or a store's value sent to the home)
    Value value = 0;           // the value loaded or stored, else 0
};

// One step of the system: a processor op at a cache, or the delivery of in-flight message `index`.
struct Move {
    bool deliver = false;
    std::uint8_t index = 0; // cache (op) or message index (delivery)
    ProcessorOp op = ProcessorOp::Load;
    Value storeValue = 0; // what a PerformStore in this step writes
};

class BlockSystem {
  public:
    // Every controller in its initial state, memory and the latest written value 0, nothing in flight.
    BlockSystem(const Protocol& protocol, int caches);

    const Protocol& protocol() const { return *m_protocol; }
    int caches() const { return m_caches; }
    const CacheLine& line(int cache) const { return m_lines[cache]; }
    const DirectoryEntry& directory() const { return m_dir; }
    int messageCount() const { return m_messageCount; }
    const Message& message(int i) const { return m_messages[i]; }
    Value latest() const { return m_latest; } // ghost: the value of the last performed store
    // The value a store writes next when the protocol numbers versions itself (bounded staleness), else latest+1.
    Value nextVersion() const;
    // A load of `v` breaks the protocol's consistency: not the latest (Strong) or more versions behind than the bound.
    bool tooStale(Value v) const;

    // The cache holds its copy under a lease that expires (StateInfo::leased).
    bool leased(int cache) const
    {
        return (m_protocol->cache.compiled.stateFlags[m_lines[cache].state] & kStateLeased) != 0;
    }

    // A message may be delivered when its network is unordered or it is the oldest on its (src, dst) channel.
    bool deliverable(int i) const;
    // Bit i: deliverable(i), for every message in flight (at most kMaxMessages = 64).
    std::uint64_t deliverableMask() const;
    // A legal next move: deliverable and the receiver takes it now (a Stalled arrival would wait in its buffer).
    // The lab, the checker and the deadlock test all decide which deliveries are possible with this one rule.
    bool canDeliver(int i) const { return deliverable(i) && resolveMessage(i).status != StepStatus::Stalled; }
    Resolution resolveOp(int cache, ProcessorOp op) const;
    Resolution resolveMessage(int i) const;

    // When the table says `op` is a hit at `cache` (CompiledTable::hitOps), performs it as its transition would,
    // without interpreting it: a load reads the copy (line(cache).value), a store writes nextVersion(), the new
    // latest. Returns false, changing nothing, when it is not a hit: the op must be issued.
    bool tryHit(int cache, ProcessorOp op)
    {
        if (!m_protocol->cache.compiled.hits(m_lines[cache].state, static_cast<int>(op)))
            return false;
        if (op == ProcessorOp::Store)
            storeHit(cache);
        return true;
    }
    // A store tryHit() found to hit, again, with nothing delivered to the block since: performs it unasked.
    void storeHit(int cache)
    {
        m_latest = nextVersion();
        m_lines[cache].value = m_latest;
        m_lines[cache].dataValid = true; // as PerformStore
    }

    // A Stalled, Undefined or Unclassified step changes nothing. `storeValue` is what a PerformStore writes.
    StepResult issue(int cache, ProcessorOp op, Value storeValue);
    StepResult deliver(int i, Value storeValue);
    StepResult apply(const Move& move)
    {
        return move.deliver ? deliver(move.index, move.storeValue) : issue(move.index, move.op, move.storeValue);
    }

    bool anyTransient() const;
    bool quiescent() const { return m_messageCount == 0 && !anyTransient(); }

    // Raw access for the state codec.
    CacheLine& mutableLine(int cache) { return m_lines[cache]; }
    DirectoryEntry& mutableDirectory() { return m_dir; }
    void setLatest(Value v) { m_latest = v; }
    void setMessages(const Message* messages, int count);

  private:
    Resolution classify(const ControllerTable& table, std::uint8_t state, const Message& m,
                        const CacheLine* line) const;
    // Bit i set: Guard i holds for arrival `m` at the cache holding `line` (or at the directory when null).
    std::uint32_t guardTruths(const Message& m, const CacheLine* line) const;
    unsigned networkOf(std::uint8_t type) const
    {
        return ((m_networkBit0 >> type) & 1u) | (((m_networkBit1 >> type) & 1u) << 1);
    }
    StepResult fire(bool atDirectory, std::uint8_t actor, Resolution r, const Message* m, Value storeValue);
    Fault send(const Action& a, std::uint8_t actor, std::uint8_t requestor, std::int8_t messageAcks, Value storeValue);
    Fault push(const Message& m);

    const Protocol* m_protocol;
    // Per message type (bit = type index), from the protocol: on a point-to-point ordered network, and the
    // network's two bits. Kept here so deciding deliverability, and whether a Send is a request, reads no
    // protocol data.
    std::uint32_t m_orderedTypes = 0;
    std::uint32_t m_networkBit0 = 0;
    std::uint32_t m_networkBit1 = 0;
    std::uint8_t m_caches;
    std::uint8_t m_messageCount = 0;
    Value m_latest = 0;
    DirectoryEntry m_dir;
    std::array<CacheLine, kMaxCaches> m_lines{};
    std::array<Message, kMaxMessages> m_messages{};
};

} // namespace coh::core::coherence
