#pragma once
// Runs a whole study: opens (or resumes) its row in the run store, evaluates the strategy's points, with
// successive halving when the study asks for it, ends the row and analyses what came back.
#include "core/store/run_store.h"
#include "core/tune/point_evaluator.h"
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

namespace coh::core {

// `store` may be null: nothing is stored and nothing is resumed. On a cancel the study is ended Cancelled and
// RunCancelled propagates; on another error it is ended Failed and the error propagates. Running the same study
// (same file, same scenario) again resumes it: finished points are read back, never run again.
StudyResult runStudy(const StudySpec& study, RunStore* store, const EvaluatorOptions& options);

// The request limits of successive halving's rungs, shortest first; the last is 0 (the full workload). `full`:
// the scenario's request count.
std::vector<std::uint32_t> halvingRungs(const HalvingSpec& halving, std::uint32_t full);

} // namespace coh::core
