#pragma once
// Picks the prefill instance for an arriving request and the decode instance for a prefilled one.
#include "core/scenario/scenario.h"
#include "core/serving/instance_state.h"

#include <cstdint>
#include <vector>

namespace coh::core {

class Router {
  public:
    Router(RouterPolicy policy, std::vector<std::uint32_t> prefill, std::vector<std::uint32_t> decode);

    std::uint32_t pickPrefill(const std::vector<InstanceState>& instances);
    std::uint32_t pickDecode(const std::vector<InstanceState>& instances);

  private:
    std::uint32_t pick(const std::vector<std::uint32_t>& pool, std::size_t& cursor,
                       const std::vector<InstanceState>& instances, bool prefill) const;

    RouterPolicy m_policy;
    std::vector<std::uint32_t> m_prefill, m_decode;
    std::size_t m_prefillCursor = 0, m_decodeCursor = 0;
};

} // namespace coh::core
