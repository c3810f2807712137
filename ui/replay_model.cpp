#include "ui/replay_model.h"

#include "core/coherence/protocol_registry.h"
#include "ui/qt_text.h"

#include <algorithm>
#include <cmath>
#include <exception>

namespace coh::ui {

namespace {

// A protocol by name; null for the plain copy or a name this build does not know (a run from a newer one).
const core::coherence::Protocol* protocolNamed(const std::string& name)
{
    if (name.empty() || name == "direct")
        return nullptr;
    try {
        return &core::coherence::findProtocol(name);
    } catch (const std::exception&) {
        return nullptr;
    }
}

} // namespace

ReplayModel::ReplayModel(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson)
    : m_run(std::move(run))
{
    if (!m_run)
        return;
    const core::RunResult& r = *m_run;
    m_scene = ReplayScene::build(r.nodeIds, r.linkIds, scenarioJson);
    m_kvProtocol = protocolNamed(r.summary.protocol);
    m_poolProtocol = protocolNamed(r.summary.prefixPool.protocol);

    for (const auto& kind : r.summary.messagesByKind)
        m_kindRoles.push_back(messageRoleFromName(kind.role));

    // Path polylines: hop by hop from each link's near end to its far end.
    m_pathBegin.reserve(r.paths.size() + 1);
    for (const auto& path : r.paths) {
        m_pathBegin.push_back(static_cast<std::uint32_t>(m_points.size()));
        double length = 0;
        for (std::size_t h = 0; h < path.links.size(); ++h) {
            const int link = static_cast<int>(path.links[h]);
            const bool forward = path.forward[h];
            if (h == 0) {
                m_points.push_back(m_scene.linkEnd(link, forward, false));
                m_cumLength.push_back(0);
            }
            const QPointF to = m_scene.linkEnd(link, forward, true);
            length += std::hypot(to.x() - m_points.back().x(), to.y() - m_points.back().y());
            m_points.push_back(to);
            m_cumLength.push_back(length);
        }
    }
    m_pathBegin.push_back(static_cast<std::uint32_t>(m_points.size()));

    std::vector<IntervalIndex::Interval> intervals;
    intervals.reserve(r.messages.size());
    m_sortedStarts.reserve(r.messages.size());
    m_end = r.summary.makespan;
    for (const auto& m : r.messages) {
        intervals.push_back({m.start, m.end});
        m_sortedStarts.push_back(m.start);
        m_end = std::max<qint64>(m_end, m.end);
    }
    for (const auto& req : r.requests)
        m_end = std::max<qint64>(m_end, req.finish);
    std::sort(m_sortedStarts.begin(), m_sortedStarts.end());
    if (!r.messages.empty()) {
        std::vector<qint64> durations;
        durations.reserve(r.messages.size());
        for (const auto& m : r.messages)
            durations.push_back(m.end - m.start);
        auto mid = durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2);
        std::nth_element(durations.begin(), mid, durations.end());
        m_medianDuration = *mid;
    }
    m_index = IntervalIndex(intervals);
    findBusiest();

    m_linkSeries.assign(r.linkIds.size(), {-1, -1});
    for (std::size_t i = 0; i < r.linkSeries.size(); ++i) {
        const auto& s = r.linkSeries[i];
        if (s.link < m_linkSeries.size())
            m_linkSeries[s.link][s.forward ? 0 : 1] = static_cast<int>(i);
    }
    m_nodeBlockSeries.assign(m_scene.nodes.size(), {});
    for (std::size_t i = 0; i < r.nodeBlocks.size(); ++i) {
        if (r.nodeBlocks[i].node < m_nodeBlockSeries.size())
            m_nodeBlockSeries[r.nodeBlocks[i].node].push_back(i);
        m_seriesState.push_back(stateInfo(r.nodeBlocks[i].state));
        m_seriesStateName.push_back(QString::fromStdString(r.nodeBlocks[i].state));
    }
    // Runs stored before the steps were recorded have averages only; a series that held blocks has steps.
    m_exactNodeBlocks =
        !r.nodeBlocks.empty() && std::all_of(r.nodeBlocks.begin(), r.nodeBlocks.end(),
                                             [](const auto& s) { return !s.steps.empty() || s.peakBlocks <= 0; });
    indexFailures();
}

