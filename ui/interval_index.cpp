#include "ui/interval_index.h"

#include <algorithm>

namespace coh::ui {

IntervalIndex::IntervalIndex(const std::vector<Interval>& intervals)
{
    std::vector<std::uint32_t> ids;
    ids.reserve(intervals.size());
    for (std::uint32_t i = 0; i < intervals.size(); ++i)
        if (intervals[i].end > intervals[i].start)
            ids.push_back(i);
    m_size = ids.size();
    m_byStart.reserve(ids.size());
    m_byEnd.reserve(ids.size());
    m_root = build(ids, intervals);
}

std::int32_t IntervalIndex::build(std::vector<std::uint32_t>& ids, const std::vector<Interval>& intervals)
{
    if (ids.empty())
        return -1;
    // The median start is a centre that every subtree shrinks around, so depth stays O(log n).
    std::vector<std::int64_t> starts;
    starts.reserve(ids.size());
    for (auto id : ids)
        starts.push_back(intervals[id].start);
    auto mid = starts.begin() + static_cast<std::ptrdiff_t>(starts.size() / 2);
    std::nth_element(starts.begin(), mid, starts.end());
    const std::int64_t center = *mid;

    std::vector<std::uint32_t> left, right, here;
    for (auto id : ids) {
        const auto& iv = intervals[id];
        if (iv.end <= center)
            left.push_back(id);
        else if (iv.start > center)
            right.push_back(id);
        else
            here.push_back(id); // start <= center < end
    }
    ids.clear();
    ids.shrink_to_fit();

    Node node;
    node.center = center;
    node.begin = static_cast<std::uint32_t>(m_byStart.size());
    for (auto id : here) {
        m_byStart.push_back({intervals[id].start, id});
        m_byEnd.push_back({intervals[id].end, id});
    }
    node.end = static_cast<std::uint32_t>(m_byStart.size());
    auto b = static_cast<std::ptrdiff_t>(node.begin);
    std::sort(m_byStart.begin() + b, m_byStart.end(), [](const Entry& x, const Entry& y) { return x.key < y.key; });
    std::sort(m_byEnd.begin() + b, m_byEnd.end(), [](const Entry& x, const Entry& y) { return x.key > y.key; });

    const auto index = static_cast<std::int32_t>(m_nodes.size());
    m_nodes.push_back(node);
    const std::int32_t l = build(left, intervals);
    const std::int32_t r = build(right, intervals);
    m_nodes[static_cast<std::size_t>(index)].left = l;
    m_nodes[static_cast<std::size_t>(index)].right = r;
    return index;
}

template <typename Visit> void IntervalIndex::walk(std::int64_t t, Visit&& visit) const
{
    std::int32_t current = m_root;
    while (current >= 0) {
        const Node& node = m_nodes[static_cast<std::size_t>(current)];
        if (t < node.center) {
            // Every interval here ends after the centre, hence after t: those that started are in flight.
            for (auto i = node.begin; i < node.end && m_byStart[i].key <= t; ++i)
                visit(m_byStart[i].id);
            current = node.left;
        } else {
            // Every interval here started by the centre, hence by t: those that have not ended are in flight.
            for (auto i = node.begin; i < node.end && m_byEnd[i].key > t; ++i)
                visit(m_byEnd[i].id);
            current = node.right;
        }
    }
}

void IntervalIndex::stab(std::int64_t t, std::vector<std::uint32_t>& out) const
{
    walk(t, [&out](std::uint32_t id) { out.push_back(id); });
}

std::size_t IntervalIndex::count(std::int64_t t) const
{
    std::size_t n = 0;
    walk(t, [&n](std::uint32_t) { ++n; });
    return n;
}

} // namespace coh::ui
