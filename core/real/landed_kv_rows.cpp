#include "core/real/landed_kv_rows.h"

#include "core/real/node_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace coh::core::real {

void LandedKvRows::landed(std::uint32_t node, const KvRowsLayout& layout, const KvPayload& payload,
                          std::uint32_t tokens, std::vector<Segment> segments)
{
    if (tokens == 0 || segments.empty())
        return;
    ensureNode(node);
    // A landing's bytes are its own: anything still recorded there was written over by the copy.
    for (const Segment& s : segments)
        overwritten(node, s.memory, s.bytes);
    const std::uint64_t id = m_next++;
    for (const Segment& s : segments)
        m_extents[node][s.memory] = Extent{s.memory + s.bytes, id};
    m_bySequence[node][payload.sequence].push_back(id);
    Run& run = m_runs
                   .emplace(id, Run{node, layout, payload, tokens, headsOf(layout, payload.shard, payload.shards),
                                    std::move(segments)})
                   .first->second;
    Aside& aside = m_aside[node];
    if (aside.budget == 0)
        return;
    run.setAside = true;
    aside.bytes += bytesOf(run);
    aside.order.push_back(id);
    // Over the budget: the oldest go back first (this one too, when it alone is larger).
    while (aside.bytes > aside.budget && !aside.order.empty()) {
        const auto oldest = m_runs.find(aside.order.front());
        aside.order.pop_front();
        if (oldest != m_runs.end())
            giveBack(oldest->second);
    }
}

void LandedKvRows::ensureNode(std::uint32_t node)
{
    if (m_extents.size() <= node) {
        m_extents.resize(node + 1);
        m_bySequence.resize(node + 1);
        m_aside.resize(node + 1);
    }
}

void LandedKvRows::setAsideFor(std::uint32_t node, std::size_t budgetBytes)
{
    ensureNode(node);
    m_aside[node].budget = budgetBytes;
}

bool LandedKvRows::setAside(std::uint32_t node, std::size_t offset, std::size_t bytes) const
{
    if (node >= m_aside.size() || m_aside[node].bytes == 0 || bytes == 0)
        return false;
    const auto& extents = m_extents[node];
    auto it = extents.upper_bound(offset);
    if (it != extents.begin() && std::prev(it)->second.end > offset)
        --it;
    for (; it != extents.end() && it->first < offset + bytes; ++it)
        if (m_runs.at(it->second.run).setAside)
            return true;
    return false;
}

void LandedKvRows::taken(std::uint32_t node, std::uint32_t sequence)
{
    if (node >= m_bySequence.size() || m_aside[node].bytes == 0)
        return;
    const auto it = m_bySequence[node].find(sequence);
    if (it == m_bySequence[node].end())
        return;
    for (const std::uint64_t id : it->second)
        giveBack(m_runs.at(id));
    // What was given back leaves the front of the order; the rest leave it as the budget reaches them.
    auto& order = m_aside[node].order;
    while (!order.empty()) {
        const auto front = m_runs.find(order.front());
        if (front != m_runs.end() && front->second.setAside)
            break;
        order.pop_front();
    }
}

void LandedKvRows::giveBack(Run& run)
{
    if (!run.setAside)
        return;
    run.setAside = false;
    m_aside[run.node].bytes -= bytesOf(run);
}

std::size_t LandedKvRows::bytesOf(const Run& run)
{
    std::size_t bytes = 0;
    for (const Segment& s : run.segments)
        bytes += s.bytes;
    return bytes;
}

void LandedKvRows::overwritten(std::uint32_t node, std::size_t offset, std::size_t bytes)
{
    if (node >= m_extents.size() || bytes == 0)
        return;
    auto& extents = m_extents[node];
    const std::size_t end = offset + bytes;
    // Extents do not overlap: the one starting before `offset` may reach into it, the rest start inside it.
    auto it = extents.upper_bound(offset);
    if (it != extents.begin() && std::prev(it)->second.end > offset)
        --it;
    std::vector<std::pair<std::size_t, Extent>> hit;
    for (; it != extents.end() && it->first < end; ++it)
        hit.emplace_back(*it);
    for (const auto& [start, extent] : hit)
        cut(node, start, extent, offset, end);
}

