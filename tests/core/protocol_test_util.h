#pragma once
// Helpers for the coherence protocol tests: run lab ops and read back what each op sent and left behind.
#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_registry.h"
#include "core/coherence/step_render.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coh::test {

namespace co = core::coherence;

inline co::LabRun runOps(const std::string& protocol, int caches, const std::string& ops)
{
    const co::Protocol& p = co::findProtocol(protocol);
    co::LabRun run = co::runLab(p, caches, co::parseLabOps(ops, caches), ops);
    EXPECT_EQ(run.error, "") << co::labToText(run);
    return run;
}

// The steps of the k-th op (0-based): its issue and every delivery until the next op.
inline std::vector<co::StepRecord> opSteps(const co::LabRun& run, int k)
{
    std::vector<co::StepRecord> steps;
    int op = -1;
    for (const co::StepRecord& s : run.steps) {
        if (!s.message)
            ++op;
        if (op == k)
            steps.push_back(s);
    }
    return steps;
}

// Every message the steps sent, in order, as "Kind From->To" (with " acks=N" when an ack count is carried).
inline std::vector<std::string> sentBy(const std::vector<co::StepRecord>& steps)
{
    std::vector<std::string> sent;
    for (const co::StepRecord& s : steps)
        for (const co::MessageView& m : s.sent) {
            std::string text = m.kind;
            text.append(" ").append(m.from).append("->").append(m.to);
            if (m.ackCount != 0)
                text.append(" acks=").append(std::to_string(m.ackCount));
            sent.push_back(text);
        }
    return sent;
}

inline std::string cacheState(const co::StepRecord& step, int cache)
{
    return step.caches.at(cache).state;
}

// The directory states the steps went through, in order, without repeats.
inline std::vector<std::string> directoryStates(const std::vector<co::StepRecord>& steps)
{
    std::vector<std::string> states;
    for (const co::StepRecord& s : steps)
        if (states.empty() || states.back() != s.directory.state)
            states.push_back(s.directory.state);
    return states;
}

} // namespace coh::test
