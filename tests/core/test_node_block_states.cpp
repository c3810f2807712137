// Blocks held per node and protocol state: counted only in states that hold data, time-averaged per bucket.
#include "core/coherence/protocol_registry.h"
#include "core/engine/node_block_states.h"

#include <gtest/gtest.h>

namespace coh::core {
namespace {

TEST(NodeBlockStates, AveragesTheBlocksHeldOverEachBucket)
{
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto state = [&](const char* name) { return static_cast<std::uint8_t>(msi.cache.findState(name)); };
    NodeBlockStates blocks(msi, 2, kMillisecond);
    // Node 1: 4 blocks written (I -> M) at 0, shared (M -> S) at 1.5 ms, dropped (S -> I) at 2.5 ms.
    blocks.change(0, 1, state("I"), state("M"), 4);
    blocks.change(1'500'000, 1, state("M"), state("S"), 4);
    blocks.change(2'500'000, 1, state("S"), state("I"), 4);
    const auto series = blocks.series(3 * kMillisecond);
    ASSERT_EQ(series.size(), 2u); // M and S at node 1; I is never counted, node 0 held nothing
    for (const auto& s : series) {
        EXPECT_EQ(s.node, 1u);
        EXPECT_EQ(s.peakBlocks, 4.0);
        if (s.state == "M")
            EXPECT_EQ(s.blocksPerBucket, (std::vector<double>{4.0, 2.0}));
        else
            EXPECT_EQ(s.blocksPerBucket, (std::vector<double>{0.0, 2.0, 2.0}));
    }
}

} // namespace
} // namespace coh::core
