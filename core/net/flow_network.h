#pragma once
// Flow-level network: each message is a flow over its route; concurrent flows share every link direction
// max-min fairly. A message of S bytes is delivered when its last byte has drained through the bottleneck
// plus the route's latency, so an uncontended message takes sum(hop latency) + S / bottleneck bandwidth.
// Max-min rates decompose over the connected components of the flow-channel graph, so a flow's start or end
// re-solves only the component it touches: most messages travel alone and cost no solve at all. A message small
// enough to drain within one nanosecond at its bottleneck's full rate is not fair-shared at all (see send()).
// Messages of one size sent over one route at one instant (a decode step's per-sequence writes) are one bundle:
// they share every rate and drain together, so the solver and the wakes handle them as one flow of weight k.
#include "core/net/link_usage.h"
#include "core/net/routing.h"
#include "core/net/transport.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// The simulated backend's transport.
class FlowNetwork final : public Transport {
  public:
    // `wakeKind` and `deliverKind` are the event kinds the owner routes back to onWake() / onDeliver().
    FlowNetwork(const Topology& topology, Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                std::uint32_t deliverKind, SimTime linkInterval);

    // Starts a message now over a route id from routing() (or the route that replaced it, when a link failed or came
    // back since), delivered to `endpoint` with `tag`. A route with no hops
    // (same node) is delivered at once, through the queue. A message that would drain past the end of representable
    // time throws SimulationLimitError (core/net/simulation_limit.h) naming the link that limits it.
    void send(std::uint32_t route, double bytes, FlowEndpoint& endpoint, std::uint64_t tag) override;

    void onWake(const Event& ev) override;
    void onDeliver(const Event& ev) override;

    // Link failures (docs/engine.md#link-failures). linkFailed(): the flows crossing the link stop, losing the bytes
    // they had moved; they and every message sent over the link from now on wait. linkDetected(): routing avoids
    // the link from now on and the waiting messages are sent again, whole, over their new routes (those the down
    // links cut off wait on). linkRepaired(): the link carries traffic again, routing uses it at once, and what
    // waits goes. A message already drained (in its latency) or short enough to skip fair sharing still arrives.
    void linkFailed(std::uint32_t link) override;
    void linkDetected(std::uint32_t link) override;
    void linkRepaired(std::uint32_t link) override;
    using FaultCounts = TransportFaultCounts;
    const FaultCounts& faultCounts() const override { return m_faults; }
    // Messages stopped by a failed link, not yet sent again.
    std::size_t waitingFlows() const { return m_waiting.size(); }

    std::size_t activeFlows() const { return m_active.size(); }
    // Link usage up to the last network event.
    const LinkUsage& usage() const override;
    const Routing& routing() const override { return m_routing; }
    SimTime now() const override { return m_sim.now(); }
    SimTime lastActivity() const override { return m_lastAdvance; }
    BackendSummary describe() const override { return {}; }

  private:
    struct Flow {
        FlowInfo info;
        FlowEndpoint* endpoint = nullptr;
        const Route* route = nullptr; // routing's, stable: the hot loops need its channels
        double remaining = 0;         // bytes not yet through the bottleneck
        double rate = 0;              // bytes/ns
        SimTime stoppedAt = 0;        // when a failed link stopped it
        // A bundle's leader drains for all its members (each as one flow of its own would: `rate` and `remaining`
        // are per member); the members wait in a chain, in the order they were sent, to be delivered with it.
        std::uint32_t members = 1;    // the leader and the flows chained to it
        std::uint32_t nextMember = 0; // slot + 1 of the next member; 0: none
        std::uint32_t lastMember = 0; // the leader's: slot + 1 of its chain's end
        // It may still take members: started this instant, not drained (fair-shared) or not delivered (the rest).
        bool joinable = false;
    };

    // Starts a flow whose route is set: delivered at once without hops, alone past its bottleneck when short,
    // else fair-shared.
    void launch(std::uint32_t slot);
    // Joins the flow to a bundle of its route's started at this instant with its size, to be delivered with it;
    // false when there is none (it may lead the next). The caller re-solves a fair-shared bundle's rates.
    bool joinBundle(std::uint32_t slot);
    // Rates on the dirty channels change at this instant: solved now, or once after a burst of sends (see launch).
    void solveSoon();
    // Its route is reachable and crosses no failed link.
    bool usable(const Route& route) const;
    void stop(std::uint32_t slot);
    // A failed link stops a drained-in-part bundle member by member: each waits and is sent again on its own.
    void stopBundle(std::uint32_t leader);
    // Sends the waiting messages again, each over the route it would take now, unless that is not usable either.
    void sendWaitingAgain();

    void advanceTo(SimTime t);
    void completeDrained();
    // A started flow joins its channels' lists; true when it is alone on every one (no rates change but its own).
    bool attach(std::uint32_t slot);
    // A drained flow leaves them; true when it was alone on every one.
    bool detach(std::uint32_t slot);
    void markDirty(const std::vector<std::uint32_t>& channels);
    // Re-solves the rates of the flows connected to a dirty channel, then schedules the next wake.
    void reallocate();
    void solveDirty();
    void scheduleWake();
    // The soonest completion, `ns` from now, is past the clock's end: throws SimulationLimitError.
    [[noreturn]] void refuseEndPastClock(double ns) const;
    // Link usage is accounted per channel when its total rate changes, not on every event.
    void setChannelRate(std::uint32_t channel, double rate) const;
    std::uint32_t allocateSlot();

    Routing& m_routing;
    Simulator& m_sim;
    std::uint32_t m_wakeKind, m_deliverKind;

    static constexpr SimTime kSmallMessageNs = 1;
    std::vector<double> m_capacity;     // bytes/ns per channel
    std::vector<std::string> m_linkIds; // per link, to name one in an error
    std::vector<Flow> m_flows;          // slots, reused through m_free
    std::vector<std::uint32_t> m_free;
    std::vector<std::uint32_t> m_active;   // slots of flows still draining (bundles' leaders)
    std::vector<std::uint32_t> m_bundleOf; // per route id: slot + 1 of the bundle last started over it
    SimTime m_lastAdvance = 0;
    std::uint64_t m_generation = 0; // wake events from older generations are stale
    bool m_wakePending = false;     // the current generation's wake has not fired yet
    SimTime m_wakeAt = 0;
    SimTime m_lastSolveAt = -1; // when send() last solved the rates itself

    std::vector<std::uint8_t> m_linkFailed; // per link
    std::uint32_t m_linksFailed = 0;
    std::vector<std::uint32_t> m_waiting; // slots of flows a failed link stopped
    FaultCounts m_faults;

    // Per channel: its draining flows, and the sum of their rates since `m_rateSince`, not yet in m_usage.
    // usage() flushes what is pending, hence mutable.
    std::vector<std::vector<std::uint32_t>> m_flowsOn;
    mutable LinkUsage m_usage;
    mutable std::vector<double> m_channelRate;
    mutable std::vector<SimTime> m_rateSince;
    // Channels whose flows changed since the last solve, and the search for their component.
    std::vector<std::uint32_t> m_dirty;
    std::vector<std::uint8_t> m_channelMark;
    std::vector<std::uint8_t> m_flowMark; // per slot
    std::vector<std::uint32_t> m_componentChannels;
    std::vector<double> m_newRate;         // per channel, scratch for a solve
    std::vector<double> m_spare;           // per channel: capacity not yet given to frozen flows
    std::vector<std::uint32_t> m_unfrozen; // per channel: its flows not yet frozen
};

} // namespace coh::core
