#pragma once
// Stabbing queries over half-open time intervals [start, end): "which messages are in flight at t" in
// O(log n + k). A centred interval tree in flat arrays, built once per run, read-only afterwards.
#include <cstdint>
#include <vector>

namespace coh::ui {

class IntervalIndex {
  public:
    struct Interval {
        std::int64_t start = 0, end = 0;
    };

    IntervalIndex() = default;
    // Empty intervals (end <= start) are never in flight and are left out.
    explicit IntervalIndex(const std::vector<Interval>& intervals);

    // Appends the indices (into the constructor's vector) of intervals with start <= t < end, in no order.
    void stab(std::int64_t t, std::vector<std::uint32_t>& out) const;
    std::size_t count(std::int64_t t) const;
    std::size_t size() const { return m_size; }

  private:
    struct Node {
        std::int64_t center = 0;
        std::uint32_t begin = 0, end = 0; // range in m_byStart / m_byEnd
        std::int32_t left = -1, right = -1;
    };
    struct Entry {
        std::int64_t key; // start in m_byStart, end in m_byEnd
        std::uint32_t id;
    };

    std::int32_t build(std::vector<std::uint32_t>& ids, const std::vector<Interval>& intervals);
    template <typename Visit> void walk(std::int64_t t, Visit&& visit) const;

    std::vector<Node> m_nodes;
    std::vector<Entry> m_byStart; // per node: ascending start
    std::vector<Entry> m_byEnd;   // per node: descending end
    std::int32_t m_root = -1;
    std::size_t m_size = 0;
};

} // namespace coh::ui
