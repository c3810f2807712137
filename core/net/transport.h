#pragma once
// The seam between the KV paths and whatever executes their messages (docs/real-backend.md#the-seam). Every KV
// path, pool and tier sends through a Transport and learns of a delivery through its FlowEndpoint, so none of them
// knows whether a message is a flow of the simulated network (FlowNetwork) or a real copy between the memories
// of this machine (real/copy_transport.h). Both post their deliveries into the same event loop.
#include "core/net/backend_summary.h"
#include "core/net/link_usage.h"
#include "core/net/routing.h"
#include "core/sim/event.h"

#include <cstdint>
#include <optional>

namespace coh::core {

struct FlowInfo {
    std::uint32_t route = 0;
    double bytes = 0;
    SimTime start = 0;
    SimTime delivered = 0;
    std::uint64_t tag = 0; // the sender's, handed back to its endpoint on delivery; its meaning is the endpoint's
};

// The K/V a message carries, where it carries a sequence's: tokens [firstToken, firstToken + tokens) of `sequence`,
// every layer, the KV heads of shard `shard` of `shards` (a tensor-parallel group splits them). A real backend puts
// the sequence's rows into the bytes it copies and checks on landing that they arrived (real/kv_payload_rows.h).
struct KvPayload {
    std::uint32_t sequence = 0;
    std::uint32_t firstToken = 0;
    std::uint32_t tokens = 0;
    std::uint32_t shard = 0;
    std::uint32_t shards = 1;
    bool operator==(const KvPayload&) const = default;
};

// Where a flow is delivered: whoever sends a flow names the endpoint that receives it (as a link end owns its
// handler in SST), so every participant gets its own flows and nobody decodes or forwards anyone else's.
class FlowEndpoint {
  public:
    virtual ~FlowEndpoint() = default;
    virtual void onFlowDelivered(const FlowInfo& flow) = 0;
    // What the message being sent with `tag` holds, when it holds a sequence's K/V; asked while send() runs. None:
    // its bytes are the protocol's alone (control, or blocks no sequence's rows are kept for).
    virtual std::optional<KvPayload> payloadOf(std::uint64_t) const { return std::nullopt; }
};

// What link failures did to the messages (FailuresSummary reports it).
struct TransportFaultCounts {
    std::uint64_t stopped = 0;  // messages a failed link stopped
    std::uint64_t rerouted = 0; // of those, sent again over another route
    double bytesResent = 0;     // what the stopped messages had moved, sent again
    double stalledNs = 0;       // summed over stopped messages sent again: stopped to sent again
};

class Transport {
  public:
    virtual ~Transport() = default;

    // Starts a message now over a route id from routing() (or the route that replaced it since), delivered to
    // `endpoint` with `tag` through the event loop. A route with no hops (same node) carries no bytes.
    virtual void send(std::uint32_t route, double bytes, FlowEndpoint& endpoint, std::uint64_t tag) = 0;
    // The owner routes the two event kinds it gave the transport here.
    virtual void onWake(const Event& ev) = 0;
    virtual void onDeliver(const Event& ev) = 0;

    // Link failures (docs/engine.md#link-failures); a backend that cannot fail a link refuses the scenario first.
    virtual void linkFailed(std::uint32_t link) = 0;
    virtual void linkDetected(std::uint32_t link) = 0;
    virtual void linkRepaired(std::uint32_t link) = 0;
    virtual const TransportFaultCounts& faultCounts() const = 0;

    // Link usage up to the last transport event.
    virtual const LinkUsage& usage() const = 0;
    virtual const Routing& routing() const = 0;
    virtual SimTime now() const = 0;
    // When the transport last moved anything (a send, a wake, a delivery).
    virtual SimTime lastActivity() const = 0;
    // Which backend this is and, for a real one, what it ran on and measured.
    virtual BackendSummary describe() const = 0;
    // At the end of a run: every message sent has been delivered. A real transport throws naming the first that was
    // not (its completion was lost); the simulated one cannot lose one.
    virtual void checkDelivered() const {}

    // The bytes of every message sent so far, on every route: the traffic a real backend's copies put through this
    // machine's memories between an instance's decode steps (ComputeCost::watchTraffic).
    double bytesSent() const { return m_bytesSent; }

  protected:
    void countSent(double bytes) { m_bytesSent += bytes; }

  private:
    double m_bytesSent = 0;
};

} // namespace coh::core
