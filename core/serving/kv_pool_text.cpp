#include "core/serving/kv_pool_text.h"

#include "core/real/node_resources.h" // memorySize

#include <fmt/format.h>

namespace coh::core {

namespace {
// A pool's size as --pool-mib and the mapping say it, a tenth of a MiB closer where it is not whole.
std::string poolSize(std::uint64_t bytes)
{
    constexpr std::uint64_t kMiB = 1u << 20;
    if (bytes < kMiB || bytes % kMiB == 0)
        return real::memorySize(bytes);
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / kMiB);
}
} // namespace

std::string describeKvPools(const BackendSummary& b)
{
    if (b.kvPools == 0)
        return {};
    const bool mayGrow = b.kvPoolLimitBytes > 0;
    const std::string limit = mayGrow ? fmt::format("they could grow to {}", poolSize(b.kvPoolLimitBytes))
                                      : std::string("they could not grow");
    // Pools of other block sizes (another tensor-parallel width, say) start at other sizes.
    const std::string made =
        b.kvPoolLargestStartBytes > b.kvPoolStartBytes
            ? fmt::format("{} to {}", poolSize(b.kvPoolStartBytes), poolSize(b.kvPoolLargestStartBytes))
            : poolSize(b.kvPoolStartBytes);
    std::string text =
        b.kvPoolsGrown > 0
            ? fmt::format(
                  "one per decode node, made at {}; {} of {} grew as their free blocks ran out, to {} at most ({})",
                  made, b.kvPoolsGrown, b.kvPools, poolSize(b.kvPoolLargestBytes), limit)
            : fmt::format("one per decode node, made at {}, none grown ({})", made, limit);
    text += fmt::format("; one pool's sequences held at most {} of blocks at once", poolSize(b.kvPoolNeededBytes));
    if (b.kvPoolBlocksLent > 0) {
        // Whole MiB: what --pool-mib takes.
        const std::uint64_t neededMib = (b.kvPoolNeededBytes + (1u << 20) - 1) >> 20;
        const std::string why = !b.kvPoolGrowthRefused.empty() ? b.kvPoolGrowthRefused
                                : mayGrow ? fmt::format("this run's pools may grow to {}", poolSize(b.kvPoolLimitBytes))
                                          : std::string("this run's pools do not grow");
        text += fmt::format("; a pool ran out of free blocks and handed {} blocks to a sequence while another held "
                            "them, where a pool of {} MiB would have held every sequence's blocks (--pool-mib {}; {})",
                            b.kvPoolBlocksLent, neededMib, neededMib, why);
    }
    return text;
}

} // namespace coh::core
