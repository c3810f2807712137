#include "core/engine/run_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coh::core {

Distribution distributionOf(std::vector<double> values)
{
    Distribution d;
    d.count = values.size();
    if (values.empty())
        return d;
    std::sort(values.begin(), values.end());
    auto at = [&](double q) {
        const double pos = q * static_cast<double>(values.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(pos));
        const std::size_t hi = std::min(lo + 1, values.size() - 1);
        return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
    };
    d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    d.p50 = at(0.50);
    d.p90 = at(0.90);
    d.p99 = at(0.99);
    d.max = values.back();
    return d;
}

bool meetsSlo(const RequestMetrics& r, const SloSpec& slo)
{
    const SimTime tpot = r.tpot();
    return r.ttft() <= slo.ttft && (tpot < 0 || tpot <= slo.tpot);
}

void summarizeRequests(const std::vector<RequestMetrics>& requests, const SloSpec& slo,
                       const LatencyHistogram& interTokenGaps, RunSummary& summary)
{
    std::vector<double> ttft, tpot, tpotCompute, tpotTransfer, tpotStall, e2e, queue, prefill, admission, transfer,
        load, firstDecode;
    for (auto* v : {&ttft, &e2e, &queue, &prefill, &admission, &transfer, &load, &firstDecode})
        v->reserve(requests.size());
    SimTime first = requests.empty() ? 0 : requests.front().arrival, last = first;
    std::uint64_t good = 0;
    for (const auto& r : requests) {
        first = std::min(first, r.arrival);
        last = std::max(last, r.finish);
        summary.outputTokens += r.outputTokens;
        ttft.push_back(toMilliseconds(r.ttft()));
        e2e.push_back(toMilliseconds(r.e2e()));
        queue.push_back(toMilliseconds(r.queueing()));
        prefill.push_back(toMilliseconds(r.prefill()));
        admission.push_back(toMilliseconds(r.admission()));
        transfer.push_back(toMilliseconds(r.transfer()));
        load.push_back(toMilliseconds(r.load()));
        firstDecode.push_back(toMilliseconds(r.firstDecode()));
        if (r.tpot() >= 0) {
            const double gaps = static_cast<double>(r.outputTokens - 1);
            tpot.push_back(toMilliseconds(r.tpot()));
            tpotCompute.push_back(toMilliseconds(r.decodeCompute) / gaps);
            tpotTransfer.push_back(toMilliseconds(r.decodeTransfer) / gaps);
            tpotStall.push_back(toMilliseconds(r.decodeStall) / gaps);
        }
        good += meetsSlo(r, slo) ? 1 : 0;
    }
    summary.completed = requests.size();
    summary.ttftMs = distributionOf(std::move(ttft));
    summary.tpotMs = distributionOf(std::move(tpot));
    summary.tpotComputeMs = distributionOf(std::move(tpotCompute));
    summary.tpotTransferMs = distributionOf(std::move(tpotTransfer));
    summary.tpotStallMs = distributionOf(std::move(tpotStall));
    summary.e2eMs = distributionOf(std::move(e2e));
    summary.queueMs = distributionOf(std::move(queue));
    summary.prefillMs = distributionOf(std::move(prefill));
    summary.admissionMs = distributionOf(std::move(admission));
    summary.transferMs = distributionOf(std::move(transfer));
    summary.loadMs = distributionOf(std::move(load));
    summary.firstDecodeMs = distributionOf(std::move(firstDecode));
    summary.itlMs = interTokenGaps.toDistributionMs();
    summary.makespan = last - first;
    const double seconds = toSeconds(summary.makespan);
    if (seconds > 0) {
        summary.throughputTokensPerSec = static_cast<double>(summary.outputTokens) / seconds;
        summary.throughputRequestsPerSec = static_cast<double>(requests.size()) / seconds;
        summary.goodputRequestsPerSec = static_cast<double>(good) / seconds;
    }
    summary.sloAttainment = requests.empty() ? 0 : static_cast<double>(good) / static_cast<double>(requests.size());
}

} // namespace coh::core
