#include "core/real/pair_sharing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::core::real {

void PairSharing::advance(Pair& pair, SimTime now)
{
    if (!pair.copies.empty() && now > pair.at) {
        const double share = static_cast<double>(now - pair.at) / static_cast<double>(pair.copies.size());
        for (Copy& c : pair.copies)
            c.left -= share;
    }
    pair.at = std::max(pair.at, now);
}

PairSharing::Wake PairSharing::nextWake(std::uint32_t index)
{
    Pair& pair = m_pairs[index];
    double least = std::numeric_limits<double>::infinity();
    for (const Copy& c : pair.copies)
        least = std::min(least, c.left);
    // The shortest copy left lands once each of the n has had that much more: rounded up, so it has landed by then.
    const SimTime wait = ceilToSimTime(std::max(0.0, least) * static_cast<double>(pair.copies.size()), "a shared copy");
    return {index, addTime(pair.at, wait, "a shared copy"), ++pair.generation};
}

PairSharing::Wake PairSharing::add(std::uint32_t src, std::uint32_t dst, SimTime now, SimTime took, std::uint32_t token)
{
    const auto [it, added] =
        m_index.try_emplace((std::uint64_t{src} << 32) | dst, static_cast<std::uint32_t>(m_pairs.size()));
    if (added)
        m_pairs.emplace_back();
    Pair& pair = m_pairs[it->second];
    advance(pair, now);
    took = std::max<SimTime>(1, took);
    pair.copies.push_back({token, now, took, static_cast<double>(took)});
    return nextWake(it->second);
}

bool PairSharing::land(const Wake& wake, SimTime now, std::vector<Landed>& landed, Wake& next)
{
    if (wake.pair >= m_pairs.size() || m_pairs[wake.pair].generation != wake.generation)
        return false;
    Pair& pair = m_pairs[wake.pair];
    advance(pair, now);
    // Less than a nanosecond of the pair's time left (the wake was rounded up to whole ones): landed.
    const double done = 1.0 / static_cast<double>(std::max<std::size_t>(1, pair.copies.size()));
    std::erase_if(pair.copies, [&](const Copy& c) {
        if (c.left > done)
            return false;
        const SimTime beyond = std::max<SimTime>(0, now - c.sent - c.took);
        if (beyond > 0) {
            ++m_shared;
            m_beyondOwnNs += static_cast<double>(beyond);
        }
        landed.push_back({c.token, c.sent, beyond});
        return true;
    });
    if (pair.copies.empty())
        return false;
    next = nextWake(wake.pair);
    return true;
}

} // namespace coh::core::real
