#pragma once
// Pending-event set, popped in strict (time, seq) order. A ladder queue (Tang, Goh & Thng, 2005): far events
// wait unsorted in `top`; when needed they are spread over a rung of time buckets, a crowded bucket is split
// into a finer rung, and only the bucket being consumed is sorted (`bottom`). Push and pop are O(1) amortised
// where a heap pays O(log n) cache misses: PHOLD runs 2x (1k LPs) to 3x (64k LPs) faster than on a 4-ary heap.
// Events at one time cannot be told apart by buckets; they stay in `bottom`, ordered by seq.
#include "core/sim/sorted_run.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace coh::core {

class EventQueue {
  public:
    void reserve(std::size_t n) { m_top.reserve(n); }
    bool empty() const { return m_size == 0; }
    std::size_t size() const { return m_size; }
    // The minimum always sits in `bottom`: refill() keeps it non-empty whenever the queue is not.
    const Event& top() const { return m_bottom.front(); }

    void clear()
    {
        m_bottom.clear();
        for (std::size_t r = 0; r < m_rungs; ++r)
            for (std::vector<Event>& bucket : m_ladder[r].buckets)
                bucket.clear();
        m_rungs = 0;
        m_top.clear();
        m_topStart = kWideMin;
        m_size = 0;
    }

    void push(const Event& ev)
    {
        ++m_size;
        const Wide t = ev.time;
        if (t >= m_topStart) {
            m_top.push_back(ev);
        } else {
            // Coarse rungs first: an event belongs to the first rung whose unconsumed range holds it.
            std::size_t r = 0;
            for (; r < m_rungs; ++r) {
                Rung& rung = m_ladder[r];
                if (t >= rung.curStart) {
                    addToBucket(rung, ev);
                    break;
                }
            }
            if (r == m_rungs) {
                m_bottom.insert(ev);
                if (m_bottom.size() > m_bottomLimit) [[unlikely]]
                    spillBottom();
            }
        }
        if (m_bottom.empty()) [[unlikely]]
            refill();
    }

    Event pop()
    {
        Event ev = m_bottom.popFront();
        --m_size;
        if (m_bottom.empty() && m_size != 0)
            refill();
        return ev;
    }

  private:
    // Range arithmetic in 128 bits so no SimTime (kTimeInfinity included) can overflow a bucket bound.
    // kEventsPerBucket and kSplitAbove were tuned on bench_phold; 4..64 and 128..1024 are all within 10%.
    __extension__ using Wide = __int128;
    static constexpr Wide kWideMin = -(static_cast<Wide>(1) << 100);
    static constexpr Wide kWideMax = static_cast<Wide>(1) << 100;
    static constexpr std::size_t kMaxRungs = 8;
    static constexpr std::size_t kEventsPerBucket = 16; // at build time; buckets fill further before use
    static constexpr std::size_t kSplitAbove = 512;     // a bucket or bottom this full becomes a finer rung
    static constexpr std::size_t kMaxBuckets = std::size_t{1} << 20;

    // Buckets of width 2^shift from `start`; those before `cur` are consumed and `curStart` is where the
    // unconsumed range begins (kWideMax once all are). The last bucket also takes everything above it that
    // the rung above or `top` does not, so a rung can be sized to its events, not to its parent's bucket.
    struct Rung {
        Wide start = 0;
        Wide curStart = 0;
        unsigned shift = 0;
        std::size_t count = 0;
        std::size_t cur = 0;
        std::vector<std::vector<Event>> buckets;
    };

    void addToBucket(Rung& rung, const Event& ev)
    {
        std::size_t i = static_cast<std::size_t>(static_cast<std::uint64_t>(ev.time - rung.start) >> rung.shift);
        i = i < rung.count ? i : rung.count - 1;
        rung.buckets[i].push_back(ev);
    }

