#pragma once
// A run the simulator cannot represent: a time past the largest int64 nanosecond (about 292 years). It is refused
// with the limit and the link that caused it, never wrapped around.
#include "core/sim/time.h"

#include <cstdint>
#include <string>

namespace coh::core {

// A TimeOverflow that knows the link at fault, so the engine can name its field.
class SimulationLimitError : public TimeOverflow {
  public:
    // `link` indexes Topology::links; `field` is the link's scenario field at fault ("bandwidth", "latency").
    SimulationLimitError(std::uint32_t link, std::string field, const std::string& message)
        : TimeOverflow(message)
        , m_link(link)
        , m_field(std::move(field))
    {
    }

    std::uint32_t link() const { return m_link; }
    const std::string& field() const { return m_field; }

  private:
    std::uint32_t m_link;
    std::string m_field;
};

} // namespace coh::core
