#pragma once
// The fuzz targets: one input in, and it either is accepted or refused with an InputError. Anything else (a
// crash, a sanitizer report, another exception, a hang, memory past the fuzzer's limit) is a finding. Shared
// by the libFuzzer binaries (fuzz_main.cpp, built by scripts/fuzz with clang) and the regression test that
// replays every kept input in tests/data/fuzz/<target>/ in the ordinary build.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace coh::fuzz {

enum class Target { Scenario, AzureTrace, MooncakeTrace, RunStore, Profile };

// "scenario", "azure-trace", "mooncake-trace", "run-store", "profile"
std::string_view targetName(Target target);
std::optional<Target> targetFromName(std::string_view name);

// Runs one input through the target's reader and, for an accepted scenario or hardware profile, a short simulation
// (a profile's: the default scenario simulated on it, as `cohsim compare-real --profile` runs it).
void runInput(Target target, const std::uint8_t* data, std::size_t size);

} // namespace coh::fuzz
