#include "core/coherence/protocol_registry.h"
#include "core/coherence/text_list.h"

#include "core/base/input_error.h"
#include "core/coherence/protocol_builders.h"

#include <fmt/format.h>

namespace coh::core::coherence {

const std::vector<Protocol>& allProtocols()
{
    static const std::vector<Protocol> protocols = [] {
        std::vector<Protocol> list;
        list.push_back(buildMsiDirectory());
        list.push_back(buildMesiDirectory());
        list.push_back(buildMoesiDirectory());
        list.push_back(buildMigratory());
        list.push_back(buildUnifiedMemory());
        list.push_back(buildMesiSnooping());
        list.push_back(buildCxlAsymmetric());
        list.push_back(buildSealedLease());
        list.push_back(buildLazyCausal());
        list.push_back(buildMsiDirectoryBrokenNoInv());
        list.push_back(buildMsiDirectoryBrokenLostAck());
        for (auto& p : list)
            assignMessageRoles(p);
        return list;
    }();
    return protocols;
}

const Protocol& findProtocol(const std::string& name, const std::string& field)
{
    std::string names;
    for (const Protocol& p : allProtocols()) {
        if (p.name == name)
            return p;
        appendItem(names, p.name);
    }
    throw InputError("", field, name.empty() ? "no protocol given" : "unknown protocol '" + name + "'",
                     "use one of: " + names);
}

std::string protocolListText()
{
    std::size_t width = 0;
    for (const Protocol& p : allProtocols())
        width = std::max(width, p.name.size());
    std::string text;
    for (const Protocol& p : allProtocols())
        text += fmt::format("{:<{}}  {}{}\n", p.name, width, p.title, p.bugHunt ? "  [bug hunt]" : "");
    return text;
}

} // namespace coh::core::coherence
