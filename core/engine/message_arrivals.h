#pragma once
// The network side of a BlockSystem: which of its in-flight messages have arrived, by the tag each one's flow
// carries (kept parallel to the system's message array). ProtocolDriver keeps one per driven block.
#include "core/coherence/block_set.h"
#include "core/coherence/block_system.h"
#include "core/engine/run_result.h"

#include <array>
#include <cstdint>
#include <string>

namespace coh::core {

// The transition that sent a message and the kind it was counted under, kept beside it until its record is
// written (6 bytes: the kind fills what would be padding).
struct MessageOrigin {
    MessageSender sender = MessageSender::None;
    std::uint8_t from = 0, to = 0;
    std::uint8_t kind = 0; // MessageRecord::kind
    std::uint16_t transition = 0;

    static MessageOrigin of(const coherence::StepResult& step, std::uint8_t kind)
    {
        return {step.atDirectory ? MessageSender::Home : MessageSender::Cache, step.from, step.to, kind,
                step.transition};
    }
    void stamp(MessageRecord& record) const
    {
        record.kind = kind;
        record.sender = sender;
        record.fromState = from;
        record.toState = to;
        record.transition = transition;
    }
};

class MessageArrivals {
  public:
    // Message `index` was just sent by `origin`: returns the tag its flow carries.
    std::uint16_t sent(int index, MessageOrigin origin)
    {
        m_tags[index] = m_nextTag++;
        m_arrived[index] = false;
        m_origins[index] = origin;
        return m_tags[index];
    }
    // What sent in-flight message `index`.
    const MessageOrigin& origin(int index) const { return m_origins[index]; }

    // The in-flight message whose flow is tagged `tag`, or -1 when none is.
    int inFlight(const coherence::BlockSystem& system, std::uint16_t tag) const;
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
    std::array<MessageOrigin, coherence::kMaxMessages> m_origins{};
};

// "P0=S P1=I Dir=S": every controller's state, for the message of a failed run.
std::string describeStates(const coherence::BlockSystem& system);

} // namespace coh::core
