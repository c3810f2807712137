#include "core/real/sequence_blocks.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace coh::core::real {

namespace {
constexpr std::uint32_t kNoWrite = 0xffffffffu;
}

std::string describeBadRead(const BadBlockRead& read)
{
    const BlockStamp& e = read.expected;
    const BlockStamp& f = read.found;
    std::string what;
    if (f.sequence == kFreeBlock)
        what = "holds no sequence's tokens: it was freed while the table still names it (a read after free), or its "
               "first write never landed";
    else if (f.sequence != e.sequence)
        what = fmt::format("holds sequence {}'s tokens: it was given back and handed to another sequence while the "
                           "table still names it (a read after free)",
                           f.sequence);
    else if (f.tokens < e.tokens)
        what = fmt::format("holds {} of its {} tokens: a write that never landed (a lost append)", f.tokens, e.tokens);
    else if (f.tokens > e.tokens)
        what = fmt::format("holds {} tokens, more than the {} its context has there", f.tokens, e.tokens);
    else if (f.version < e.version)
        what = fmt::format("holds its {} tokens at version {}, not the {} its writes made: a later write never landed "
                           "(a lost write)",
                           f.tokens, f.version, e.version);
    else if (f.version > e.version)
        what = fmt::format("holds its {} tokens at version {}, past the {} its writes made: a write its table never "
                           "made landed in it (a stray write)",
                           f.tokens, f.version, e.version);
    else
        what = fmt::format("holds its {} tokens, but their rows no longer add up to the checksum sealed when they were "
                           "written ({:#010x} sealed, {:#010x} held): they changed in memory since (a stray write or a "
                           "flipped bit)",
                           f.tokens, f.checksum, read.heldChecksum);
    return fmt::format("sequence {}'s block {} (pool block {}) {}", read.sequence, read.index, read.block, what);
}

SequenceBlocks::SequenceBlocks(std::uint32_t poolBlocks, std::uint32_t blockTokens, std::uint32_t seed)
    : m_poolBlocks(std::max(1u, poolBlocks))
    , m_blockTokens(std::max(1u, blockTokens))
    , m_free(m_poolBlocks)
    , m_holders(m_poolBlocks)
    , m_lastWrite(m_poolBlocks, kNoWrite)
    , m_versions(m_poolBlocks, 0)
    , m_versionStep(m_poolBlocks, ~std::uint64_t{0}) // no step yet
    , m_seed(seed)
{
    std::iota(m_free.begin(), m_free.end(), 0u);
    std::shuffle(m_free.begin(), m_free.end(), std::mt19937(seed));
}

void SequenceBlocks::beginStep(const std::string& owner, std::span<const std::uint32_t> batch)
{
    m_owner = owner;
    ++m_step;
    m_writes.clear();
    m_firstHeld.reset();
    m_firstAppend.reset();
    m_corrupted.reset();
    for (const std::uint32_t sequence : batch)
        if (const auto it = m_tables.find(sequence); it != m_tables.end())
            it->second.step = m_step;
    for (auto it = m_tables.begin(); it != m_tables.end();) {
        if (it->second.owner != owner || it->second.step == m_step) {
            ++it;
            continue;
        }
        for (const std::uint32_t block : it->second.blocks)
            giveBack(block, it->first);
        it = m_tables.erase(it);
    }
}

std::uint32_t SequenceBlocks::take(std::uint32_t sequence, bool& alone)
{
    std::uint32_t block;
    alone = !m_free.empty();
    if (alone) {
        block = m_free.back();
        m_free.pop_back();
    } else {
        ++m_shared;
        block = m_shareCursor;
        m_shareCursor = (m_shareCursor + 1) % m_poolBlocks;
    }
    m_holders[block].push_back(sequence);
    m_peakHeld = std::max(m_peakHeld, ++m_held);
    return block;
}

void SequenceBlocks::giveBack(std::uint32_t block, std::uint32_t sequence)
{
    auto& holders = m_holders[block];
    holders.erase(std::find(holders.begin(), holders.end(), sequence));
    --m_held;
    if (holders.size() == 1)
        holdAlone(block, holders.front());
    if (!holders.empty())
        return;
    m_free.push_back(block);
    // As an allocator writes its free-list header into a block it gets back: a read through a stale table finds it.
    m_writes.push_back({block, kFreeBlock, 0, 0, 0});
}

