#pragma once
// The catalog of known models (datasets/models/catalog.json), so a scenario can say "model": "Llama-3-8B".
#include "core/scenario/json_reader.h"
#include "core/scenario/model_spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core {

class ModelCatalog {
  public:
    // datasetsDir() + "/models/catalog.json" (so $COH_DATASETS_DIR moves it too).
    static std::string defaultPath();

    // Reads a JSON array of model objects; any problem in the file throws one InputError.
    static ModelCatalog load(const std::string& path);
    static ModelCatalog loadDefault() { return load(defaultPath()); }

    const std::string& path() const { return m_path; }
    const std::vector<ModelSpec>& models() const { return m_models; }
    std::vector<std::string> names() const;

    // Case-insensitive; nullptr when absent.
    const ModelSpec* find(std::string_view name) const;

  private:
    std::string m_path;
    std::vector<ModelSpec> m_models;
};

// Reads one model object (the catalog's entries and a scenario's inline "model" use the same keys);
// problems go to the reader's list and the result is nullopt when the model is unusable.
std::optional<ModelSpec> readModelObject(ObjectReader& reader);

} // namespace coh::core