void ReplayModel::indexFailures()
{
    const core::RunResult& r = *m_run;
    m_nodeFailures.assign(m_scene.nodes.size(), {});
    m_linkFailures.assign(m_scene.links.size(), {});
    const auto& records = r.summary.failures.failures;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& f = records[i];
        Failure failure{0, -1, f.failed, f.detected, f.repaired, i};
        const auto index = static_cast<std::uint32_t>(m_failures.size());
        if (!f.link.empty()) {
            const auto it = std::find_if(m_scene.links.begin(), m_scene.links.end(),
                                         [&](const ReplayLink& l) { return l.id == toQString(f.link); });
            if (it == m_scene.links.end())
                continue; // a link that carried nothing in this run: not drawn
            failure.link = static_cast<int>(it - m_scene.links.begin());
            m_linkFailures[static_cast<std::size_t>(failure.link)].push_back(index);
        } else {
            const auto it = std::find(r.nodeIds.begin(), r.nodeIds.end(), f.node);
            const auto node = static_cast<std::size_t>(it - r.nodeIds.begin());
            if (it == r.nodeIds.end() || node >= m_scene.nodes.size())
                continue; // a node this run's topology lacks: nothing to draw it on
            failure.node = static_cast<std::uint32_t>(node);
            m_nodeFailures[node].push_back(index);
        }
        m_failures.push_back(failure);
    }
}

namespace {

// The failure among `indices` of `failures` that is down at t, or null.
const ReplayModel::Failure* downAmong(const std::vector<ReplayModel::Failure>& failures,
                                      const std::vector<std::uint32_t>& indices, qint64 t)
{
    for (const std::uint32_t i : indices)
        if (failures[i].downAt(t))
            return &failures[i];
    return nullptr;
}

} // namespace

const ReplayModel::Failure* ReplayModel::nodeFailureAt(std::uint32_t node, qint64 t) const
{
    return node < m_nodeFailures.size() ? downAmong(m_failures, m_nodeFailures[node], t) : nullptr;
}

const ReplayModel::Failure* ReplayModel::linkFailureAt(int link, qint64 t) const
{
    return link >= 0 && static_cast<std::size_t>(link) < m_linkFailures.size()
               ? downAmong(m_failures, m_linkFailures[static_cast<std::size_t>(link)], t)
               : nullptr;
}

void ReplayModel::findBusiest()
{
    const auto& messages = m_run->messages;
    if (messages.empty())
        return;
    // In flight at t: starts <= t minus ends <= t ([start, end)). The count peaks at a start; the starts are
    // sorted already, so only the ends need sorting, and one pass with two cursors finds the peak.
    std::vector<qint64> ends;
    ends.reserve(messages.size());
    for (const auto& m : messages)
        ends.push_back(m.end);
    std::sort(ends.begin(), ends.end());
    std::size_t ended = 0;
    for (std::size_t i = 0; i < m_sortedStarts.size(); ++i) {
        const qint64 t = m_sortedStarts[i];
        if (i + 1 < m_sortedStarts.size() && m_sortedStarts[i + 1] == t)
            continue; // count once all starts at t are in
        while (ended < ends.size() && ends[ended] <= t)
            ++ended;
        const std::size_t inFlight = i + 1 - std::min(ended, i + 1);
        if (inFlight > m_busiest.inFlight)
            m_busiest = {t, inFlight, 0};
    }
    std::vector<std::uint32_t> ids;
    m_index.stab(m_busiest.at, ids);
    std::vector<qint64> durations;
    durations.reserve(ids.size());
    for (std::uint32_t id : ids)
        durations.push_back(messages[id].end - messages[id].start);
    if (durations.empty())
        return;
    auto mid = durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2);
    std::nth_element(durations.begin(), mid, durations.end());
    m_busiest.typicalDuration = *mid;
}

