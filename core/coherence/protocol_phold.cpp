#include "core/coherence/protocol_phold.h"

#include "core/coherence/invariants.h"
#include "core/sim/splitmix64.h"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>
#include <string>

namespace coh::core::coherence {

ProtocolPhold::ProtocolPhold(Simulator& sim, const PholdConfig& config, const Protocol& protocol, int caches,
                             ProtocolExecutor executor, std::size_t automatonStateBudget)
    : m_phold(sim, config)
    , m_blocks(protocol, caches, executor, automatonStateBudget)
    , m_choices(config.lps)
    , m_caches(caches)
{
    m_blocks.add(config.lps);
    for (std::uint32_t i = 0; i < config.lps; ++i)
        m_choices[i] = config.seed ^ (0xA0761D6478BD642Full * (std::uint64_t{i} + 1));
}

ProtocolPholdStats ProtocolPhold::stats() const
{
    ProtocolPholdStats s = m_stats;
    s.automatonStates = m_blocks.automatonStates();
    s.automatonTransitions = m_blocks.automatonTransitions();
    s.automatonAbandoned = m_blocks.automatonAbandoned();
    return s;
}

ProtocolPhold::Op ProtocolPhold::drawOp(std::uint32_t lp)
{
    const std::uint64_t draw = splitmix64(m_choices[lp]);
    const int cache = static_cast<int>((draw >> 32) % static_cast<std::uint64_t>(m_caches));
    const unsigned pick = static_cast<unsigned>(draw & 3);
    return {cache, pick < 2 ? ProcessorOp::Load : pick == 2 ? ProcessorOp::Store : ProcessorOp::Evict};
}

void ProtocolPhold::step(std::uint32_t lp)
{
    CheckedStep s;
    s.result.status = StepStatus::Stalled;
    // The oldest message the block may take now; a message the table stalls waits for a later event.
    for (std::uint64_t ready = m_blocks.deliverable(lp); ready != 0 && s.result.status == StepStatus::Stalled;
         ready &= ready - 1)
        s = m_blocks.deliver(lp, std::countr_zero(ready));
    if (s.result.status != StepStatus::Stalled) {
        ++m_stats.delivered;
    } else {
        const Op op = drawOp(lp);
        s = m_blocks.issue(lp, op.cache, op.op);
        if (s.result.status == StepStatus::Stalled) {
            ++m_stats.stalled;
            return;
        }
        ++m_stats.issued;
    }
    m_stats.sent += s.result.sentCount;
    if (s.violation != Violation::None) [[unlikely]]
        throw std::runtime_error(fmt::format("protocol PHOLD, LP {}: {}", lp, m_blocks.failure()));
}

ProtocolPholdResult runProtocolPhold(const PholdConfig& config, const Protocol& protocol, int caches,
                                     ProtocolExecutor executor, std::size_t automatonStateBudget)
{
    Simulator sim;
    ProtocolPhold model(sim, config, protocol, caches, executor, automatonStateBudget);
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
