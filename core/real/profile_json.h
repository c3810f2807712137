#pragma once
// A hardware profile as the JSON file `cohsim calibrate -o` writes, and read back from one: every figure checked
// against what a machine measures, every measured row too, each problem named by its field.
#include "core/real/hardware_profile.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace coh::core::real {

// What a profile's figures may be: a time (a copy's fixed cost, a descriptor's, an attention step's) under a second,
// a bandwidth from a megabyte to a hundred terabytes a second (a CPU's memcpy is tens of GB/s, an H200's HBM about
// 4,800), a descriptor of up to a gibibyte.
inline constexpr double kMaxProfileNs = 1e9;
inline constexpr double kMinProfileGBps = 1e-3;
inline constexpr double kMaxProfileGBps = 1e5;
inline constexpr std::uint64_t kMaxDescriptorBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxWarmBytes = std::uint64_t{1} << 30; // a cache of up to a gibibyte
// What a profile's informative fields may be: the machine's names, its cores, and the rows each fit was made from
// (sizes, contexts and counts up to a tebibyte; times up to an hour: a row is one measurement, not a figure the
// simulator runs on, so a slow one of a path too slow to profile is still a row).
inline constexpr std::size_t kMaxProfileNameBytes = 4096;
inline constexpr std::uint64_t kMaxProfileCores = 1u << 20;
inline constexpr std::size_t kMaxProfileRows = 4096;
inline constexpr std::uint64_t kMaxRowCount = std::uint64_t{1} << 40;
inline constexpr double kMaxRowNs = 3.6e12;
nlohmann::ordered_json toJson(const HardwareProfile& profile);
// Throws InputError naming `file` and the field when a figure is missing or outside those ranges.
HardwareProfile profileFromJson(const nlohmann::json& j, const std::string& file);
// The profile in the file at `path`: read as any JSON input is (readJsonFile), a problem of the file as a whole (empty,
// too large, not JSON) then told with a profile's fix rather than a scenario's.
HardwareProfile readProfile(const std::string& path);

} // namespace coh::core::real