double ReplayModel::defaultSpeed() const
{
    return static_cast<double>(m_busiest.typicalDuration) * 1e-9 / kBusiestSeconds;
}

const core::coherence::StateInfo* ReplayModel::stateInfo(const std::string& name) const
{
    if (!m_kvProtocol)
        return nullptr;
    const int index = m_kvProtocol->cache.findState(name);
    return index >= 0 ? &m_kvProtocol->cache.states[static_cast<std::size_t>(index)] : nullptr;
}

std::vector<ReplayModel::StateBlocks> ReplayModel::nodeBlocks(std::uint32_t node, qint64 t) const
{
    std::vector<StateBlocks> out;
    nodeBlocks(node, t, out);
    return out;
}

void ReplayModel::nodeBlocks(std::uint32_t node, qint64 t, std::vector<StateBlocks>& out) const
{
    out.clear();
    if (!m_run || node >= m_nodeBlockSeries.size() || t < 0)
        return;
    for (std::size_t i : m_nodeBlockSeries[node]) {
        const auto& s = m_run->nodeBlocks[i];
        double blocks = 0;
        if (m_exactNodeBlocks) {
            // The last step at or before t; none yet means nothing held.
            const auto after =
                std::upper_bound(s.steps.begin(), s.steps.end(), t,
                                 [](qint64 at, const core::BlockCountStep& step) { return at < step.at; });
            blocks = after == s.steps.begin() ? 0 : (after - 1)->blocks;
        } else if (m_run->linkInterval > 0) {
            const auto bucket = static_cast<std::size_t>(t / m_run->linkInterval);
            blocks = bucket < s.blocksPerBucket.size() ? s.blocksPerBucket[bucket] : 0;
        }
        if (blocks > 0)
            out.push_back({m_seriesStateName[i], blocks, m_seriesState[i]});
    }
}

std::vector<ReplayModel::StateBlocks> ReplayModel::nodePeakBlocks(std::uint32_t node) const
{
    std::vector<StateBlocks> out;
    if (!m_run || node >= m_nodeBlockSeries.size())
        return out;
    for (std::size_t i : m_nodeBlockSeries[node]) {
        const auto& s = m_run->nodeBlocks[i];
        if (s.peakBlocks > 0)
            out.push_back({m_seriesStateName[i], s.peakBlocks, m_seriesState[i]});
    }
    return out;
}

std::vector<std::uint64_t> ReplayModel::nodeStatesHeldTogether(std::uint32_t node) const
{
    std::vector<std::uint64_t> sets;
    if (!m_run || node >= m_nodeBlockSeries.size())
        return sets;
    std::vector<const core::NodeBlocksSeries*> series; // nodePeakBlocks' order
    for (std::size_t i : m_nodeBlockSeries[node])
        if (m_run->nodeBlocks[i].peakBlocks > 0)
            series.push_back(&m_run->nodeBlocks[i]);
    if (series.size() > 64)
        return {~std::uint64_t{0}};
    // The changes of every state, in time order; after all changes at one time, the states showing then.
    struct Change {
        qint64 at;
        std::size_t state;
        double blocks;
    };
    std::vector<Change> changes;
    for (std::size_t k = 0; k < series.size(); ++k) {
        if (m_exactNodeBlocks) {
            for (const auto& step : series[k]->steps)
                changes.push_back({step.at, k, step.blocks});
        } else {
            for (std::size_t b = 0; b < series[k]->blocksPerBucket.size(); ++b)
                changes.push_back({static_cast<qint64>(b), k, series[k]->blocksPerBucket[b]});
        }
    }
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.at < b.at; });
    std::uint64_t showing = 0;
    for (std::size_t c = 0; c < changes.size(); ++c) {
        const std::uint64_t bit = std::uint64_t{1} << changes[c].state;
        showing = changes[c].blocks >= 0.5 ? (showing | bit) : (showing & ~bit);
        if ((c + 1 == changes.size() || changes[c + 1].at != changes[c].at) &&
            std::find(sets.begin(), sets.end(), showing) == sets.end())
            sets.push_back(showing);
    }
    return sets;
}

