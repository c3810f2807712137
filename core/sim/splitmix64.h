#pragma once
// splitmix64 (Steele, Lea & Flood; Vigna's constants): one step of a tiny, fast generator, and the mixer
// xoshiro's authors advise for seeding. Used to seed PHOLD's streams, draw the protocol PHOLD's choices and
// pick reservoir slots in the event record.
#include <cstdint>

namespace coh::core {

inline std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace coh::core
