#pragma once
// A profile measured here in a second or so: small copies and a small attention shape, for the tests that need a
// real profile to read, refuse or run the simulator on.
#include "core/real/calibration.h"

namespace coh::test {

// The least a calibration measures: two copy sizes and two contexts of a small head, one round each, in a 1 MiB arena.
inline core::real::CalibrationOptions tinyCalibration()
{
    core::real::CalibrationOptions options;
    options.copy.sizes = {64, 1 << 16};
    options.copy.rounds = 1;
    options.copy.arenaBytes = 1 << 20;
    options.attention.contexts = {64, 512};
    options.attention.rounds = 1;
    options.attention.shape = {.queryHeads = 4, .kvHeads = 2, .headDim = 32, .blockTokens = 16};
    return options;
}

inline core::real::HardwareProfile smallCalibration()
{
    core::real::CalibrationOptions options;
    options.copy.sizes = {64, 1 << 16, 1 << 20};
    options.copy.rounds = 3;
    options.copy.arenaBytes = 4 << 20;
    options.attention.contexts = {64, 512};
    options.attention.rounds = 3;
    options.attention.shape.queryHeads = 4;
    options.attention.shape.kvHeads = 2;
    options.attention.shape.headDim = 32;
    options.warmBytes = 256 << 10; // whatever this machine's cache
    return core::real::calibrate(options);
}

} // namespace coh::test
