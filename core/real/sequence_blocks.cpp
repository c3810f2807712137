#include "core/real/sequence_blocks.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace coh::core::real {

SequenceBlocks::SequenceBlocks(std::uint32_t poolBlocks, std::uint32_t seed)
    : m_poolBlocks(std::max(1u, poolBlocks))
    , m_free(m_poolBlocks)
{
    std::iota(m_free.begin(), m_free.end(), 0u);
    std::shuffle(m_free.begin(), m_free.end(), std::mt19937(seed));
}

void SequenceBlocks::beginStep(const std::string& owner)
{
    m_owner = owner;
    ++m_step;
}

std::uint32_t SequenceBlocks::take()
{
    if (!m_free.empty()) {
        const std::uint32_t block = m_free.back();
        m_free.pop_back();
        return block;
    }
    ++m_shared;
    const std::uint32_t block = m_shareCursor;
    m_shareCursor = (m_shareCursor + 1) % m_poolBlocks;
    return block;
}

std::span<const std::uint32_t> SequenceBlocks::hold(std::uint32_t sequence, std::uint32_t blocks)
{
    Table& t = m_tables[sequence];
    t.owner = m_owner;
    t.step = m_step;
    while (t.blocks.size() > blocks) {
        if (t.owned.back())
            m_free.push_back(t.blocks.back());
        t.blocks.pop_back();
        t.owned.pop_back();
    }
    while (t.blocks.size() < blocks) {
        const bool owned = !m_free.empty();
        t.blocks.push_back(take());
        t.owned.push_back(owned);
    }
    return t.blocks;
}

void SequenceBlocks::endStep()
{
    for (auto it = m_tables.begin(); it != m_tables.end();) {
        const Table& t = it->second;
        if (t.owner != m_owner || t.step == m_step) {
            ++it;
            continue;
        }
        for (std::size_t b = 0; b < t.blocks.size(); ++b)
            if (t.owned[b])
                m_free.push_back(t.blocks[b]);
        it = m_tables.erase(it);
    }
}

std::uint32_t SequenceBlocks::unheld(std::size_t i) const
{
    if (i < m_free.size())
        return m_free[m_free.size() - 1 - i];
    return static_cast<std::uint32_t>((m_shareCursor + (i - m_free.size())) % m_poolBlocks);
}

} // namespace coh::core::real
