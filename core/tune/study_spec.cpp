#include "core/tune/study_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace coh::core {

namespace {

// The value a real parameter takes at fraction t of its range (log scale: of its logarithm's range).
// Rounded to 6 significant digits: a value a person can read and type, and one a resumed search reproduces exactly.
double realAt(const Parameter& p, double t)
{
    const double v = p.kind == ParameterKind::LogReal
                         ? std::exp(std::log(p.min) + t * (std::log(p.max) - std::log(p.min)))
                         : p.min + t * (p.max - p.min);
    return std::clamp(std::strtod(fmt::format("{:.6g}", v).c_str(), nullptr), p.min, p.max);
}

std::int64_t integerCount(const Parameter& p)
{
    return static_cast<std::int64_t>((p.max - p.min) / static_cast<double>(p.step)) + 1;
}

} // namespace

std::vector<nlohmann::json> Parameter::gridValues(std::size_t limit) const
{
    std::vector<nlohmann::json> out;
    switch (kind) {
    case ParameterKind::Categorical:
        return {values.begin(), values.begin() + static_cast<std::ptrdiff_t>(std::min(limit, values.size()))};
    case ParameterKind::Integer:
        for (std::int64_t i = 0; i < integerCount(*this) && out.size() < limit; ++i)
            out.emplace_back(static_cast<std::int64_t>(min) + i * step);
        return out;
    case ParameterKind::Real:
    case ParameterKind::LogReal:
        for (std::uint32_t i = 0; i < levels && out.size() < limit; ++i)
            out.emplace_back(levels == 1 ? min : realAt(*this, static_cast<double>(i) / (levels - 1)));
        return out;
    }
    return out;
}

bool Parameter::canTake(const nlohmann::json& value) const
{
    switch (kind) {
    case ParameterKind::Categorical:
        return std::find(values.begin(), values.end(), value) != values.end();
    case ParameterKind::Integer:
        return value.is_number_integer() && value.get<double>() >= min && value.get<double>() <= max &&
               (value.get<std::int64_t>() - static_cast<std::int64_t>(min)) % step == 0;
    case ParameterKind::Real:
    case ParameterKind::LogReal:
        return value.is_number() && value.get<double>() >= min && value.get<double>() <= max;
    }
    return false;
}

nlohmann::json Parameter::valueAt(double u) const
{
    u = std::clamp(u, 0.0, 1.0);
    const auto share = [&](std::int64_t n) { return std::min<std::int64_t>(static_cast<std::int64_t>(u * n), n - 1); };
    switch (kind) {
    case ParameterKind::Categorical:
        return values.at(static_cast<std::size_t>(share(static_cast<std::int64_t>(values.size()))));
    case ParameterKind::Integer:
        return static_cast<std::int64_t>(min) + share(integerCount(*this)) * step;
    case ParameterKind::Real:
    case ParameterKind::LogReal:
        return realAt(*this, u);
    }
    return nullptr;
}

const char* toString(ParameterKind kind)
{
    switch (kind) {
    case ParameterKind::Categorical:
        return "categorical";
    case ParameterKind::Integer:
        return "integer";
    case ParameterKind::Real:
        return "real";
    case ParameterKind::LogReal:
        return "log_real";
    }
    return "?";
}

const char* toString(StrategyKind kind)
{
    switch (kind) {
    case StrategyKind::Grid:
        return "grid";
    case StrategyKind::Random:
        return "random";
    case StrategyKind::LatinHypercube:
        return "lhs";
    case StrategyKind::Sobol:
        return "sobol";
    case StrategyKind::Nsga2:
        return "nsga2";
    }
    return "?";
}

const char* toString(Direction direction)
{
    return direction == Direction::Minimize ? "minimize" : "maximize";
}

} // namespace coh::core