std::span<const std::uint32_t> SequenceBlocks::hold(std::uint32_t sequence, std::uint32_t contextTokens)
{
    if (!m_firstHeld)
        m_firstHeld = sequence;
    Table& t = m_tables[sequence];
    t.owner = m_owner;
    t.step = m_step;
    const std::size_t blocks = blocksFor(contextTokens);
    while (t.blocks.size() > blocks) {
        const std::uint32_t block = t.blocks.back();
        t.blocks.pop_back();
        t.alone.pop_back();
        giveBack(block, sequence);
    }
    while (t.blocks.size() < blocks) {
        bool alone = false;
        t.blocks.push_back(take(sequence, alone));
        t.alone.push_back(alone ? 1 : 0);
    }
    queueRows(sequence, t, contextTokens);
    return t.blocks;
}

std::uint32_t SequenceBlocks::shortfall(std::span<const std::uint32_t> batch,
                                        std::span<const std::uint32_t> contexts) const
{
    std::uint64_t needed = 0;
    for (std::size_t i = 0; i < batch.size() && i < contexts.size(); ++i) {
        const auto it = m_tables.find(batch[i]);
        const std::size_t held = it == m_tables.end() ? 0 : it->second.blocks.size();
        needed += std::max(blocksFor(contexts[i]), held) - held;
    }
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(needed > m_free.size() ? needed - m_free.size() : 0, ~std::uint32_t{0}));
}

void SequenceBlocks::grow(std::uint32_t poolBlocks)
{
    if (poolBlocks <= m_poolBlocks)
        return;
    const std::uint32_t from = m_poolBlocks;
    m_poolBlocks = poolBlocks;
    m_holders.resize(poolBlocks);
    m_lastWrite.resize(poolBlocks, kNoWrite);
    m_versions.resize(poolBlocks, 0);
    m_versionStep.resize(poolBlocks, ~std::uint64_t{0});
    // The new blocks go under the free ones, shuffled as the first were: the blocks already free are handed out first.
    std::vector<std::uint32_t> grown(poolBlocks - from);
    std::iota(grown.begin(), grown.end(), from);
    std::shuffle(grown.begin(), grown.end(), std::mt19937(m_seed + from));
    m_free.insert(m_free.begin(), grown.begin(), grown.end());
}

void SequenceBlocks::holdAlone(std::uint32_t block, std::uint32_t sequence)
{
    Table& t = m_tables.at(sequence);
    for (std::uint32_t b = 0; b < t.blocks.size(); ++b) {
        if (t.blocks[b] != block || t.alone[b])
            continue;
        t.alone[b] = 1;
        // Its rows there are still the lender's: the sequence writes its own, as many as it has written.
        const std::uint32_t bt = m_blockTokens;
        const std::uint32_t rows = std::min(bt, t.written > b * bt ? t.written - b * bt : 0u);
        m_writes.push_back({block, sequence, b * bt, 0, rows});
        m_rowsWritten += rows;
    }
}

void SequenceBlocks::queueRows(std::uint32_t sequence, Table& t, std::uint32_t contextTokens)
{
    const std::uint32_t bt = m_blockTokens;
    if (contextTokens < t.written) {
        // Cut back within its last block: the stamp says how many rows are still the sequence's.
        t.written = contextTokens;
        const std::uint32_t last = contextTokens == 0 ? 0 : (contextTokens - 1) / bt;
        if (contextTokens > 0 && t.alone[last]) {
            const std::uint32_t rows = contextTokens - last * bt;
            m_writes.push_back({t.blocks[last], sequence, last * bt, rows, rows});
        }
        return;
    }
    const bool appending = t.written > 0;
    for (std::uint32_t b = t.written / bt; b < t.blocks.size(); ++b) {
        const std::uint32_t from = std::max(t.written, b * bt) - b * bt;
        const std::uint32_t to = std::min(contextTokens, (b + 1) * bt) - b * bt;
        if (from >= to || !t.alone[b])
            continue;
        m_writes.push_back({t.blocks[b], sequence, b * bt, from, to, 0, 0, appending});
        m_rowsWritten += to - from;
        if (appending) {
            m_rowsAppended += to - from;
            if (!m_firstAppend && from > 0)
                m_firstAppend = t.blocks[b];
        }
    }
    t.written = contextTokens;
}