void LandedKvRows::cut(std::uint32_t node, std::size_t start, const Extent& extent, std::size_t from, std::size_t to)
{
    // Only the bytes written are lost: the segment keeps what lies before and after them.
    Run& run = m_runs.at(extent.run);
    const auto s =
        std::find_if(run.segments.begin(), run.segments.end(), [&](const Segment& seg) { return seg.memory == start; });
    if (s == run.segments.end())
        throw std::logic_error("landed K/V rows: an extent whose landing does not list it");
    const Segment was = *s;
    if (run.setAside)
        m_aside[node].bytes -= std::min(to, extent.end) - std::max(from, start);
    const auto at = run.segments.erase(s);
    m_extents[node].erase(start);
    std::vector<Segment> kept;
    if (from > start)
        kept.push_back({start, was.payload, from - start});
    if (to < extent.end)
        kept.push_back({to, was.payload + (to - start), extent.end - to});
    for (const Segment& k : kept)
        m_extents[node][k.memory] = Extent{k.memory + k.bytes, extent.run};
    run.segments.insert(at, kept.begin(), kept.end());
    if (run.segments.empty())
        forget(extent.run);
}

void LandedKvRows::forget(std::uint64_t id)
{
    const auto it = m_runs.find(id);
    if (it == m_runs.end())
        return;
    Run& run = it->second;
    giveBack(run);
    for (const Segment& s : run.segments)
        m_extents[run.node].erase(s.memory);
    auto& bySequence = m_bySequence[run.node];
    auto& ids = bySequence[run.payload.sequence];
    ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
    if (ids.empty())
        bySequence.erase(run.payload.sequence);
    m_runs.erase(it);
}

const LandedKvRows::Run* LandedKvRows::runFor(std::uint32_t node, const RowsWanted& wanted, std::uint32_t head) const
{
    if (node >= m_bySequence.size())
        return nullptr;
    const auto it = m_bySequence[node].find(wanted.sequence);
    if (it == m_bySequence[node].end())
        return nullptr;
    for (auto id = it->second.rbegin(); id != it->second.rend(); ++id) {
        const Run& run = m_runs.at(*id);
        const std::uint32_t first = run.payload.firstToken;
        if (run.layout.elementBytes == wanted.elementBytes && run.layout.headDim == wanted.headDim &&
            head >= run.heads.from && head < run.heads.from + run.heads.count && wanted.firstToken >= first &&
            wanted.firstToken < first + run.tokens)
            return &run;
    }
    return nullptr;
}

std::uint32_t LandedKvRows::rowsHeld(std::uint32_t node, const RowsWanted& wanted) const
{
    std::uint32_t rows = wanted.tokens;
    const std::size_t rowBytes = std::size_t{wanted.headDim} * wanted.elementBytes;
    for (std::uint32_t h = 0; h < wanted.kvHeads && rows > 0; ++h) {
        const Run* run = runFor(node, wanted, h);
        if (!run)
            return 0;
        rows = std::min(rows, run->payload.firstToken + run->tokens - wanted.firstToken);
        // Each row whole, K and V, in memory not written over since.
        for (std::uint32_t row = 0; row < rows; ++row) {
            const std::size_t k = rowOffset(*run, wanted, h, row, rowBytes);
            if (!holds(*run, k, rowBytes) || !holds(*run, k + halfOf(*run), rowBytes)) {
                rows = row;
                break;
            }
        }
    }
    return rows;
}

std::size_t LandedKvRows::halfOf(const Run& run)
{
    return blockRowsBytes(run.layout, run.payload) / 2;
}

std::size_t LandedKvRows::rowOffset(const Run& run, const RowsWanted& wanted, std::uint32_t head, std::uint32_t row,
                                    std::size_t rowBytes)
{
    const std::uint32_t bt = run.layout.blockTokens;
    const std::uint32_t i = wanted.firstToken + row - run.payload.firstToken;
    return 2 * halfOf(run) * (i / bt) + (std::size_t{head - run.heads.from} * bt + i % bt) * rowBytes;
}

