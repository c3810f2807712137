#pragma once
// One pending event: a plain 32-byte value so the queue never allocates per event.
#include "core/sim/time.h"

#include <cstdint>

namespace coh::core {

// An event kind carries its same-instant priority class in its top 8 bits (SST's (time, priority, insertion)
// order): at one time, a lower class runs first, and within a class events run in the order they were
// scheduled. Which kinds sit in which class is the model's to say (the serving engine's: serving_events.h).
inline constexpr unsigned kEventClassShift = 24;
constexpr std::uint32_t eventKind(std::uint8_t priorityClass, std::uint32_t id)
{
    return (std::uint32_t{priorityClass} << kEventClassShift) | id;
}
constexpr std::uint32_t eventKindId(std::uint32_t kind)
{
    return kind & ((1u << kEventClassShift) - 1);
}

// The class goes to the top 8 bits of the sequence number, the insertion count to the 56 below (7 * 10^16
// events: centuries at today's rates), so one integer compare orders (class, insertion).
inline constexpr unsigned kEventOrderBits = 56;
constexpr std::uint64_t eventSequence(std::uint32_t kind, std::uint64_t insertion)
{
    return (std::uint64_t{kind >> kEventClassShift} << kEventOrderBits) | insertion;
}

struct Event {
    SimTime time = 0;
    std::uint64_t seq = 0;  // eventSequence(): breaks time ties by class, then insertion, so runs are deterministic
    std::uint32_t kind = 0; // eventKind(): the class, and an id whose meaning belongs to the handler
    std::uint32_t target = 0;
    std::uint64_t payload = 0;

    // Strict (time, seq) order; seq is unique, so two events never compare equal.
    friend bool operator<(const Event& a, const Event& b)
    {
        return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }
};

static_assert(sizeof(Event) == 32, "the queue's buckets and the sorted run are sized for 32-byte events");

} // namespace coh::core
