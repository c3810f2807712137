#include "core/workload/workload_builder.h"

#include "core/base/input_error.h"
#include "core/workload/azure_trace.h"
#include "core/workload/mooncake_trace.h"
#include "core/workload/synthetic_generator.h"

#include <algorithm>

namespace coh::core {

Workload buildWorkload(const WorkloadSpec& spec, std::uint64_t seed, const std::string& scenarioFile)
{
    switch (spec.kind) {
    case WorkloadKind::Synthetic:
        try {
            return generateSyntheticWorkload(spec.synthetic, seed);
        } catch (const InputError& e) {
            // The generator knows fields, not files: its problems are the scenario file's.
            std::vector<InputProblem> problems = e.problems();
            for (InputProblem& p : problems)
                if (p.file.empty())
                    p.file = scenarioFile;
            throw InputError(std::move(problems));
        }
    case WorkloadKind::Trace: {
        const TraceWorkload& trace = spec.trace;
        const std::string& path = trace.resolvedPath.empty() ? trace.path : trace.resolvedPath;
        switch (trace.format) {
        case TraceFormat::Azure:
            return readAzureTrace(path, trace.timeScale, trace.maxRequests);
        case TraceFormat::Mooncake:
            return readMooncakeTrace(path, trace.timeScale, trace.maxRequests);
        }
        break;
    }
    }
    return {};
}

void limitRequests(WorkloadSpec& spec, std::uint32_t maxRequests)
{
    if (maxRequests > 0)
        spec.synthetic.requests = std::min(spec.synthetic.requests, maxRequests);
    spec.trace.maxRequests = maxRequests;
}

} // namespace coh::core
