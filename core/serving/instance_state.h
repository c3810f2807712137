#pragma once
// Run-time state of one serving instance (prefill or decode) and of the requests it holds.
#include "core/scenario/scenario.h"
#include "core/serving/cost_model.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace coh::core {

// Where an instance is in the cluster's view: routing policies route only to one that is Up. A node failure
// stops the instance at once (InstanceState::down) but the cluster learns of it only when the monitor declares the
// node dead (Failed); until then requests are still routed there. Its node repaired, it is Up again, empty.
enum class InstanceLife : std::uint8_t { Up, Failed };

struct InstanceState {
    std::string id;
    InstanceRole role = InstanceRole::Prefill;
    InstanceLife life = InstanceLife::Up;
    bool down = false;            // its node has failed: it runs nothing (whether or not anyone knows yet)
    std::uint64_t generation = 0; // bumped when a failure stops it: events of its earlier iterations are stale
    std::vector<std::uint32_t> nodes;
    InstanceHardware hw;
    std::uint32_t maxBatchSize = 1;
    std::uint32_t maxBatchTokens = 0; // prefill only
    bool running = false;
    bool kickPending = false;   // a DecodeKick event is queued
    std::uint32_t assigned = 0; // requests routed here and not yet finished (router load)

    // Prefill: FCFS queue and the batch in flight.
    std::deque<std::uint32_t> queue;
    std::uint64_t queuedTokens = 0;
    std::vector<std::uint32_t> batch;
    std::uint64_t batchTokens = 0;
    std::uint32_t prefixLoads = 0; // loads from the prefix pool the batch still waits for
    SimTime prefillCompute = 0;    // the batch's compute, started once those loads are in

    // Decode: waiting for KV memory -> transferring -> ready -> in the running batch.
    std::deque<std::uint32_t> admission;
    std::vector<std::uint32_t> held; // admitted and not finished: the sequences whose KV this instance holds
    std::deque<std::uint32_t> ready;
    std::vector<std::uint32_t> active;
    std::uint64_t contextTokens = 0; // cached tokens the active batch attends over
    std::uint64_t kvBlocksTotal = 0;
    std::uint64_t kvBlocksFree = 0;
    // With KV tiers (serving.kv_tiers): sequences offloaded below HBM, in the order they left (fetched back in that
    // order before anything new is admitted), and the blocks admitted sequences will have at their end, which may
    // not exceed HBM plus the instance's share of the tiers.
    std::deque<std::uint32_t> offloaded;
    std::uint64_t kvBlocksCommitted = 0;
    std::uint64_t kvBlocksBudget = 0;
    std::uint64_t kvBlocksPromised = 0; // room below HBM kept for the sequences admitted beyond it
    std::uint32_t fetching = 0;         // fetches under way
    bool computeArmed = false;          // start() has begun every step of the batch: the last wait to end runs it
    SimTime lastIterationEnd = 0;
    std::uint32_t stepsWaiting = 0; // sequences whose step waits on coherence
    SimTime stepStart = 0;          // when the current step began waiting on coherence
    SimTime stepCompute = 0;        // compute time of the current step
    SimTime stepTransfer = 0;       // of the current step's wait: wire time of the block data that ended it

    bool isUp() const { return life == InstanceLife::Up; }
};

// The scenario's instances, in its order, with their hardware and (decode) KV capacity. Throws InputError for an
// unknown node or a scenario without both a prefill and a decode instance.
std::vector<InstanceState> buildInstances(const Scenario& scenario, const CostModel& cost);

// Per-request progress the metrics do not keep.
// Where a decode sequence's KV is (serving.kv_tiers moves it below HBM and back).
enum class KvPlace : std::uint8_t { Hbm, Offloading, Offloaded, Fetching };

struct RequestState {
    std::uint32_t kv = 0;        // its KV sequence in KvMemory and KvTiers: its own id until a failure starts it over
    std::uint32_t generated = 0; // tokens whose KV it has (after a restore from a lagging copy: fewer than emitted)
    std::uint32_t emitted = 0;   // tokens sent to the user: a token regenerated after a failure is not sent again
    bool prefilled = false;      // its KV is written (at a prefill instance, or restored from a surviving copy)
    bool acquiring = false;      // a decode instance is reading its KV (or holds it)
    bool kvArrived = false;      // the decode instance holds it
    std::uint32_t restoredAt = UINT32_MAX; // after a restore: the node of the copy it was written from
    // A recompute after a failure resumes from the last valid prefix: prefill loads the KV of the first
    // `resumeTokens` tokens from the surviving copy at `resumeNode` (ResumeLoads) and computes only the rest.
    std::uint32_t resumeTokens = 0;
    std::uint32_t resumeNode = 0;
    bool resumeStarted = false;       // the load is on its way (a failure of its node no longer cancels it)
    std::uint32_t blocksReserved = 0; // HBM blocks it holds (with tiers: grows as it decodes)
    std::uint32_t admitOrder = 0;     // admissions before it at its decode instance (ties of the eviction policy)
    KvPlace place = KvPlace::Hbm;
    bool waitCounted = false;   // its offload holds up the instance's current step
    bool promised = false;      // admitted beyond HBM: room below is kept for all of it
    bool decoding = false;      // it has joined a decode batch before
    SimTime readyAt = 0;        // when its KV was last ready in HBM
    SimTime offloadedAt = 0;    // when it was last taken off HBM
    std::uint32_t heldSlot = 0; // its index in its decode instance's `held`
    SimTime lastToken = 0;
};

} // namespace coh::core
