#include "core/real/half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define COH_HAVE_F16C_PATH 1
#endif

namespace coh::core::real {

namespace {

#ifdef COH_HAVE_F16C_PATH
__attribute__((target("avx,f16c"))) void widenF16c(const Half* src, float* dst, std::size_t n)
{
    static_assert(sizeof(Half) == 2);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < n; ++i)
        dst[i] = toFloat(src[i]);
}

bool cpuHasF16c()
{
    // AVX (with the OS saving its registers) from the compiler's own check; F16C from CPUID leaf 1, ECX bit 29.
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}
#endif

} // namespace

void widen(const Half* src, float* dst, std::size_t n)
{
#ifdef COH_HAVE_F16C_PATH
    static const bool f16c = cpuHasF16c();
    if (f16c) {
        widenF16c(src, dst, n);
        return;
    }
#endif
    for (std::size_t i = 0; i < n; ++i)
        dst[i] = toFloat(src[i]);
}

} // namespace coh::core::real
