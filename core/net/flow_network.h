#pragma once
// Flow-level network: each message is a flow over its route; concurrent flows share every link direction
// max-min fairly. A message of S bytes is delivered when its last byte has drained through the bottleneck
// plus the route's latency, so an uncontended message takes sum(hop latency) + S / bottleneck bandwidth.
#include "core/net/link_usage.h"
#include "core/net/max_min_fair.h"
#include "core/net/routing.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <span>
#include <vector>

namespace coh::core {

struct FlowInfo {
    std::uint32_t route = 0;
    double bytes = 0;
    SimTime start = 0;
    SimTime delivered = 0;
    std::uint64_t cookie = 0; // the sender's tag, handed back on delivery
};

class FlowSink {
public:
    virtual ~FlowSink() = default;
    virtual void onFlowDelivered(const FlowInfo& flow) = 0;
};

class FlowNetwork {
public:
    // `wakeKind` and `deliverKind` are the event kinds the owner routes back to onWake() / onDeliver().
    FlowNetwork(const Topology& topology, const Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                std::uint32_t deliverKind, SimTime linkInterval);

    void setSink(FlowSink* sink) { m_sink = sink; }

    // Starts a message now. A route with no hops (same node) is delivered at once, through the queue.
    void send(std::uint32_t route, double bytes, std::uint64_t cookie);

    void onWake(const Event& ev);
    void onDeliver(const Event& ev);

    std::size_t activeFlows() const { return m_active.size(); }
    const LinkUsage& usage() const { return m_usage; }
    const Routing& routing() const { return m_routing; }
    SimTime now() const;

private:
    struct Flow {
        FlowInfo info;
        double remaining = 0; // bytes not yet through the bottleneck
        double rate = 0;      // bytes/ns
    };

    void advanceTo(SimTime t);
    void completeDrained();
    void reallocate();
    std::uint32_t allocateSlot();

    const Routing& m_routing;
    Simulator& m_sim;
    std::uint32_t m_wakeKind, m_deliverKind;
    FlowSink* m_sink = nullptr;

    std::vector<double> m_capacity; // bytes/ns per channel
    std::vector<Flow> m_flows;      // slots, reused through m_free
    std::vector<std::uint32_t> m_free;
    std::vector<std::uint32_t> m_active; // slots of flows still draining
    SimTime m_lastAdvance = 0;
    std::uint64_t m_generation = 0; // wake events from older generations are stale
    bool m_wakePending = false;     // the current generation's wake has not fired yet
    SimTime m_wakeAt = 0;
    SimTime m_lastSolveAt = -1; // when send() last solved the rates itself

    MaxMinFairSolver m_solver;
    std::vector<std::span<const std::uint32_t>> m_paths; // scratch for the solver
    std::vector<double> m_rates;
    LinkUsage m_usage;
    // Per channel, the sum of its flows' rates since the last solve, and the channels with any: link usage is
    // accounted per channel rather than per flow and hop.
    std::vector<double> m_channelRate;
    std::vector<std::uint8_t> m_channelBusy;
    std::vector<std::uint32_t> m_busyChannels;
};

} // namespace coh::core
