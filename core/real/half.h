#pragma once
// IEEE binary16, the element a model's fp16 K/V cache holds (and a bf16 one's here: the same size), as bits. The
// compilers this builds with do not all have a half type (_Float16 is missing on x86 before clang 15), so K and V are
// kept as bits and converted here: one at a time in portable code, in bulk with F16C where the CPU has it.
#include <bit>
#include <cstddef>
#include <cstdint>

namespace coh::core::real {

struct Half {
    std::uint16_t bits = 0;
};

// Rounded to the nearest half, ties to even; past 65504 it is infinity, NaN stays NaN.
inline Half toHalf(float f)
{
    std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    std::uint32_t h = 0;
    if (x >= 0x47800000u) { // 65536 or more, infinity or NaN
        h = x > 0x7f800000u ? 0x7e00u : 0x7c00u;
    } else if (x < 0x38800000u) { // below the smallest normal half (2^-14): adding 0.5 lets the FPU round the subnormal
        const float magic = 0.5f;
        h = std::bit_cast<std::uint32_t>(std::bit_cast<float>(x) + magic) - std::bit_cast<std::uint32_t>(magic);
    } else { // rebias the exponent, round the 13 bits dropped to nearest even (a carry may reach infinity)
        const std::uint32_t odd = (x >> 13) & 1u;
        x += 0xc8000fffu + odd; // (15 - 127) << 23, wrapped, plus the rounding bias
        h = x >> 13;
    }
    return Half{static_cast<std::uint16_t>(h | sign)};
}

inline float toFloat(Half h)
{
    const std::uint32_t sign = std::uint32_t{h.bits & 0x8000u} << 16;
    const std::uint32_t exponent = (h.bits >> 10) & 0x1fu, mantissa = h.bits & 0x3ffu;
    if (exponent == 0) { // zero or subnormal: mantissa x 2^-24, exact in a float
        const float v = static_cast<float>(mantissa) * 0x1p-24f;
        return sign ? -v : v;
    }
    const std::uint32_t bits =
        exponent == 0x1f ? 0x7f800000u | (mantissa << 13) : ((exponent + 112) << 23) | (mantissa << 13);
    return std::bit_cast<float>(bits | sign);
}

// A value as a pool of element T (float or Half) holds it.
template <class T> T fromFloat(float f)
{
    if constexpr (sizeof(T) == sizeof(Half))
        return toHalf(f);
    else
        return f;
}

// dst[i] = toFloat(src[i]) for n elements: eight at a time with F16C where the CPU has it (an attention step widens
// every K and V row it reads, and one at a time that made fp16 four times slower than fp32).
void widen(const Half* src, float* dst, std::size_t n);

} // namespace coh::core::real
