#pragma once
// A real backend's transport (docs/real-backend.md): every message with bytes is a real copy from the sender's
// memory into the receiver's, made by the receiver's resource (real-cpu: its worker thread; real-cuda: its GPU's copy
// engine), timed, and checked by its stamp and by the checksum the stamp seals (one that fails is compared with its
// source byte for byte, to name what went wrong). Its delivery is posted
// into the same event loop as a simulated flow's, at the send time plus the measured copy time, the pair's copies in
// flight sharing it (PairSharing), so everything above the transport (protocols, invariants, metrics, the store) is
// the simulator's own. Copies of other pairs do not contend for memory bandwidth here.
#include "core/net/cost_fit.h"
#include "core/net/transport.h"
#include "core/real/kv_payload_rows.h"
#include "core/real/node_resources.h"
#include "core/real/pair_sharing.h"
#include "core/scenario/topology.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace coh::core::real {

class ArenaSlots;

// A copy that does not hold what was sent: the run stops with this, naming the message.
class CopyCheckError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class CopyTransport final : public Transport {
  public:
    static constexpr double kMaxCopyBytes = 1e15; // a petabyte: past any node's memory
    // `wakeKind` and `deliverKind` are the event kinds the owner routes back to onWake() / onDeliver().
    CopyTransport(const Topology& topology, Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                  std::uint32_t deliverKind, SimTime linkInterval, NodeResources& nodes);
    ~CopyTransport() override;

    void send(std::uint32_t route, double bytes, FlowEndpoint& endpoint, std::uint64_t tag) override;
    // A pair's copies have landed: each is delivered (or, under a lost completion, not).
    void onWake(const Event& ev) override;
    void onDeliver(const Event& ev) override;

    // The backend refuses scenarios with link failures before it is built (makeTransport); these never run.
    void linkFailed(std::uint32_t) override;
    void linkDetected(std::uint32_t) override;
    void linkRepaired(std::uint32_t) override;
    const TransportFaultCounts& faultCounts() const override { return m_faults; }

    const LinkUsage& usage() const override { return m_usage; }
    const Routing& routing() const override { return m_routing; }
    SimTime now() const override { return m_sim.now(); }
    SimTime lastActivity() const override { return m_lastActivity; }
    BackendSummary describe() const override;

    // A message copied whose completion never arrived stops the run here, named (a lost completion).
    void checkDelivered() const override;

    // Messages that hold a sequence's K/V (FlowEndpoint::payloadOf) carry its first layer's rows, laid out for a pool
    // of this layout, and the receiver checks them on landing (kv_payload_rows.h). Without it, payloads are filler.
    void carryKvRows(const KvRowsLayout& layout) { m_rowsLayout = layout; }

    // Fault injection: the next copy goes wrong this way (CopyFault); the checks must stop the run naming that
    // message and what is wrong.
    void injectIntoNextCopy(CopyFault fault) { m_nextFault = fault; }
    // The same on the copy whose stamp numbers it `message` (the run's first copy is 1).
    void injectIntoCopy(CopyFault fault, std::uint64_t message)
    {
        m_faultAt = message;
        m_faultAtCopy = fault;
    }

  private:
    struct Pending {
        FlowInfo info;
        FlowEndpoint* endpoint = nullptr;
        std::uint64_t message = 0; // its stamp's number; 0: nothing copied
        bool inFlight = false;
        bool lost = false; // a lost completion: it lands, and nothing tells the receiver's owner
    };
    void wakeAt(const PairSharing::Wake& wake);
    // Cuts a message of `size` bytes into m_pieces (RealCpuOptions::descriptorBytes each, scattered over slots on
    // both sides; or one region) and returns where the receiver's next whole-region copy starts.
    std::size_t placePieces(std::uint32_t src, std::uint32_t dst, std::size_t size, std::size_t arena);
    // What the sender's region holds when the copy reads it: the message's stamp, unless a fault says otherwise.
    static CopyStamp sourceStamp(const CopyStamp& stamp, CopyFault fault);
    // Writes the payload's rows (another sequence's under WrongBlocks) into the sender's pieces, as many tokens as
    // the pieces hold apart from one another; returns how many, 0 when none fit. m_rows keeps the right ones.
    std::uint32_t putRows(std::uint32_t src, const KvPayload& payload, CopyFault fault);
    // Once the copy checked out: the rows that landed are the payload's sequence's, or the run stops naming the first
    // that is not. Returns where in the receiver's memory they lie, for its decode pool (LandedKvRows).
    std::vector<LandedKvRows::Segment> checkRows(const FlowInfo& info, const Route& route, const KvPayload& payload,
                                                 std::uint64_t message);
    [[noreturn]] void refuse(const FlowInfo& info, const Route& route, const CopyStamp& expected,
                             const CopyResult& result) const;

    const Topology& m_topology;
    Routing& m_routing;
    Simulator& m_sim;
    std::uint32_t m_wakeKind, m_deliverKind;
    NodeResources& m_nodes;
    PairSharing m_pairs;                              // when each copy lands, sharing its pair with the others
    std::vector<PairSharing::Landed> m_wokeLanded;    // scratch: what a wake landed
    std::vector<std::size_t> m_cursor;                // per node: where the next copy into its arena goes
    std::vector<std::uint32_t> m_versions;            // per node: its data's version, one more per message it sends
    std::vector<std::unique_ptr<ArenaSlots>> m_slots; // per node, made at its first piece
    std::vector<CopyPiece> m_pieces;                  // scratch: the message being copied
    std::optional<KvRowsLayout> m_rowsLayout;
    std::vector<std::byte> m_rows, m_sentRows, m_landed; // scratch: expected, written, read back
    std::vector<Pending> m_pending;                      // slots, reused through m_free
    std::vector<std::uint32_t> m_free;
    std::uint64_t m_messages = 0;
    CopyFault m_nextFault = CopyFault::None;
    std::uint64_t m_faultAt = 0; // 0: none
    CopyFault m_faultAtCopy = CopyFault::None;
    LinkUsage m_usage;
    TransportFaultCounts m_faults;
    SimTime m_lastActivity = 0;
    BackendSummary m_summary;
    CostFitSums m_copyFit, m_hostCopyFit; // BackendSummary::copyFit, hostCopyFit
    std::vector<bool> m_hostMemory;       // per node: its copies take the host path (real-cuda)
    double m_largestCopy = 0;
};

} // namespace coh::core::real
