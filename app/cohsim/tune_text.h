#pragma once
// What `cohsim tune` (and cohsim-tune-mpi) print of a study's result on stdout.
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

namespace coh::cli {

void printStudyResult(const core::StudySpec& study, const core::StudyResult& result, unsigned threads);

} // namespace coh::cli
