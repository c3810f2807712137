#include "ui/nice_ticks.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace {

// The smallest of 1, 2, 2.5, 5, 10 times a power of ten that is >= x.
double niceStep(double x)
{
    const double power = std::pow(10.0, std::floor(std::log10(x)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * power >= x * (1 - 1e-9))
            return m * power;
    return 10 * power;
}

} // namespace

NiceTicks niceTicks(double lo, double hi, int maxTicks)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    maxTicks = std::max(2, maxTicks);
    NiceTicks t;
    t.step = niceStep((hi - lo) / (maxTicks - 1));
    // Widen the step until the rounded-out range fits in maxTicks.
    for (;;) {
        t.min = std::floor(lo / t.step + 1e-9) * t.step;
        t.max = std::ceil(hi / t.step - 1e-9) * t.step;
        t.count = static_cast<int>(std::lround((t.max - t.min) / t.step)) + 1;
        if (t.count <= maxTicks)
            break;
        t.step = niceStep(t.step * 1.01);
    }
    // 2.5 needs one decimal more than its power of ten.
    const double scaled = t.step / std::pow(10.0, std::floor(std::log10(t.step)));
    const int extra = std::fabs(scaled - 2.5) < 1e-9 ? 1 : 0;
    t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(t.step) + 1e-9)) + extra);
    return t;
}

ScaledUnit timeUnitForMilliseconds(double largest)
{
    if (largest >= 10'000)
        return {1000, QCoreApplication::translate("coh::ui::Units", "s")};
    if (largest > 0 && largest < 1)
        return {1e-3, QCoreApplication::translate("coh::ui::Units", "µs")};
    return {1, QCoreApplication::translate("coh::ui::Units", "ms")};
}

ScaledUnit countUnit(double largest)
{
    if (largest >= 10'000'000)
        return {1e6, QCoreApplication::translate("coh::ui::Units", "million")};
    if (largest >= 10'000)
        return {1e3, QCoreApplication::translate("coh::ui::Units", "thousand")};
    return {1, QString()};
}

} // namespace coh::ui
