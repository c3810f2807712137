#pragma once
// Events sorted by (time, seq) and consumed from the front: the bucket of a ladder queue that is being
// drained. Sorting a small bucket once is cheaper than a heap pop per event, and the inserts a simulator
// makes (at or after everything already there, e.g. zero-delay events) are appends.
#include "core/sim/event.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace coh::core {

class SortedRun {
  public:
    bool empty() const { return m_head == m_events.size(); }
    std::size_t size() const { return m_events.size() - m_head; }
    const Event& front() const { return m_events[m_head]; }
    Event popFront() { return m_events[m_head++]; }

    void clear()
    {
        m_events.clear();
        m_head = 0;
    }

    void insert(const Event& ev)
    {
        if (empty() || !(ev < m_events.back())) {
            // Drop the consumed prefix once it is most of the buffer, so pop-one-append-one runs stay bounded.
            if (m_head >= kCompactAbove && m_head * 2 >= m_events.size()) {
                m_events.erase(m_events.begin(), m_events.begin() + static_cast<std::ptrdiff_t>(m_head));
                m_head = 0;
            }
            m_events.push_back(ev);
            return;
        }
        const auto first = m_events.begin() + static_cast<std::ptrdiff_t>(m_head);
        // A simulator's inserts land near the back (a little before the latest pending event), so look there
        // first; binary search only when the place is further in.
        auto pos = m_events.end() - 1;
        for (int step = 0; step < kScanBack && pos != first && ev < *(pos - 1); ++step)
            --pos;
        if (pos != first && ev < *(pos - 1))
            pos = std::upper_bound(first, pos, ev);
        if (pos == first && m_head > 0) {
            m_events[--m_head] = ev; // before everything: reuse a consumed slot
            return;
        }
        m_events.insert(pos, ev);
    }

    // Takes the events of `events` in any order and sorts them; `events` gets this run's old, emptied buffer.
    void assignFrom(std::vector<Event>& events)
    {
        m_events.clear();
        m_events.swap(events);
        m_head = 0;
        std::sort(m_events.begin(), m_events.end());
    }

    // Hands the unconsumed events, in order, to `out`; this run keeps `out`'s old, emptied buffer.
    void moveTo(std::vector<Event>& out)
    {
        m_events.erase(m_events.begin(), m_events.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_head = 0;
        out.clear();
        out.swap(m_events);
    }

  private:
    static constexpr std::size_t kCompactAbove = 256;
    static constexpr int kScanBack = 8;

    std::vector<Event> m_events;
    std::size_t m_head = 0;
};

} // namespace coh::core
