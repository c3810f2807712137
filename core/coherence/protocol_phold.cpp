#include "core/coherence/protocol_phold.h"

#include "core/coherence/invariants.h"
#include "core/sim/splitmix64.h"

#include <stdexcept>
#include <string>

namespace coh::core::coherence {

ProtocolPhold::ProtocolPhold(Simulator& sim, const PholdConfig& config, const Protocol& protocol, int caches)
    : m_phold(sim, config)
    , m_blocks(config.lps, BlockSystem(protocol, caches))
    , m_choices(config.lps)
    , m_caches(caches)
{
    for (std::uint32_t i = 0; i < config.lps; ++i)
        m_choices[i] = config.seed ^ (0xA0761D6478BD642Full * (std::uint64_t{i} + 1));
}

void ProtocolPhold::step(std::uint32_t lp)
{
    BlockSystem& block = m_blocks[lp];
    const auto value = static_cast<Value>(block.latest() + 1);
    StepResult result;
    result.status = StepStatus::Stalled;
    // The oldest message the block may take now; a message the table stalls waits for a later event.
    for (int i = 0; i < block.messageCount() && result.status == StepStatus::Stalled; ++i)
        if (block.deliverable(i))
            result = block.deliver(i, value);
    if (result.status != StepStatus::Stalled) {
        ++m_stats.delivered;
    } else {
        // Nothing to deliver: a processor op at a drawn cache, loads twice as often as stores and evictions.
        const std::uint64_t draw = splitmix64(m_choices[lp]);
        const int cache = static_cast<int>((draw >> 32) % static_cast<std::uint64_t>(m_caches));
        const unsigned pick = static_cast<unsigned>(draw & 3);
        const ProcessorOp op = pick < 2 ? ProcessorOp::Load : pick == 2 ? ProcessorOp::Store : ProcessorOp::Evict;
        result = block.issue(cache, op, value);
        if (result.status == StepStatus::Stalled) {
            ++m_stats.stalled;
            return;
        }
        ++m_stats.issued;
    }
    m_stats.sent += result.sentCount;
    const Violation v = checkAfterStep(block, result);
    if (v != Violation::None) [[unlikely]]
        throw std::runtime_error("protocol PHOLD, LP " + std::to_string(lp) + ": " +
                                 describeViolation(v, block, &result));
}

ProtocolPholdResult runProtocolPhold(const PholdConfig& config, const Protocol& protocol, int caches)
{
    Simulator sim;
    ProtocolPhold model(sim, config, protocol, caches);
    sim.reserve(static_cast<std::size_t>(config.lps) * config.eventsPerLp);
    model.start();

    ProtocolPholdResult result;
    result.loop = timePholdLoop(sim, model, model.phold());
    result.stats = model.stats();
    for (std::uint32_t lp = 0; lp < config.lps; ++lp)
        result.stats.deadlocked += isDeadlocked(model.block(lp)) ? 1 : 0;
    return result;
}

} // namespace coh::core::coherence
