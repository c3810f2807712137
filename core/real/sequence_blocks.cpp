#include "core/real/sequence_blocks.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace coh::core::real {

SequenceBlocks::SequenceBlocks(std::uint32_t poolBlocks, std::uint32_t seed)
    : m_poolBlocks(std::max(1u, poolBlocks))
    , m_free(m_poolBlocks)
    , m_holders(m_poolBlocks, 0)
{
    std::iota(m_free.begin(), m_free.end(), 0u);
    std::shuffle(m_free.begin(), m_free.end(), std::mt19937(seed));
}

void SequenceBlocks::beginStep(const std::string& owner, std::span<const std::uint32_t> batch)
{
    m_owner = owner;
    ++m_step;
    for (const std::uint32_t sequence : batch)
        if (const auto it = m_tables.find(sequence); it != m_tables.end())
            it->second.step = m_step;
    for (auto it = m_tables.begin(); it != m_tables.end();) {
        if (it->second.owner != owner || it->second.step == m_step) {
            ++it;
            continue;
        }
        for (const std::uint32_t block : it->second.blocks)
            giveBack(block);
        it = m_tables.erase(it);
    }
}

std::uint32_t SequenceBlocks::take()
{
    std::uint32_t block;
    if (!m_free.empty()) {
        block = m_free.back();
        m_free.pop_back();
    } else {
        ++m_shared;
        block = m_shareCursor;
        m_shareCursor = (m_shareCursor + 1) % m_poolBlocks;
    }
    ++m_holders[block];
    return block;
}

void SequenceBlocks::giveBack(std::uint32_t block)
{
    if (--m_holders[block] == 0)
        m_free.push_back(block);
}

std::span<const std::uint32_t> SequenceBlocks::hold(std::uint32_t sequence, std::uint32_t blocks)
{
    Table& t = m_tables[sequence];
    t.owner = m_owner;
    t.step = m_step;
    while (t.blocks.size() > blocks) {
        giveBack(t.blocks.back());
        t.blocks.pop_back();
    }
    while (t.blocks.size() < blocks)
        t.blocks.push_back(take());
    return t.blocks;
}

std::uint32_t SequenceBlocks::unheld(std::size_t i) const
{
    if (i < m_free.size())
        return m_free[m_free.size() - 1 - i];
    return static_cast<std::uint32_t>((m_shareCursor + (i - m_free.size())) % m_poolBlocks);
}

} // namespace coh::core::real
