#pragma once
// A study's points as parallel coordinates (ParallelCoordinatesView): an axis per varied field (a categorical one
// lists its values) and per objective (the better end on top), a line per point of the full workload, as the
// Tuner's table lists them.
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"
#include "ui/parallel_coordinates.h"

#include <vector>

namespace coh::ui {

struct StudyParallelData {
    std::vector<ParallelAxis> axes;
    std::vector<ParallelLine> lines;
};

StudyParallelData studyParallelData(const core::StudySpec& study, const core::StudyResult& result);

} // namespace coh::ui
