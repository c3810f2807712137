#include "core/store/backend_json.h"

#include "core/real/calibration.h" // plausibleFit
#include "core/store/summary_json_fields.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace coh::core {

nlohmann::ordered_json toJson(const BackendSummary& s)
{
    auto mapping = nlohmann::ordered_json::array();
    for (const auto& m : s.mapping)
        mapping.push_back({{"node", m.node}, {"resource", m.resource}});
    nlohmann::ordered_json j = {{"name", s.name}, {"mapping", std::move(mapping)}};
    if (!s.scaledDown.empty())
        j["scaled_down"] = s.scaledDown;
    if (!s.faultNotPlayed.empty())
        j["fault_not_played"] = s.faultNotPlayed;
    if (!s.calibratedProfile.empty())
        j["calibrated_profile"] = s.calibratedProfile;
    j["copies"] = s.copies;
    j["descriptors"] = s.descriptors;
    j["bytes_copied"] = s.bytesCopied;
    j["copy_ms"] = s.copyMs;
    j["copies_queued"] = s.copiesQueued;
    j["copy_wait_ms"] = s.copyWaitMs;
    j["largest_copy_gbps"] = s.largestCopyGBps;
    j["verified"] = s.verified;
    j["kv_rows_offered"] = s.kvRowsOffered;
    j["kv_rows_carried"] = s.kvRowsCarried;
    j["kv_transfers_checked"] = s.kvTransfersChecked;
    j["decode_steps"] = s.decodeSteps;
    j["attention_ms"] = s.attentionMs;
    j["attention_bytes"] = s.attentionBytes;
    j["block_reads_checked"] = s.blockReadsChecked;
    j["block_reads_borrowed"] = s.blockReadsBorrowed;
    j["block_seals_summed"] = s.blockSealsSummed;
    j["kv_rows_written"] = s.kvRowsWritten;
    j["kv_rows_appended"] = s.kvRowsAppended;
    j["kv_rows_landed"] = s.kvRowsLanded;
    if (s.kvPools > 0) {
        nlohmann::ordered_json pools = {{"count", s.kvPools},
                                        {"grown", s.kvPoolsGrown},
                                        {"start_bytes", s.kvPoolStartBytes},
                                        {"largest_start_bytes", s.kvPoolLargestStartBytes},
                                        {"largest_bytes", s.kvPoolLargestBytes},
                                        {"limit_bytes", s.kvPoolLimitBytes},
                                        {"needed_bytes", s.kvPoolNeededBytes},
                                        {"blocks_lent", s.kvPoolBlocksLent}};
        if (!s.kvPoolGrowthRefused.empty())
            pools["growth_refused"] = s.kvPoolGrowthRefused;
        j["kv_pools"] = std::move(pools);
    }
    // The run's own costs, where it timed any (CostFit).
    const auto fit = [&j](const char* key, const CostFit& f) {
        if (f.measured())
            j[key] = {{"fixed_ns", f.fixedNs}, {"bytes_per_ns", f.bytesPerNs}, {"points", f.points}};
    };
    fit("copy_fit", s.copyFit);
    fit("host_copy_fit", s.hostCopyFit);
    fit("attention_fit", s.attentionFit);
    fit("attention_warm_fit", s.attentionWarmFit);
    if (s.attentionWarmBytes > 0)
        j["attention_warm_bytes"] = s.attentionWarmBytes;
    if (!s.attentionBySize.empty()) {
        auto buckets = nlohmann::ordered_json::array();
        for (const StepSizeBucket& b : s.attentionBySize)
            buckets.push_back({{"from_bytes", b.fromBytes},
                               {"in_cache", b.inCache},
                               {"steps", b.steps},
                               {"bytes", b.bytes},
                               {"ns", b.ns},
                               {"longest_bytes", b.longestBytes}});
        j["attention_by_size"] = std::move(buckets);
    }
    if (!s.attentionByTraffic.empty()) {
        auto buckets = nlohmann::ordered_json::array();
        for (const TrafficBucket& b : s.attentionByTraffic) {
            buckets.push_back(
                {{"copied_from_bytes", b.fromBytes}, {"steps", b.steps}, {"bytes", b.bytes}, {"ns", b.ns}});
            if (b.sizeFromBytes > 0)
                buckets.back()["size_from_bytes"] = b.sizeFromBytes;
        }
        j["attention_by_traffic"] = std::move(buckets);
    }
    if (!s.staleReads.empty()) {
        auto reads = nlohmann::ordered_json::array();
        for (const auto& r : s.staleReads)
            reads.push_back({{"stale_tokens", r.staleTokens},
                             {"context_tokens", r.contextTokens},
                             {"rel_l2", r.relL2},
                             {"max_abs", r.maxAbs}});
        j["stale_reads"] = std::move(reads);
    }
    return j;
}