std::vector<const core::coherence::StateInfo*> ReplayModel::heldStates() const
{
    std::vector<const core::coherence::StateInfo*> out;
    if (!m_run || !m_kvProtocol)
        return out;
    for (const auto& state : m_kvProtocol->cache.states)
        if (std::any_of(m_run->nodeBlocks.begin(), m_run->nodeBlocks.end(),
                        [&](const auto& s) { return s.state == state.name && s.peakBlocks > 0; }))
            out.push_back(&state);
    return out;
}

void ReplayModel::inFlight(qint64 t, std::vector<std::uint32_t>& out) const
{
    m_index.stab(t, out);
}

ReplayModel::Marker ReplayModel::marker(std::uint32_t message, qint64 t) const
{
    const core::MessageRecord& m = m_run->messages[message];
    const bool routed = m.path + 1 < m_pathBegin.size();
    const std::uint32_t begin = routed ? m_pathBegin[m.path] : 0, end = routed ? m_pathBegin[m.path + 1] : 0;
    if (end - begin < 2) // a message that never leaves its node
        return {nodePos(m.src), -1, true};
    const double span = static_cast<double>(m.end - m.start);
    const double progress = span > 0 ? std::clamp(static_cast<double>(t - m.start) / span, 0.0, 1.0) : 1.0;
    const double target = progress * m_cumLength[end - 1];
    // Paths have a handful of hops: a linear walk beats a binary search here.
    std::uint32_t seg = begin + 1;
    while (seg < end - 1 && m_cumLength[seg] < target)
        ++seg;
    const double segLength = m_cumLength[seg] - m_cumLength[seg - 1];
    const double f = segLength > 0 ? (target - m_cumLength[seg - 1]) / segLength : 1.0;
    const QPointF& a = m_points[seg - 1];
    const QPointF& b = m_points[seg];
    const auto& path = m_run->paths[m.path];
    const std::size_t hop = seg - begin - 1;
    return {a + (b - a) * f, static_cast<int>(path.links[hop]), path.forward[hop]};
}

QPolygonF ReplayModel::polyline(std::uint32_t message) const
{
    const core::MessageRecord& m = m_run->messages[message];
    QPolygonF poly;
    if (m.path + 1 < m_pathBegin.size())
        for (auto i = m_pathBegin[m.path]; i < m_pathBegin[m.path + 1]; ++i)
            poly << m_points[i];
    if (poly.isEmpty())
        poly << nodePos(m.src);
    return poly;
}

QPointF ReplayModel::nodePos(std::uint32_t node) const
{
    return node < m_scene.nodes.size() ? m_scene.nodes[node].pos : QPointF();
}

double ReplayModel::linkUtilization(int link, qint64 t) const
{
    if (!m_run || link < 0 || static_cast<std::size_t>(link) >= m_linkSeries.size() || t < 0 ||
        m_run->linkInterval <= 0)
        return 0;
    const auto bucket = static_cast<std::size_t>(t / m_run->linkInterval);
    const double seconds = core::toSeconds(m_run->linkInterval);
    double best = 0;
    for (int series : m_linkSeries[static_cast<std::size_t>(link)]) {
        if (series < 0)
            continue;
        const auto& s = m_run->linkSeries[static_cast<std::size_t>(series)];
        if (bucket < s.bytesPerBucket.size() && s.bandwidthBytesPerSec > 0)
            best = std::max(best, s.bytesPerBucket[bucket] / (s.bandwidthBytesPerSec * seconds));
    }
    return best;
}

qint64 ReplayModel::nextMessageStart(qint64 t) const
{
    auto it = std::upper_bound(m_sortedStarts.begin(), m_sortedStarts.end(), t);
    return it == m_sortedStarts.end() ? -1 : *it;
}

qint64 ReplayModel::previousMessageStart(qint64 t) const
{
    auto it = std::lower_bound(m_sortedStarts.begin(), m_sortedStarts.end(), t);
    return it == m_sortedStarts.begin() ? -1 : *(it - 1);
}

} // namespace coh::ui
