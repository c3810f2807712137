#pragma once
// Where a KV block's directory and memory live (coherence.home): at the node that allocated it, hashed over the
// instances' nodes, or at one named node. The KV path names its blocks by sequence, shared prefix blocks by hash id.
#include "core/scenario/scenario.h"

#include <cstdint>
#include <vector>

namespace coh::core {

class KvHomes {
  public:
    // Throws InputError when coherence.home names a node the topology lacks.
    KvHomes(const Scenario& scenario, const std::vector<std::vector<std::uint32_t>>& instanceNodes);

    // The home of the block (or sequence) named `key`, first allocated at `allocatingNode`.
    std::uint32_t homeFor(std::uint64_t key, std::uint32_t allocatingNode) const;

  private:
    HomePolicy m_policy;
    std::uint32_t m_homeNode = 0;
    std::vector<std::uint32_t> m_hashHomes; // candidate homes for HomePolicy::Hashed
};

} // namespace coh::core