namespace {
// A stored bucket's bytes over its time: a measurement only where it is a bandwidth a memory gives (as a profile's).
bool timedAsAMemory(double bytes, double ns)
{
    const double gbps = ns > 0 ? bytes / ns : 0;
    return std::isfinite(bytes) && bytes > 0 && std::isfinite(ns) && ns > 0 && gbps >= real::kMinProfileGBps &&
           gbps <= real::kMaxProfileGBps;
}
} // namespace

BackendSummary backendFromJson(const nlohmann::ordered_json& j)
{
    BackendSummary s;
    s.name = textField(j, "name", "simulated");
    if (const auto it = j.find("mapping"); it != j.end() && it->is_array())
        for (const auto& m : *it)
            if (m.is_object())
                s.mapping.push_back({textField(m, "node", ""), textField(m, "resource", "")});
    s.scaledDown = textField(j, "scaled_down", "");
    s.faultNotPlayed = textField(j, "fault_not_played", "");
    s.calibratedProfile = textField(j, "calibrated_profile", "");
    s.copies = countField(j, "copies");
    s.descriptors = countField(j, "descriptors");
    s.bytesCopied = numberField(j, "bytes_copied");
    s.copyMs = numberField(j, "copy_ms");
    s.copiesQueued = countField(j, "copies_queued"); // older runs queued none: 0
    s.copyWaitMs = numberField(j, "copy_wait_ms");
    s.largestCopyGBps = numberField(j, "largest_copy_gbps");
    s.verified = countField(j, "verified");
    s.kvRowsOffered = countField(j, "kv_rows_offered");
    s.kvRowsCarried = countField(j, "kv_rows_carried");
    s.kvTransfersChecked = countField(j, "kv_transfers_checked");
    s.decodeSteps = countField(j, "decode_steps");
    s.attentionMs = numberField(j, "attention_ms");
    s.attentionBytes = numberField(j, "attention_bytes");
    s.blockReadsChecked = countField(j, "block_reads_checked");
    s.blockReadsBorrowed = countField(j, "block_reads_borrowed");
    // A run stored before the count summed every read it checked.
    s.blockSealsSummed = j.contains("block_seals_summed") ? countField(j, "block_seals_summed") : s.blockReadsChecked;
    s.kvRowsWritten = countField(j, "kv_rows_written");
    s.kvRowsAppended = countField(j, "kv_rows_appended");
    s.kvRowsLanded = countField(j, "kv_rows_landed"); // older runs computed every row: 0
    // A run stored before the pools were counted says their size in scaled_down's text alone.
    if (const auto it = j.find("kv_pools"); it != j.end() && it->is_object()) {
        s.kvPools = countField(*it, "count");
        s.kvPoolsGrown = countField(*it, "grown");
        s.kvPoolStartBytes = countField(*it, "start_bytes");
        s.kvPoolLargestStartBytes = countField(*it, "largest_start_bytes");
        s.kvPoolLargestBytes = countField(*it, "largest_bytes");
        s.kvPoolLimitBytes = countField(*it, "limit_bytes");
        s.kvPoolNeededBytes = countField(*it, "needed_bytes");
        s.kvPoolBlocksLent = countField(*it, "blocks_lent");
        s.kvPoolGrowthRefused = textField(*it, "growth_refused", "");
    }
    // Runs stored before their costs were fitted have none (unmeasured), and so does a fit no machine gives.
    const auto fit = [&j](const char* key) {
        CostFit f;
        if (const auto it = j.find(key); it != j.end() && it->is_object()) {
            f.fixedNs = numberField(*it, "fixed_ns");
            f.bytesPerNs = numberField(*it, "bytes_per_ns");
            f.points = countField(*it, "points");
        }
        return real::plausibleFit(f) ? f : CostFit{};
    };
    s.copyFit = fit("copy_fit");
    s.hostCopyFit = fit("host_copy_fit");
    s.attentionFit = fit("attention_fit");
    // A warm limit no cache has leaves the steps untold apart.
    if (const std::uint64_t warm = countField(j, "attention_warm_bytes"); warm <= real::kMaxWarmBytes)
        s.attentionWarmBytes = warm;
    s.attentionWarmFit = s.attentionWarmBytes > 0 ? fit("attention_warm_fit") : CostFit{};
    // Runs stored before the steps were told by size have none. A bucket no run makes is left out: no steps, or more
    // than the run's decode steps in all; a size that is not a power of two or is past any memory, bytes outside its
    // size, a bandwidth no memory gives; in the cache past the cache the run told its steps apart by (or with none),
    // or an in_cache that is not true or false; a second of one size and side.
    std::uint64_t stepsSoFar = 0;
    if (const auto it = j.find("attention_by_size"); it != j.end() && it->is_array())
        for (const auto& b : *it) {
            if (!b.is_object())
                continue;
            const auto inCache = b.find("in_cache");
            if (inCache != b.end() && !inCache->is_boolean())
                continue;
            StepSizeBucket bucket{countField(b, "from_bytes"), inCache != b.end() && *inCache,
                                  countField(b, "steps"),      numberField(b, "bytes"),
                                  numberField(b, "ns"),        numberField(b, "longest_bytes")};
            const double from = static_cast<double>(bucket.fromBytes);
            const bool sized = bucket.fromBytes > 0 && isBucketBound(bucket.fromBytes) && bucket.bytes > 0 &&
                               bucket.meanBytes() >= (from < 2 ? 0 : from) && bucket.meanBytes() < 2 * from;
            const bool timed = timedAsAMemory(bucket.bytes, bucket.ns);
            const bool side = !bucket.inCache || (s.attentionWarmBytes > 0 && bucket.fromBytes <= s.attentionWarmBytes);
            const bool counted = bucket.steps > 0 && (s.decodeSteps == 0 || bucket.steps <= s.decodeSteps - stepsSoFar);
            const bool again = std::any_of(s.attentionBySize.begin(), s.attentionBySize.end(), [&](const auto& o) {
                return o.fromBytes == bucket.fromBytes && o.inCache == bucket.inCache;
            });
            if (!sized || !timed || !side || !counted || again)
                continue;
            // A run stored before the longest sequence was kept: none known (0), as a CPU's steps need none.
            if (!std::isfinite(bucket.longestBytes) || bucket.longestBytes < 0 || bucket.longestBytes > bucket.bytes)
                bucket.longestBytes = 0;
            stepsSoFar += bucket.steps;
            addSteps(s.attentionBySize, {bucket});
        }
    // Runs stored before their steps were kept by the traffic between them have none. A bucket no run makes is left
    // out as above: no steps, or more than the run's decode steps in all; an amount that is not 0 or a power of two or
    // is past any memory; no bytes or a bandwidth no memory gives; a second of one amount and size; a size not a power
    // of two or whose steps did not read its bytes; an entry without a size among sized ones.
    stepsSoFar = 0;
    if (const auto it = j.find("attention_by_traffic"); it != j.end() && it->is_array()) {
        // A run keeps either every amount's sizes apart or none's: where any entry has a size, one without is left out.
        const bool sized = std::any_of(it->begin(), it->end(), [](const auto& b) {
            return b.is_object() && countField(b, "size_from_bytes") > 0;
        });
        std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
        for (const auto& b : *it) {
            if (!b.is_object())
                continue;
            const TrafficBucket bucket{countField(b, "copied_from_bytes"), countField(b, "steps"),
                                       numberField(b, "bytes"), numberField(b, "ns"), countField(b, "size_from_bytes")};
            const bool amount = isBucketBound(bucket.fromBytes) && isBucketBound(bucket.sizeFromBytes);
            // A size's steps read between its bucket's bytes and twice them.
            const double steps = static_cast<double>(bucket.steps), size = static_cast<double>(bucket.sizeFromBytes);
            const bool ofItsSize = bucket.sizeFromBytes == 0 || (bucket.steps > 0 && bucket.bytes >= size * steps &&
                                                                 bucket.bytes < 2 * size * steps);
            const bool timed = timedAsAMemory(bucket.bytes, bucket.ns);
            const bool counted = bucket.steps > 0 && (s.decodeSteps == 0 || bucket.steps <= s.decodeSteps - stepsSoFar);
            if (!amount || !ofItsSize || (bucket.sizeFromBytes > 0) != sized || !timed || !counted)
                continue;
            // One entry per amount and size: a second is left out.
            if (!seen.insert({bucket.fromBytes, bucket.sizeFromBytes}).second)
                continue;
            stepsSoFar += bucket.steps;
            trafficEntry(s.attentionByTraffic, bucket.fromBytes, bucket.sizeFromBytes) = bucket;
        }
    }
    if (const auto it = j.find("stale_reads"); it != j.end() && it->is_array())
        for (const auto& r : *it)
            if (r.is_object())
                s.staleReads.push_back({static_cast<std::uint32_t>(countField(r, "stale_tokens")),
                                        static_cast<std::uint32_t>(countField(r, "context_tokens")),
                                        numberField(r, "rel_l2"), numberField(r, "max_abs")});
    return s;
}

} // namespace coh::core
