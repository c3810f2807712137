#include "core/store/pool_protocol.h"

#include "core/scenario/scenario_loader.h"
#include "core/serving/prefix_cache.h"

#include <nlohmann/json.hpp>

#include <exception>

namespace coh::core {

void completePoolProtocol(PrefixPoolSummary& pool, const std::string& scenarioJson)
{
    if (!pool.protocol.empty())
        return;
    if (!pool.enabled) {
        pool.protocol = "direct";
        return;
    }
    try {
        pool.protocol = prefixPoolProtocol(parseScenario(nlohmann::json::parse(scenarioJson), "stored scenario"));
    } catch (const std::exception&) {
        // An old scenario this build refuses, or damaged JSON: the protocol stays unknown, not guessed.
    }
}

} // namespace coh::core
