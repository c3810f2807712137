#pragma once
// Round axis ticks: 0/2/4/6/8/10, 0/2.5/5/7.5/10, never 3.13/6.25/9.38; and the unit that keeps tick labels
// short (40 s rather than 40000 ms, 20 thousand rather than 20000). Pure arithmetic, unit-tested.
#include <QString>

namespace coh::ui {

struct NiceTicks {
    double min = 0, max = 1, step = 0.2;
    int count = 6;    // ticks from min to max inclusive
    int decimals = 1; // enough to tell the ticks apart, no more
};

// Ticks covering [lo, hi] at a step of 1, 2, 2.5 or 5 times a power of ten, at most `maxTicks` of them.
// An empty or inverted range becomes [0, 1].
NiceTicks niceTicks(double lo, double hi, int maxTicks = 6);

// A unit for values whose largest is `largest`: what to divide by and what the unit is called.
struct ScaledUnit {
    double divisor = 1;
    QString unit;
};
// Milliseconds: s from 10,000 ms up, µs below 1 ms, else ms.
ScaledUnit timeUnitForMilliseconds(double largest);
// Plain counts: "thousand" from 10,000 up, "million" from 10,000,000 up, else no unit.
ScaledUnit countUnit(double largest);

} // namespace coh::ui
