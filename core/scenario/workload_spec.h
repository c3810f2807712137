#pragma once
// How requests arrive: a synthetic process or a replayed public trace.
#include <cstdint>
#include <string>

namespace coh::core {

enum class ArrivalProcess { Poisson, Gamma, Constant };
enum class LengthKind { Fixed, Uniform, Lognormal, Zipf };
enum class TraceFormat { Azure, Mooncake };
enum class WorkloadKind { Synthetic, Trace };

struct LengthDistribution {
    LengthKind kind = LengthKind::Fixed;
    double value = 0;               // fixed
    double median = 0, sigma = 0;   // lognormal: median and sigma of ln(length)
    double exponent = 1.0;          // zipf: P(k) ~ 1/k^exponent over k = min..max
    std::uint32_t min = 1, max = 1; // uniform bounds; clamp for lognormal; support for zipf
};

struct SyntheticWorkload {
    ArrivalProcess arrival = ArrivalProcess::Poisson;
    double ratePerSec = 1.0;
    double cv = 1.0; // gamma: coefficient of variation of inter-arrival times (burstiness)
    std::uint32_t requests = 100;
    LengthDistribution prompt;
    LengthDistribution output;
};

struct TraceWorkload {
    TraceFormat format = TraceFormat::Azure;
    std::string path;              // as written in the scenario
    std::string resolvedPath;      // absolute, after resolution against the scenario folder / datasets root
    double timeScale = 1.0;        // inter-arrival times are multiplied by this (0.5 = twice the rate)
    std::uint32_t maxRequests = 0; // 0 = all
};

struct WorkloadSpec {
    WorkloadKind kind = WorkloadKind::Synthetic;
    SyntheticWorkload synthetic;
    TraceWorkload trace;
};

const char* toString(ArrivalProcess);
const char* toString(LengthKind);
const char* toString(TraceFormat);

} // namespace coh::core
