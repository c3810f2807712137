// The order of same-instant serving events: by priority class (serving_events.h), then scheduling order.
#include "core/serving/serving_events.h"
#include "core/sim/simulator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace coh::core {
namespace {

// Records the serving events in the order the kernel runs them.
struct EventOrder {
    std::vector<std::uint32_t> ids;
    void operator()(const Event& ev) { ids.push_back(eventKindId(ev.kind)); }
};

TEST(ServingEvents, OneInstantRunsNetworkCompletionsArrivalsKicksThenReports)
{
    using namespace serving_event;
    Simulator sim;
    // Scheduled in reverse class order (and the network's two kinds out of order): each class runs whole, in
    // class order, and within one the scheduling order holds.
    sim.scheduleAt(10, Heartbeat);
    sim.scheduleAt(10, DecodeKick);
    sim.scheduleAt(10, Arrival);
    sim.scheduleAt(10, DecodeDone);
    sim.scheduleAt(10, PrefillDone);
    sim.scheduleAt(10, NetWake);
    sim.scheduleAt(10, NetDeliver);
    EventOrder order;
    sim.run(order);
    EXPECT_EQ(order.ids, (std::vector<std::uint32_t>{NetWakeId, NetDeliverId, DecodeDoneId, PrefillDoneId, ArrivalId,
                                                     DecodeKickId, HeartbeatId}));
}

// A kick scheduled before a delivery of its own instant (a zero-latency message sent by an earlier event of the
// instant) still runs after it: the KV that delivery makes ready joins the batch.
struct KickThenLocalDelivery {
    Simulator* sim;
    std::vector<std::uint32_t> ids;
    void operator()(const Event& ev)
    {
        ids.push_back(eventKindId(ev.kind));
        if (eventKindId(ev.kind) == DecodeDoneId) {
            sim->scheduleIn(0, serving_event::DecodeKick);
            sim->scheduleIn(0, serving_event::NetDeliver);
        }
    }
};

TEST(ServingEvents, AKickRunsAfterDeliveriesScheduledBehindIt)
{
    Simulator sim;
    sim.scheduleAt(10, serving_event::DecodeDone);
    KickThenLocalDelivery handler{&sim, {}};
    sim.run(handler);
    EXPECT_EQ(handler.ids, (std::vector<std::uint32_t>{DecodeDoneId, NetDeliverId, DecodeKickId}));
}

} // namespace
} // namespace coh::core
