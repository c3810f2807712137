#pragma once
// The event record for replay: every network message, or a uniform sample (reservoir) once the scenario's
// limit is reached, so long runs keep a bounded, unbiased record.
#include "core/engine/reservoir.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"

#include <cstdint>
#include <vector>

namespace coh::core {

// A delivered flow as a record: times, endpoints, route and bytes; the sender fills in kind, request, blocks.
MessageRecord recordOf(const FlowInfo& flow, const Routing& routing);

class EventRecorder {
  public:
    EventRecorder(std::uint32_t limit, std::uint64_t seed);

    void add(const MessageRecord& message) { m_sample.add(message); }

    std::uint64_t total() const { return m_sample.total(); }
    // The kept messages, ordered by start time (the sample is gathered out of order).
    std::vector<MessageRecord> takeSorted();

  private:
    Reservoir<MessageRecord> m_sample;
};

} // namespace coh::core
