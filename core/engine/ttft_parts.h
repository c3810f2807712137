#pragma once
// TTFT's six consecutive parts (docs/engine.md#request-life-and-ttft), in order. Each request's parts add up to its
// TTFT exactly, so their means add up to TTFT's mean: a difference in TTFT's mean between two runs is the sum of the
// parts' differences, which says where it came from (compare-real and Compare name the parts that carry it).
#include "core/engine/run_result.h"

namespace coh::core {

struct TtftPart {
    const char* label; // as views write it: "load"
    const char* key;   // as JSON names it: "load"
    Distribution RunSummary::*ms;
};

inline constexpr TtftPart kTtftParts[] = {
    {"queue", "queue", &RunSummary::queueMs},
    {"prefill", "prefill", &RunSummary::prefillMs},
    {"admission", "admission", &RunSummary::admissionMs},
    {"KV transfer", "transfer", &RunSummary::transferMs},
    {"load", "load", &RunSummary::loadMs},
    {"first decode step", "first_decode", &RunSummary::firstDecodeMs},
};

} // namespace coh::core
