// Text and JSON reports of an exploration (declared in explorer.h).
#include "core/coherence/explorer.h"
#include "core/coherence/protocol_registry.h"
#include "core/coherence/step_render.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

namespace coh::core::coherence {

namespace {

const char* outcome(const ExplorerResult& r)
{
    if (r.violation != Violation::None)
        return "violation";
    return r.complete ? "ok" : "incomplete";
}

} // namespace

nlohmann::ordered_json explorerToJson(const ExplorerResult& r)
{
    nlohmann::ordered_json j;
    j["protocol"] = r.protocol;
    j["caches"] = r.caches;
    j["blocks"] = r.blocks;
    j["mode"] = r.product || r.blocks == 1 ? "product" : "per-block";
    j["states"] = r.states;
    j["transitions"] = r.transitions;
    j["max_in_flight"] = r.maxInFlight;
    j["seconds"] = r.seconds;
    j["complete"] = r.complete;
    j["implied_product_states"] =
        r.impliedProductStates > 0 ? nlohmann::ordered_json(r.impliedProductStates) : nlohmann::ordered_json();
    j["result"] = outcome(r);
    if (r.violation == Violation::None) {
        j["violation"] = nullptr;
    } else {
        nlohmann::ordered_json trace = nlohmann::ordered_json::array();
        for (const StepRecord& s : r.trace)
            trace.push_back(stepToJson(s));
        j["violation"] = {{"kind", violationName(r.violation)}, {"description", r.description}, {"trace", trace}};
    }
    j["coverage"] = {{"cache", {{"fired", r.cacheFired}, {"defined", r.cacheDefined}}},
                     {"directory", {{"fired", r.directoryFired}, {"defined", r.directoryDefined}}},
                     {"unexercised", r.unexercised}};
    return j;
}

std::string explorerToText(const ExplorerResult& r)
{
    std::string out = fmt::format("verify {}: {} cache(s), {} block(s){}\n", r.protocol, r.caches, r.blocks,
                                  r.blocks > 1 ? (r.product ? " explored as a product" : ", checked per block") : "");
    out += fmt::format("  explored {} states, {} transitions, at most {} message(s) in flight, {:.3f} s\n", r.states,
                       r.transitions, r.maxInFlight, r.seconds);
    if (r.impliedProductStates > 0)
        out += fmt::format("  blocks are independent: {} states of one block stand for {:.4g} states of {} blocks\n",
                           r.states, r.impliedProductStates, r.blocks);
    out += fmt::format("  coverage: cache {}/{} transitions, directory {}/{} transitions\n", r.cacheFired,
                       r.cacheDefined, r.directoryFired, r.directoryDefined);
    if (r.complete && !r.unexercised.empty()) {
        std::string list;
        for (const std::string& u : r.unexercised)
            appendItem(list, u);
        out += "  never taken: " + list + "\n";
    }
    if (r.violation != Violation::None) {
        out += fmt::format("  result: VIOLATION ({}): {}\n", violationName(r.violation), r.description);
        out += fmt::format("\nshortest trace ({} steps):\n", r.trace.size());
        for (const StepRecord& s : r.trace)
            out += stepToText(s);
    } else if (r.complete) {
        // Bounded staleness checks a single writer and loads within the bound instead of SWMR and the latest value.
        std::string checks = "SWMR, data-value";
        for (const Protocol& p : allProtocols())
            if (p.name == r.protocol && p.consistency == Consistency::BoundedStaleness)
                checks = fmt::format("single writer, data-value (at most {} version(s) stale)", p.stalenessBound);
        out += fmt::format("  result: OK: {}, no-lost-write and ack counters hold in every reachable state; no "
                           "protocol error, no deadlock\n",
                           checks);
    } else {
        out += "  result: INCOMPLETE: the state limit (--max-states) was reached before the whole space was "
               "explored; no violation so far\n";
    }
    return out;
}

} // namespace coh::core::coherence
