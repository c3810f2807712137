#include "core/coherence/murphi_names.h"

#include <cctype>

namespace coh::core::coherence {

namespace {

std::string lower(std::string s)
{
    for (char& ch : s)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

} // namespace

MurphiNames::MurphiNames(const Protocol& protocol)
{
    // The sentinels first, so no table name can take them.
    m_cacheNone = unique("CE_", "unclassified");
    m_dirNone = unique("DE_", "unclassified");
    for (const StateInfo& s : protocol.cache.states)
        m_cacheStates.push_back(unique("C_", s.name));
    for (const StateInfo& s : protocol.directory.states)
        m_dirStates.push_back(unique("D_", s.name));
    for (const EventInfo& e : protocol.cache.events)
        m_cacheEvents.push_back(unique("CE_", e.name));
    for (const EventInfo& e : protocol.directory.events)
        m_dirEvents.push_back(unique("DE_", e.name));
    for (const MessageType& m : protocol.messages)
        m_messages.push_back(unique("M_", m.name));
}

std::string MurphiNames::sanitise(std::string_view name)
{
    std::string raw;
    for (const char ch : name) {
        if (std::isalnum(static_cast<unsigned char>(ch)))
            raw += ch;
        else if (ch == '=')
            raw += "_eq_";
        else if (ch == '>')
            raw += "_gt_";
        else if (ch == '<')
            raw += "_lt_";
        else if (ch == '+')
            raw += "_plus_";
        else
            raw += '_';
    }
    // One '_' between words, none at either end.
    std::string out;
    for (const char ch : raw) {
        if (ch == '_' && (out.empty() || out.back() == '_'))
            continue;
        out += ch;
    }
    while (!out.empty() && out.back() == '_')
        out.pop_back();
    return out.empty() ? "x" : out;
}

std::string MurphiNames::unique(const std::string& prefix, std::string_view name)
{
    const std::string base = prefix + sanitise(name);
    std::string candidate = base;
    for (int n = 2; m_used.count(lower(candidate)) > 0; ++n)
        candidate = base + "_" + std::to_string(n);
    m_used.insert(lower(candidate));
    return candidate;
}

} // namespace coh::core::coherence
