#pragma once
// A finished run for the run store's tests: two requests and `messages` event records, so a few dozen such runs
// fill hundreds of pages (and a page of them can be damaged on purpose, db_damage.h).
#include "core/engine/run_result.h"

#include <cstdint>

namespace coh::test {

inline core::RunResult resultWithMessages(std::uint32_t messages)
{
    core::RunResult r;
    r.scenarioName = "trust";
    r.seed = 7;
    r.nodeIds = {"gpu0", "gpu1"};
    r.summary.requests = 2;
    r.summary.ttftMs = {2, 1.5, 1.25, 2.0, 3.5, 4.0};
    r.requests.resize(2);
    r.requests[1].id = 1;
    r.requests[1].finish = 123'456'789;
    for (std::uint32_t i = 0; i < messages; ++i)
        r.messages.push_back({10 * i, 10 * i + 7, i % 2, 1 - i % 2, 0, i % 2, i, 3, 1024.5 * i});
    r.summary.flows = messages;
    return r;
}

} // namespace coh::test
