#pragma once
// The seam between serving and coherence: every KV read and write of the serving engine goes through this
// interface. The coherence layer implements it with protocol tables; DirectTransferKv (the plain
// prefill -> decode copy) is its simplest implementation.
#include "core/engine/run_result.h"
#include "core/sim/time.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

class KvListener {
  public:
    virtual ~KvListener() = default;
    // The blocks requested by acquireForDecode() are now readable at the decode instance.
    virtual void onKvReady(std::uint32_t request) = 0;
    // A decode step that beginDecodeStep() could not start at once may now proceed.
    virtual void onStepReady(std::uint32_t request) = 0;
};

// What a KV implementation moved, for the run summary.
struct KvStats {
    std::uint64_t transfers = 0; // data messages that crossed links
    double bytes = 0;            // data bytes that crossed links
    std::string protocol;
    std::vector<MessageKindStats> kinds; // MessageRecord::kind indexes this
    std::uint64_t upgrades = 0;          // stores that had to upgrade a readable copy
    StalenessSummary staleness;          // decode's reads (counts only: the engine builds the age distribution)
    std::vector<double> staleAgesUs;     // one per stale read event
    LeaseSummary lease;                  // decode's leased reads (coherence.lease)
    ReplicationSummary replication;      // the replicas' part of the traffic (factor 1: none)
    SharedPrefixSummary sharedPrefix;    // serving.shared_prefix
};

// Of a sequence whose decode copy was lost: the most complete copy left on a node that is up, as the tokens from the
// sequence's start whose KV it holds current (0: none).
struct SurvivingCopy {
    std::uint32_t node = 0;
    std::uint32_t tokens = 0;
};

// One sequence's stale reads, for its RequestMetrics.
struct SequenceStaleness {
    std::uint64_t staleReads = 0;
    std::uint32_t staleSteps = 0;
};

// Every call names a sequence: the engine's request ids at first, and a new id (addSequence) each time a node
// failure makes a request start its KV over, so nothing still on its way for the old one can reach the new one.
class KvMemory {
  public:
    virtual ~KvMemory() = default;

    void setListener(KvListener* listener) { m_listener = listener; }

    // Node failures (the "failures" section). A new sequence id, after the ones given so far.
    virtual std::uint32_t addSequence() = 0;
    // The sequence is given up (a node it needed failed): no callback comes for it again, and its copies go once
    // no message of it is in flight.
    virtual void abandon(std::uint32_t sequence) = 0;
    // The most complete current copy of the sequence's first `tokens` tokens on a node not marked in `down`.
    virtual SurvivingCopy survivingCopy(std::uint32_t /*sequence*/, std::uint32_t /*tokens*/,
                                        const std::vector<std::uint8_t>& /*down*/) const
    {
        return {};
    }
    // The node failed: the copies in its memory are gone for good (a repaired node comes back empty), so no later
    // survivingCopy() offers them, even once the node is up again.
    virtual void nodeLost(std::uint32_t /*node*/) {}
    // A new sequence whose first `tokens` tokens are written at `node` (a surviving copy), as prefillWrite()
    // writes at a prefill instance. Only called with what survivingCopy() returned.
    virtual void restoreAt(std::uint32_t sequence, std::uint32_t node, std::uint32_t tokens) = 0;

    // Prefill at `instance` has written tokens [0, tokens) of the request's sequence.
    virtual void prefillWrite(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) = 0;
    // The decode `instance` will read the sequence: make its blocks readable there (a read miss served by
    // the protocol), then call KvListener::onKvReady.
    virtual void acquireForDecode(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) = 0;
    // One decode step at `instance` reads every block of the sequence and appends token number `tokens` - 1.
    // Returns true when the step may run now (every copy it needs is usable here); otherwise the protocol
    // works on it and calls KvListener::onStepReady. The wait is the step's coherence stall.
    virtual bool beginDecodeStep(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) = 0;
    // The sequence is finished; its copies may be dropped.
    virtual void release(std::uint32_t request) = 0;
    virtual KvStats stats() const = 0;
    // Of the wait of the request's last decode step that beginDecodeStep() could not start at once: the wire
    // time of the block data that ended it (the rest of the wait is coherence stall).
    virtual SimTime lastStepTransfer(std::uint32_t) const { return 0; }
    virtual SequenceStaleness staleness(std::uint32_t) const { return {}; }
    // Of the sequence's own blocks, how many its current decode step read at an older version than the latest.
    virtual std::uint32_t stepStaleBlocks(std::uint32_t) const { return 0; }
    // Called once the event queue is empty: throws when a request still waits on the protocol (a deadlock).
    virtual void checkFinished() const {}
    // serving.shared_prefix: the sequence's shared prefix blocks (known once its prefill wrote them) that decode
    // `instance` holds readable now, so decode there would read them without a transfer (0 without sharing).
    virtual std::uint32_t sharedBlocksHeld(std::uint32_t /*sequence*/, std::uint32_t /*instance*/) const { return 0; }
    virtual bool sharesPrefixBlocks() const { return false; }
    // Blocks held per node and protocol state over the run, integrated up to `end` (protocol runs only).
    virtual std::vector<NodeBlocksSeries> nodeBlocks(SimTime /*end*/) const { return {}; }

  protected:
    KvListener* listener() const { return m_listener; }

  private:
    KvListener* m_listener = nullptr;
};

} // namespace coh::core