std::span<const KvRowWrite> SequenceBlocks::writes()
{
    // One write per block: a sequence's write that continues or cuts back its earlier one there joins it (a borrowed
    // block it now holds alone, then its append or its cut); any other later write supersedes the earlier (a freed
    // stamp, then the rows of the sequence that took the block).
    m_compact.clear();
    for (const KvRowWrite& w : m_writes) {
        std::uint32_t& at = m_lastWrite[w.block];
        if (at == kNoWrite) {
            at = static_cast<std::uint32_t>(m_compact.size());
            m_compact.push_back(w);
            continue;
        }
        KvRowWrite& earlier = m_compact[at];
        if (w.sequence != kFreeBlock && w.sequence == earlier.sequence && w.fromRow <= earlier.toRow)
            earlier.toRow = w.toRow;
        else
            earlier = w;
    }
    for (const KvRowWrite& w : m_compact) {
        m_lastWrite[w.block] = kNoWrite;
        if (m_versionStep[w.block] != m_step) {
            m_versionStep[w.block] = m_step;
            ++m_versions[w.block];
        }
    }
    m_writes.swap(m_compact);
    return m_writes;
}

bool SequenceBlocks::injectFault(ReadFault fault)
{
    writes();
    std::optional<std::uint32_t> block;
    if (fault == ReadFault::FreedBlock && m_firstHeld) {
        const Table& t = m_tables.at(*m_firstHeld);
        for (std::size_t b = 0; b < t.blocks.size() && !block; ++b)
            if (t.alone[b])
                block = t.blocks[b];
    } else if (fault == ReadFault::LostAppend) {
        block = m_firstAppend;
    } else if (fault == ReadFault::CorruptedRow && m_firstHeld) {
        const Table& t = m_tables.at(*m_firstHeld);
        for (std::uint32_t b = 0; b < t.blocks.size() && b * m_blockTokens < t.written; ++b)
            if (t.alone[b]) {
                m_corrupted = t.blocks[b];
                return true;
            }
        return false;
    }
    if (!block)
        return false;
    // The block's write this step, if any, is the one the fault replaces (a block is written once per step).
    const auto it =
        std::find_if(m_writes.begin(), m_writes.end(), [&](const KvRowWrite& w) { return w.block == *block; });
    if (fault == ReadFault::LostAppend) {
        if (it == m_writes.end())
            return false;
        m_writes.erase(it);
    } else if (it != m_writes.end()) {
        *it = KvRowWrite{*block, kFreeBlock, 0, 0, 0};
    } else {
        m_writes.push_back({*block, kFreeBlock, 0, 0, 0});
    }
    return true;
}

template <class F> void SequenceBlocks::forEachRead(std::span<const std::uint32_t> batch, F&& f) const
{
    for (const std::uint32_t sequence : batch) {
        const auto it = m_tables.find(sequence);
        if (it == m_tables.end())
            continue;
        const Table& t = it->second;
        for (std::uint32_t b = 0; b < t.blocks.size(); ++b)
            f(sequence, b, t.blocks[b], t.alone[b] != 0);
    }
}

std::span<const std::uint32_t> SequenceBlocks::blocksToCheck(std::span<const std::uint32_t> batch)
{
    m_toCheck.clear();
    forEachRead(batch, [&](std::uint32_t, std::uint32_t, std::uint32_t block, bool alone) {
        if (alone)
            m_toCheck.push_back(block);
    });
    return m_toCheck;
}

BlockReadCheck SequenceBlocks::checkReads(std::span<const std::uint32_t> batch, std::span<const BlockStamp> stamps,
                                          std::span<const std::uint32_t> checksums) const
{
    BlockReadCheck check;
    forEachRead(batch, [&](std::uint32_t sequence, std::uint32_t b, std::uint32_t block, bool alone) {
        if (!alone) {
            ++check.borrowed;
            return;
        }
        const std::uint64_t i = check.checked++;
        const Table& t = m_tables.at(sequence);
        const BlockStamp expected{sequence, std::min(m_blockTokens, t.written - b * m_blockTokens), m_versions[block]};
        const BlockStamp found = block < stamps.size() ? stamps[block] : BlockStamp{};
        const std::uint32_t held = i < checksums.size() ? checksums[i] : found.checksum;
        const bool stampMatches =
            found.sequence == expected.sequence && found.tokens == expected.tokens && found.version == expected.version;
        if ((!stampMatches || held != found.checksum) && !check.bad)
            check.bad = BadBlockRead{sequence, b, block, expected, found, held};
    });
    check.summed = checksums.size();
    if (!checksums.empty() && check.checked != checksums.size())
        throw std::invalid_argument(
            fmt::format("block read check: {} checksums for {} blocks checked", checksums.size(), check.checked));
    return check;
}

std::uint32_t SequenceBlocks::unheld(std::size_t i) const
{
    if (i < m_free.size())
        return m_free[m_free.size() - 1 - i];
    return static_cast<std::uint32_t>((m_shareCursor + (i - m_free.size())) % m_poolBlocks);
}

} // namespace coh::core::real
