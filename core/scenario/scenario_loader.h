#pragma once
// Reads a scenario file (docs/scenario-format.md) into validated values. Every problem in the file is
// collected and thrown as one InputError naming the file, the JSON pointer of the field and the fix.
#include "core/scenario/datasets_dir.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <string>

namespace coh::core {

// Missing file, malformed JSON or invalid content: InputError.
Scenario loadScenarioFile(const std::string& path);

// `sourcePath` names the file in problems and anchors relative trace paths (its folder; the current folder
// when empty). Catalog model names are looked up in ModelCatalog::defaultPath().
Scenario parseScenario(const nlohmann::json& root, const std::string& sourcePath);

} // namespace coh::core
