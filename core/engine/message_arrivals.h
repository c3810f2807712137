#pragma once
// The network side of a BlockSystem: which of its in-flight messages have arrived, by a tag carried in the
// flow's cookie (kept parallel to the system's message array). CoherentKv and PoolCoherence both drive their
// block systems over the network with it.
#include "core/coherence/block_set.h"
#include "core/coherence/block_system.h"

#include <array>
#include <cstdint>
#include <string>

namespace coh::core {

class MessageArrivals {
  public:
    // Message `index` was just sent: returns the tag its flow carries.
    std::uint16_t sent(int index)
    {
        m_tags[index] = m_nextTag++;
        m_arrived[index] = false;
        return m_tags[index];
    }

    // The flow tagged `tag` arrived; returns the message's index, or -1 when none waits for it.
    int arrive(const coherence::BlockSystem& system, std::uint16_t tag);

    // Delivers the first arrived message the system may take now (not stalled) and returns its step; a Stalled
    // step when there is none.
    coherence::StepResult deliverOne(coherence::BlockSystem& system);
    // The same for block `block` of a set, with the invariant verdict after the step.
    coherence::CheckedStep deliverOne(coherence::BlockSet& set, std::uint32_t block);

  private:
    // `deliver(i)` delivers message i of `shape`, which must not be read again once a step went through.
    template <class Deliver> coherence::CheckedStep deliverFirst(const coherence::BlockSystem& shape, Deliver deliver);

    std::uint16_t m_nextTag = 0;
    std::array<std::uint16_t, coherence::kMaxMessages> m_tags{};
    std::array<bool, coherence::kMaxMessages> m_arrived{};
};

// "P0=S P1=I Dir=S": every controller's state, for the message of a failed run.
std::string describeStates(const coherence::BlockSystem& system);

} // namespace coh::core