std::vector<LandedKvRows::Segment>::const_iterator LandedKvRows::segmentAt(const Run& run, std::size_t payloadOffset)
{
    // The last that starts at or before it; it may have been cut short of it since.
    auto s = std::upper_bound(run.segments.begin(), run.segments.end(), payloadOffset,
                              [](std::size_t at, const Segment& seg) { return at < seg.payload; });
    return s == run.segments.begin() ? run.segments.end() : std::prev(s);
}

bool LandedKvRows::holds(const Run& run, std::size_t payloadOffset, std::size_t bytes)
{
    auto s = segmentAt(run, payloadOffset);
    for (std::size_t at = payloadOffset; at < payloadOffset + bytes; ++s) {
        if (s == run.segments.end() || s->payload > at || s->payload + s->bytes <= at)
            return false;
        at = s->payload + s->bytes;
    }
    return true;
}

void LandedKvRows::read(NodeResources& nodes, std::uint32_t node, const RowsWanted& wanted, std::uint32_t rows,
                        std::vector<std::byte>& out) const
{
    if (rows > rowsHeld(node, wanted))
        throw std::logic_error("landed K/V rows: more rows read than the node's memory holds");
    const std::size_t e = wanted.elementBytes;
    const std::size_t rowBytes = std::size_t{wanted.headDim} * e;
    const std::size_t half = std::size_t{wanted.kvHeads} * rows * rowBytes; // K (or V) of the rows read
    const std::size_t at = out.size();
    out.resize(at + 2 * half);
    for (std::uint32_t h = 0; h < wanted.kvHeads; ++h) {
        const Run& run = *runFor(node, wanted, h);
        const std::uint32_t bt = run.layout.blockTokens;
        // Within one of the run's blocks a head's rows are contiguous: read them a block's stretch at a time.
        for (std::uint32_t row = 0; row < rows;) {
            const std::uint32_t inBlock = (wanted.firstToken + row - run.payload.firstToken) % bt;
            const std::uint32_t n = std::min(rows - row, bt - inBlock);
            const std::size_t from = rowOffset(run, wanted, h, row, rowBytes);
            const std::size_t to = at + (std::size_t{h} * rows + row) * rowBytes;
            const std::size_t bytes = std::size_t{n} * rowBytes;
            readRun(nodes, run, from, std::span(out).subspan(to, bytes));
            readRun(nodes, run, from + halfOf(run), std::span(out).subspan(to + half, bytes));
            row += n;
        }
    }
}

void LandedKvRows::readRun(NodeResources& nodes, const Run& run, std::size_t payloadOffset, std::span<std::byte> out)
{
    auto s = segmentAt(run, payloadOffset);
    for (std::size_t done = 0; done < out.size(); ++s) {
        if (s == run.segments.end() || s->payload > payloadOffset + done ||
            s->payload + s->bytes <= payloadOffset + done)
            throw std::logic_error("landed K/V rows: a read of bytes written over since they landed");
        const std::size_t inSegment = payloadOffset + done - s->payload;
        const std::size_t n = std::min(out.size() - done, s->bytes - inSegment);
        nodes.readBytes(run.node, s->memory + inSegment, out.subspan(done, n));
        done += n;
    }
}

std::optional<std::string> notTheSequences(const LandedKvRows::RowsWanted& wanted, std::uint32_t rows,
                                           std::span<const std::byte> read)
{
    // What read() lays out is one payload block of `rows` rows, every head's: composeRows's layout for it.
    const KvRowsLayout layout{.kvHeads = wanted.kvHeads,
                              .headDim = wanted.headDim,
                              .blockTokens = std::max(1u, rows),
                              .elementBytes = wanted.elementBytes};
    const KvPayload payload{.sequence = wanted.sequence, .firstToken = wanted.firstToken, .tokens = rows};
    std::vector<std::byte> expected;
    composeRows(layout, payload, rows, wanted.sequence, expected);
    if (read.size() != expected.size())
        return fmt::format("{} bytes read for {} rows", read.size(), rows);
    const auto bad = firstRowMismatch(layout, payload, expected, read);
    if (!bad)
        return std::nullopt;
    return fmt::format("token {}'s {} at KV head {}, dimension {} is not sequence {}'s", bad->token,
                       bad->isV ? "V" : "K", bad->kvHead, bad->dim, wanted.sequence);
}

} // namespace coh::core::real
