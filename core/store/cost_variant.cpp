#include "core/store/cost_variant.h"

#include <algorithm>
#include <cmath>

namespace coh::core {

const CostVariant* ownCostsOf(const std::vector<CostVariant>& variants)
{
    const auto own = std::find_if(variants.begin(), variants.end(),
                                  [](const CostVariant& v) { return v.kind == CostVariant::Kind::OwnCosts; });
    return own == variants.end() ? nullptr : &*own;
}

double movedCostSensitivity(const std::vector<CostVariant>& variants)
{
    double sensitivity = 0;
    for (const CostVariant& v : variants)
        if (v.kind == CostVariant::Kind::MovedCosts)
            sensitivity = std::max(sensitivity, std::fabs(v.factor - 1));
    return sensitivity;
}

const char* toString(CostVariant::Kind kind)
{
    return kind == CostVariant::Kind::OwnCosts ? "own_costs" : "moved_costs";
}

std::optional<CostVariant::Kind> parseCostVariantKind(const std::string& text)
{
    if (text == "own_costs")
        return CostVariant::Kind::OwnCosts;
    if (text == "moved_costs")
        return CostVariant::Kind::MovedCosts;
    return std::nullopt;
}

} // namespace coh::core
