#pragma once
// The discrete-event kernel. Handlers are template parameters, so the hot loop is a direct call and a
// switch on the event kind: no virtual dispatch, no allocation per event.
#include "core/sim/event_queue.h"

#include <atomic>
#include <cassert>
#include <cstdint>
#include <stdexcept>

namespace coh::core {

class Simulator {
  public:
    SimTime now() const { return m_now; }
    std::uint64_t eventsExecuted() const { return m_executed; }
    std::size_t pending() const { return m_queue.size(); }
    void reserve(std::size_t n) { m_queue.reserve(n); }

    void scheduleAt(SimTime time, std::uint32_t kind, std::uint32_t target = 0, std::uint64_t payload = 0)
    {
        assert(time >= m_now && "events may not be scheduled in the past");
        assert(m_nextSeq < (std::uint64_t{1} << kEventOrderBits) && "insertion count ran into the class bits");
        m_queue.push(Event{time, eventSequence(kind, m_nextSeq++), kind, target, payload});
    }
    void scheduleIn(SimTime delay, std::uint32_t kind, std::uint32_t target = 0, std::uint64_t payload = 0)
    {
        scheduleAt(addTime(m_now, delay, "a scheduled event"), kind, target, payload);
    }

    // Runs events strictly before `end` (events at or past it stay pending). `handler(const Event&)` is
    // called for each. `cancel` is polled once per event; a relaxed load is a plain read on x86.
    // Returns false when cancelled.
    template <class Handler>
    bool run(Handler& handler, SimTime end = kTimeInfinity, const std::atomic<bool>* cancel = nullptr)
    {
        while (!m_queue.empty()) {
            if (m_queue.top().time >= end)
                break;
            if (cancel && cancel->load(std::memory_order_relaxed))
                return false;
            Event ev = m_queue.pop();
            // Time never goes backwards: the invariant every result rests on.
            if (ev.time < m_now) [[unlikely]]
                throw std::logic_error("simulator: event time went backwards");
            m_now = ev.time;
            ++m_executed;
            handler(ev);
        }
        return true;
    }

  private:
    EventQueue m_queue;
    SimTime m_now = 0;
    std::uint64_t m_nextSeq = 0;
    std::uint64_t m_executed = 0;
};

} // namespace coh::core
