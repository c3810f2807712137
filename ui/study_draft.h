#pragma once
// A study being built in the GUI (the Tuner's New Study dialog, "Vary in a Study" on a scenario field): the fields
// to vary, the objectives, the constraints and the strategy, written out as a study file (docs/tuning.md) that core
// reads and checks like any other, so a built study runs the same from the GUI and from `cohsim tune`.
#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coh::ui {

struct DraftParameter {
    enum class Kind { Values, Integer, Real, LogReal };
    std::string pointer;
    Kind kind = Kind::Values;
    QString values; // Values: comma-separated, each read as a number where it is one, else as text
    double min = 0, max = 0;
    std::int64_t step = 1;    // Integer
    std::uint32_t levels = 5; // Real, LogReal: the values a grid takes

    // A first guess from the field's current value and, for a choice, the names it offers: every offered name;
    // an integer from half to twice its value; a positive real the same, on a log scale; anything else its value.
    static DraftParameter forField(const std::string& pointer, const std::optional<nlohmann::ordered_json>& current,
                                   const QStringList& choices);
    // The values a grid takes (0 when the parameter is not well formed).
    std::uint64_t gridSize() const;
};

struct DraftObjective {
    std::string metric;
    bool maximize = false;
};

struct DraftConstraint {
    std::string metric;
    std::optional<double> min, max;
};

struct StudyDraft {
    QString name = QStringLiteral("my-study");
    std::vector<DraftParameter> parameters;
    std::vector<DraftObjective> objectives;
    std::vector<DraftConstraint> constraints;
    QString strategy = QStringLiteral("sobol"); // grid, random, lhs, sobol, nsga2
    std::uint32_t points = 32;                  // random, lhs, sobol
    std::uint32_t population = 16, generations = 8;
    std::uint64_t seed = 1;
    std::uint32_t halvingMinRequests = 0; // 0: no successive halving

    // Objectives and a constraint most users start from: p99 TPOT and p90 TTFT, no failed request.
    static StudyDraft withDefaults();
    // Adds the field, or replaces the parameter already on it; returns its row.
    std::size_t vary(DraftParameter parameter);
    // The study file over `scenarioPath` (absolute or relative to where the file is written).
    nlohmann::ordered_json toJson(const std::string& scenarioPath) const;
    // The points a grid would run (the product of every parameter's grid values).
    std::uint64_t gridSize() const;
};

const char* toString(DraftParameter::Kind kind); // "values", "integer", "real", "log_real"
std::optional<DraftParameter::Kind> draftKindFromString(const QString& text);

} // namespace coh::ui
