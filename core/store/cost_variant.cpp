#include "core/store/cost_variant.h"

namespace coh::core {

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
