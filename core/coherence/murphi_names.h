#pragma once
// Murphi identifiers for a protocol's states, events and message types. Table names such as "IS^D" or
// "Data(ack>0)" are not identifiers, so each gets a prefixed, sanitised, unique one ("C_IS_D", "CE_Data_ack_gt_0").
// Enum constants share one Murphi namespace, so the prefixes keep the five kinds apart.
#include "core/coherence/protocol_table.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core::coherence {

class MurphiNames {
  public:
    explicit MurphiNames(const Protocol& protocol);

    const std::string& state(bool directory, int s) const { return (directory ? m_dirStates : m_cacheStates)[s]; }
    const std::string& event(bool directory, int e) const { return (directory ? m_dirEvents : m_cacheEvents)[e]; }
    const std::string& message(int type) const { return m_messages[type]; }
    // The classification result when no event's guards hold (a protocol error, as in the interpreter).
    const std::string& unclassified(bool directory) const { return directory ? m_dirNone : m_cacheNone; }

    // "Data(ack>0)" -> "Data_ack_gt_0": letters and digits kept, operators spelled out, the rest '_'.
    static std::string sanitise(std::string_view name);

  private:
    std::string unique(const std::string& prefix, std::string_view name);

    std::set<std::string> m_used; // lower-cased, in case a Murphi tool folds case
    std::vector<std::string> m_cacheStates;
    std::vector<std::string> m_dirStates;
    std::vector<std::string> m_cacheEvents;
    std::vector<std::string> m_dirEvents;
    std::vector<std::string> m_messages;
    std::string m_cacheNone;
    std::string m_dirNone;
};

} // namespace coh::core::coherence
