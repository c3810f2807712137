#pragma once
// When nodes and links fail and come back (the scenario's "failures" section), and what the run learns from it. A
// failure either happens once at its time or, with an MTBF, again and again: exponential gaps drawn from the
// scenario's seed, each starting once the node or link is repaired. The monitor hears every node's and link's
// heartbeat each period and declares one dead `timeout` after the last it heard; one repaired before that
// re-registers, which tells the same. The engine acts on each failure (failure_recovery.cpp, link_failures.cpp);
// this class keeps the schedule, which nodes and links are down, the requests each node failure took until it is
// detected, and the figures of the run summary.
#include "core/engine/kv_memory.h"
#include "core/engine/run_result.h"
#include "core/scenario/scenario.h"
#include "core/serving/instance_state.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace coh::core {

// A request a failure took: whether its KV went with it (else it only has to be routed again) and, for recovery
// "replica", the most complete copy left when it was taken.
struct LostRequest {
    std::uint32_t request = 0;
    bool kvLost = false;
    SurvivingCopy copy;
};

class Failures {
  public:
    Failures(const Scenario& scenario, std::span<const InstanceState> instances);

    // Schedules each listed failure's first occurrence (events of kind `failKind`, target: the entry).
    void start(Simulator& sim, std::uint32_t failKind);
    // Entry `entry` fails its node now. Returns the new record's index, or -1 when the node is down already (an
    // MTBF entry then draws its next failure). Schedules the record's detection and repair.
    std::int64_t fail(Simulator& sim, std::uint32_t entry, std::uint32_t detectKind, std::uint32_t repairKind,
                      std::uint32_t failKind);
    // The record's node is back; an MTBF entry draws its next failure unless `quiet` (every request is done).
    void repair(Simulator& sim, std::uint32_t record, std::uint32_t failKind, bool quiet);

    const FailuresSpec& spec() const { return m_spec; }
    bool isLinkEntry(std::uint32_t entry) const { return m_spec.events[entry].isLink(); }
    bool isLinkRecord(std::uint32_t record) const { return isLinkEntry(m_entry[record]); }
    // The record's node, or its link for a link failure (a topology index).
    std::uint32_t nodeOf(std::uint32_t record) const { return m_targets[record]; }
    std::uint32_t linkOf(std::uint32_t record) const { return m_targets[record]; }
    const std::vector<std::uint8_t>& down() const { return m_down; }
    bool isDown(std::uint32_t node) const { return m_down[node] != 0; }
    // Down, and no repair is coming: it stays down for the rest of the run.
    bool downForGood(std::uint32_t node) const { return m_down[node] != 0 && m_repairsPending[node] == 0; }
    FailureRecord& record(std::uint32_t record) { return m_summary.failures[record]; }
    std::vector<LostRequest>& lost(std::uint32_t record) { return m_lost[record]; }
    // The counters of the run summary, kept by the engine as it recovers requests.
    FailuresSummary& counts() { return m_summary; }
    // Instances running now changed: one step of the availability series.
    void instancesUp(SimTime now, std::uint32_t up);
    FailuresSummary summary(SimTime end) const;

  private:
    SimTime nextGap(std::uint32_t entry);

    FailuresSpec m_spec;
    std::vector<std::uint32_t> m_entryTarget;      // per entry: its node's (or link's) topology index
    std::vector<std::mt19937_64> m_rng;            // per entry: its own stream, so entries do not shift each other
    std::vector<std::uint8_t> m_down;              // per topology node: failures it is in now
    std::vector<std::uint8_t> m_repairsPending;    // per topology node: of those, the ones with a repair to come
    std::vector<std::uint8_t> m_linkDown;          // per topology link: failures it is in now
    std::vector<std::uint32_t> m_targets, m_entry; // per record: its node (or link) and its entry
    std::vector<std::vector<LostRequest>> m_lost;  // per record: taken, not yet recovered
    std::size_t m_instances = 0;
    FailuresSummary m_summary;
};

} // namespace coh::core
