#pragma once
// The fixed designs a study can evaluate: the full grid, or a sample of the space at random, by Latin hypercube
// or along a Sobol sequence. Each returns distinct points, in a deterministic order for a given seed.
#include "core/tune/study_point.h"
#include "core/tune/study_spec.h"

#include <cstdint>
#include <vector>

namespace coh::core {

// Every combination of the parameters' grid values (the last parameter varies fastest).
std::vector<Point> gridPoints(const StudySpec& study);

// `count` unit-cube samples (one coordinate per parameter) mapped through Parameter::valueAt; points that map to
// the same values are kept once.
std::vector<Point> randomPoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed);
std::vector<Point> latinHypercubePoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed);
// Sobol's low-discrepancy sequence (Boost.Random) under a random digital shift drawn from `seed`, so different
// seeds give different, equally even designs.
std::vector<Point> sobolPoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed);

// The design the study's strategy names (grid, random, lhs or sobol).
std::vector<Point> designPoints(const StudySpec& study);

// The point a unit-cube coordinate vector stands for.
Point pointAt(const StudySpec& study, const std::vector<double>& unit);

} // namespace coh::core
