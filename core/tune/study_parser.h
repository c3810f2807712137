#pragma once
// Reads a study file (docs/tuning.md) into a validated StudySpec. Every problem is collected and thrown as one
// InputError naming the file, the JSON pointer of the field and the fix, as the scenario loader does.
#include "core/tune/study_spec.h"

#include <nlohmann/json.hpp>

#include <string>

namespace coh::core {

StudySpec loadStudyFile(const std::string& path);

// `sourcePath` names the file in problems and anchors a relative scenario path (its folder; then the datasets
// folder, as scenario trace paths).
StudySpec parseStudy(const nlohmann::json& root, const std::string& sourcePath);

// Only a study file's name, objectives and constraints, checked as parseStudy checks them: what reading its points
// back needs, without its scenario (which may have moved since it ran). Throws InputError on a problem with them.
StudySpec parseStudyGoals(const nlohmann::json& root, const std::string& sourcePath);

// Identifies a study: its canonical JSON together with its base scenario's, so an edited scenario is a new study.
std::string studyHash(const StudySpec& study);

} // namespace coh::core
