#include "ui/study_draft.h"

#include "ui/scenario_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::ui {

namespace {

using json = nlohmann::ordered_json;

QStringList splitValues(const QString& text)
{
    QStringList out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (const QString v = part.trimmed(); !v.isEmpty())
            out << v;
    return out;
}

} // namespace

const char* toString(DraftParameter::Kind kind)
{
    switch (kind) {
    case DraftParameter::Kind::Values:
        return "values";
    case DraftParameter::Kind::Integer:
        return "integer";
    case DraftParameter::Kind::Real:
        return "real";
    case DraftParameter::Kind::LogReal:
        return "log_real";
    }
    return "values";
}

std::optional<DraftParameter::Kind> draftKindFromString(const QString& text)
{
    for (auto kind : {DraftParameter::Kind::Values, DraftParameter::Kind::Integer, DraftParameter::Kind::Real,
                      DraftParameter::Kind::LogReal})
        if (text == QLatin1String(toString(kind)))
            return kind;
    return std::nullopt;
}

DraftParameter DraftParameter::forField(const std::string& pointer, const std::optional<json>& current,
                                        const QStringList& choices)
{
    DraftParameter p;
    p.pointer = pointer;
    if (!choices.isEmpty()) {
        p.values = choices.join(QStringLiteral(", "));
        return p;
    }
    if (current && current->is_number_integer() && current->get<long long>() > 0) {
        const long long v = current->get<long long>();
        p.kind = Kind::Integer;
        p.min = static_cast<double>(std::max(1LL, v / 2));
        p.max = static_cast<double>(v * 2);
        // About five values: a step that lands on the current value from the minimum where it can.
        p.step = std::max<std::int64_t>(1, static_cast<std::int64_t>((p.max - p.min) / 4));
        return p;
    }
    if (current && current->is_number() && current->get<double>() > 0) {
        const double v = current->get<double>();
        p.kind = Kind::LogReal;
        p.min = v / 2;
        p.max = v * 2;
        return p;
    }
    if (current)
        p.values = ScenarioFields::valueText(*current);
    return p;
}

std::uint64_t DraftParameter::gridSize() const
{
    switch (kind) {
    case Kind::Values:
        return static_cast<std::uint64_t>(splitValues(values).size());
    case Kind::Integer:
        if (step <= 0 || max < min)
            return 0;
        return static_cast<std::uint64_t>(std::floor((max - min) / static_cast<double>(step))) + 1;
    case Kind::Real:
    case Kind::LogReal:
        return max >= min ? levels : 0;
    }
    return 0;
}

StudyDraft StudyDraft::withDefaults()
{
    StudyDraft d;
    d.objectives = {{"tpot_p99_ms", false}, {"ttft_p90_ms", false}};
    d.constraints = {{"failed_requests", std::nullopt, 0.0}};
    return d;
}

std::size_t StudyDraft::vary(DraftParameter parameter)
{
    const auto it = std::find_if(parameters.begin(), parameters.end(),
                                 [&](const DraftParameter& p) { return p.pointer == parameter.pointer; });
    if (it != parameters.end()) {
        *it = std::move(parameter);
        return static_cast<std::size_t>(it - parameters.begin());
    }
    parameters.push_back(std::move(parameter));
    return parameters.size() - 1;
}

std::uint64_t StudyDraft::gridSize() const
{
    std::uint64_t n = parameters.empty() ? 0 : 1;
    for (const DraftParameter& p : parameters) {
        const std::uint64_t k = p.gridSize();
        n = k != 0 && n > std::numeric_limits<std::uint64_t>::max() / k ? std::numeric_limits<std::uint64_t>::max()
                                                                        : n * k;
    }
    return n;
}

json StudyDraft::toJson(const std::string& scenarioPath) const
{
    json study;
    study["name"] = name.trimmed().toStdString();
    study["description"] = "Built in Coherence Studio's Tuner.";
    study["scenario"] = scenarioPath;
    json params = json::array();
    for (const DraftParameter& p : parameters) {
        json entry;
        entry["field"] = p.pointer;
        if (p.kind == DraftParameter::Kind::Values) {
            json values = json::array();
            for (const QString& v : splitValues(p.values))
                values.push_back(ScenarioFields::parseValue(v)); // as a form field reads it
            entry["values"] = values;
        } else {
            entry["type"] = toString(p.kind);
            if (p.kind == DraftParameter::Kind::Integer) {
                entry["min"] = static_cast<long long>(std::llround(p.min));
                entry["max"] = static_cast<long long>(std::llround(p.max));
                entry["step"] = p.step;
            } else {
                entry["min"] = p.min;
                entry["max"] = p.max;
                entry["levels"] = p.levels;
            }
        }
        params.push_back(entry);
    }
    study["parameters"] = params;
    json goals = json::array();
    for (const DraftObjective& o : objectives)
        goals.push_back(json{{"metric", o.metric}, {"direction", o.maximize ? "maximize" : "minimize"}});
    study["objectives"] = goals;
    json limits = json::array();
    for (const DraftConstraint& c : constraints) {
        json entry{{"metric", c.metric}};
        if (c.min)
            entry["min"] = *c.min;
        if (c.max)
            entry["max"] = *c.max;
        limits.push_back(entry);
    }
    if (!limits.empty())
        study["constraints"] = limits;
    json strategyJson{{"kind", strategy.toStdString()}};
    if (strategy == QLatin1String("random") || strategy == QLatin1String("lhs") || strategy == QLatin1String("sobol"))
        strategyJson["points"] = points;
    if (strategy == QLatin1String("nsga2")) {
        strategyJson["population"] = population;
        strategyJson["generations"] = generations;
    }
    if (strategy != QLatin1String("grid"))
        strategyJson["seed"] = seed;
    study["strategy"] = strategyJson;
    if (halvingMinRequests > 0)
        study["halving"] = json{{"min_requests", halvingMinRequests}, {"eta", 3}};
    return study;
}

} // namespace coh::ui
