#pragma once
// Everything the replay needs to draw a finished run at any time t, precomputed once: each path's polyline
// over the canvas, an interval index of the messages, the message roles and per-link utilisation lookup.
// Plain C++ with Qt value types only; the canvas and the tests read it, nothing here paints.
#include "core/coherence/protocol_table.h"
#include "core/engine/run_result.h"
#include "ui/interval_index.h"
#include "ui/message_roles.h"
#include "ui/replay_scene.h"

#include <QPointF>
#include <QPolygonF>

#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <vector>

namespace coh::ui {

class ReplayModel {
  public:
    // Where one message's marker is: a point on its path and the directed link hop it is on (-1: none).
    struct Marker {
        QPointF pos;
        int link = -1;
        bool forward = true;
    };

    ReplayModel() = default;
    ReplayModel(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson);

    bool isEmpty() const { return !m_run; }
    const core::RunResult* run() const { return m_run.get(); }
    const std::shared_ptr<const core::RunResult>& runPtr() const { return m_run; }
    const ReplayScene& scene() const { return m_scene; }
    // The last moment anything happens: last token or last message arrival.
    qint64 endTime() const { return m_end; }

    // Messages with start <= t < end, as indices into run()->messages; O(log n + k).
    void inFlight(qint64 t, std::vector<std::uint32_t>& out) const;
    std::size_t inFlightCount(qint64 t) const { return m_index.count(t); }

    // Progress (t - start) / (end - start), clamped to [0, 1], as a distance along the path's polyline.
    Marker marker(std::uint32_t message, qint64 t) const;
    QPolygonF polyline(std::uint32_t message) const;
    MessageRole role(std::uint32_t message) const { return kindRole(m_run->messages[message].kind); }
    MessageRole kindRole(std::size_t kind) const
    {
        return kind < m_kindRoles.size() ? m_kindRoles[kind] : MessageRole::Data;
    }

    // Bytes carried in t's time bucket over what the link could carry then; the busier direction. 0 if idle.
    double linkUtilization(int link, qint64 t) const;

    // The protocol whose table sent messages of `which`; null for the plain copy (or a name this build lacks).
    const core::coherence::Protocol* protocol(core::MessageProtocol which) const
    {
        return which == core::MessageProtocol::Kv ? m_kvProtocol : m_poolProtocol;
    }

    // KV blocks the node's caches hold in each protocol state at t, in the run's series order; states holding none
    // then are left out. Exact from the recorded steps (0 before the first change); runs stored before the steps
    // existed give the average of t's time bucket (exactNodeBlocks() false). Empty for runs without protocol
    // states. `info` is the state's row in the KV protocol's table (null if the protocol is unknown).
    struct StateBlocks {
        QString state;
        double blocks = 0;
        const core::coherence::StateInfo* info = nullptr;
        bool operator==(const StateBlocks&) const = default;
    };
    std::vector<StateBlocks> nodeBlocks(std::uint32_t node, qint64 t) const;
    // The same into `out` (cleared first), for the canvas's every frame: no allocation once `out` has grown, and
    // the state names are the model's, shared, not made anew.
    void nodeBlocks(std::uint32_t node, qint64 t, std::vector<StateBlocks>& out) const;
    bool exactNodeBlocks() const { return m_exactNodeBlocks; }
    // The most each state ever held at the node: the widest its block line can get (label placement).
    std::vector<StateBlocks> nodePeakBlocks(std::uint32_t node) const;
    // The sets of states the node showed blocks in (at least half a block) at one time over the run, each a mask
    // over nodePeakBlocks(node)'s order, without repeats: what its label can hold together, so its largest size
    // need not assume every state at its peak at once. A node with more than 64 states gives one full mask.
    std::vector<std::uint64_t> nodeStatesHeldTogether(std::uint32_t node) const;
    // The states any node held blocks in, in the protocol table's order (the legend's state key).
    std::vector<const core::coherence::StateInfo*> heldStates() const;

    // A failure of the run (RunSummary::failures), of a node or a link the scene has: down from `failed` until
    // `repaired` (-1: never, it stays down to the end), the cluster knowing from `detected` (which may be the repair
    // itself, when it came back before the monitor noticed). `record` indexes summary.failures.failures.
    struct Failure {
        std::uint32_t node = 0; // a node's failure: its scene node
        int link = -1;          // a link's failure: its scene link
        qint64 failed = 0;
        qint64 detected = 0;
        qint64 repaired = -1;
        std::size_t record = 0;
        bool downAt(qint64 t) const { return failed <= t && (repaired < 0 || t < repaired); }
        bool detectedAt(qint64 t) const { return downAt(t) && detected <= t; }
    };
    // Every failure, in the run's order; empty for a run without failures.
    const std::vector<Failure>& failures() const { return m_failures; }
    // The failure that has `node` down at t, or null while it is up; O(failures of the node).
    const Failure* nodeFailureAt(std::uint32_t node, qint64 t) const;
    bool nodeDown(std::uint32_t node, qint64 t) const { return nodeFailureAt(node, t) != nullptr; }
    // The failure that has scene link `link` down at t, or null while it is up; O(failures of the link).
    const Failure* linkFailureAt(int link, qint64 t) const;

    // The moment with the most messages in flight, and the median duration of those messages.
    struct Busiest {
        qint64 at = 0;
        std::size_t inFlight = 0;
        qint64 typicalDuration = 0;
    };
    const Busiest& busiest() const { return m_busiest; }
    // Simulated seconds per wall-clock second at which the busiest moment's typical message takes
    // kBusiestSeconds to cross; 0 for a run without messages.
    static constexpr double kBusiestSeconds = 3;
    double defaultSpeed() const;

    // Step targets: the first message start after t / the last before t; -1 when there is none.
    qint64 nextMessageStart(qint64 t) const;
    qint64 previousMessageStart(qint64 t) const;
    // The median message duration: the replay's default speed makes it last about a wall-clock second.
    qint64 medianMessageDuration() const { return m_medianDuration; }

  private:
    QPointF nodePos(std::uint32_t node) const;
    void findBusiest();
    const core::coherence::StateInfo* stateInfo(const std::string& name) const;
    void indexFailures();

    std::shared_ptr<const core::RunResult> m_run;
    ReplayScene m_scene;
    IntervalIndex m_index;
    std::vector<MessageRole> m_kindRoles;
    std::vector<qint64> m_sortedStarts;
    // Per path: its points (source node, then each hop's far end) and cumulative lengths, flattened.
    std::vector<std::uint32_t> m_pathBegin;
    std::vector<QPointF> m_points;
    std::vector<double> m_cumLength;
    // Per link: the LinkSeries index of each direction (-1 when that direction carried nothing).
    std::vector<std::array<int, 2>> m_linkSeries;
    std::vector<std::vector<std::size_t>> m_nodeBlockSeries;      // per node: its NodeBlocksSeries indices
    std::vector<const core::coherence::StateInfo*> m_seriesState; // per NodeBlocksSeries: its state's row
    std::vector<QString> m_seriesStateName;                       // per NodeBlocksSeries: its state's name
    std::vector<Failure> m_failures;
    std::vector<std::vector<std::uint32_t>> m_nodeFailures; // per node: its m_failures indices
    std::vector<std::vector<std::uint32_t>> m_linkFailures; // per scene link: its m_failures indices
    qint64 m_end = 0;
    qint64 m_medianDuration = 0;
    Busiest m_busiest;
    const core::coherence::Protocol* m_kvProtocol = nullptr;
    const core::coherence::Protocol* m_poolProtocol = nullptr;
    bool m_exactNodeBlocks = false;
};

} // namespace coh::ui