    // Makes `bottom` non-empty again; called only when it is empty and the queue is not. Kept out of line so
    // push() and pop() stay small enough to inline into the event loop.
    [[gnu::noinline]] void refill()
    {
        for (;;) {
            if (m_rungs == 0) {
                buildRung(m_top);
                m_top.clear();
                const Rung& rung = m_ladder[0];
                m_topStart = rung.start + (static_cast<Wide>(rung.count) << rung.shift);
            }
            Rung& rung = m_ladder[m_rungs - 1];
            while (rung.cur < rung.count && rung.buckets[rung.cur].empty())
                advance(rung);
            if (rung.cur == rung.count) {
                --m_rungs;
                continue;
            }
            std::vector<Event>& bucket = rung.buckets[rung.cur];
            advance(rung);
            if (bucket.size() > kSplitAbove && m_rungs < kMaxRungs && spansTime(bucket)) {
                buildRung(bucket);
                release(bucket);
                continue;
            }
            m_bottom.assignFrom(bucket); // bucket now holds bottom's old, empty buffer
            release(bucket);
            m_bottomLimit = m_bottom.size() * 2 > kSplitAbove ? m_bottom.size() * 2 : kSplitAbove;
            return;
        }
    }

    // Too many events landed in `bottom` (its range was set when it held few): give them a rung of their own.
    [[gnu::noinline]] void spillBottom()
    {
        while (m_rungs > 0 && m_ladder[m_rungs - 1].cur == m_ladder[m_rungs - 1].count)
            --m_rungs;
        m_bottom.moveTo(m_scratch);
        if (m_rungs < kMaxRungs && spansTime(m_scratch)) {
            buildRung(m_scratch);
            m_scratch.clear();
            return; // push() sees the empty bottom and refills it from the new rung's first bucket
        }
        m_bottom.assignFrom(m_scratch);
        m_bottomLimit *= 2; // they share one time: do not rescan them on every push
    }

    void advance(Rung& rung)
    {
        ++rung.cur;
        rung.curStart = rung.cur == rung.count ? kWideMax : rung.curStart + (static_cast<Wide>(1) << rung.shift);
    }

    static bool spansTime(const std::vector<Event>& events)
    {
        for (const Event& ev : events)
            if (ev.time != events.front().time)
                return true;
        return false;
    }

    // Spreads `events` over a new rung below the current ones, sized to their own time range.
    void buildRung(const std::vector<Event>& events)
    {
        SimTime lo = events.front().time;
        SimTime hi = lo;
        for (const Event& ev : events) {
            lo = ev.time < lo ? ev.time : lo;
            hi = ev.time > hi ? ev.time : hi;
        }
        std::size_t want = events.size() / kEventsPerBucket;
        want = want < 1 ? 1 : (want > kMaxBuckets ? kMaxBuckets : want);
        const Wide range = static_cast<Wide>(hi) - lo + 1;
        const Wide per = (range + static_cast<Wide>(want) - 1) / static_cast<Wide>(want);
        // Power-of-two widths make the bucket index a shift; 63 keeps the shift defined on 64-bit offsets.
        unsigned shift = 0;
        while (shift < 63 && (static_cast<Wide>(1) << shift) < per)
            ++shift;

        Rung& rung = m_ladder[m_rungs++];
        rung.start = lo;
        rung.curStart = lo;
        rung.shift = shift;
        rung.count = static_cast<std::size_t>(((range - 1) >> shift) + 1);
        rung.cur = 0;
        if (rung.buckets.size() < rung.count)
            rung.buckets.resize(rung.count);
        for (const Event& ev : events)
            addToBucket(rung, ev);
    }

    // A consumed bucket's buffer is freed rather than pooled: a pooled buffer sized for a busy bucket would
    // sit in every far, sparse bucket, and memory would grow with the buckets instead of the events.
    static void release(std::vector<Event>& bucket) { std::vector<Event>().swap(bucket); }

    SortedRun m_bottom;
    std::size_t m_bottomLimit = kSplitAbove;
    Rung m_ladder[kMaxRungs];
    std::size_t m_rungs = 0;
    std::vector<Event> m_top;
    Wide m_topStart = kWideMin;
    std::vector<Event> m_scratch;
    std::size_t m_size = 0;
};

} // namespace coh::core
