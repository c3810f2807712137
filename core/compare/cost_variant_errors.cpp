#include "core/compare/cost_variant_errors.h"

#include "core/store/sim_vs_real.h"

#include <algorithm>
#include <cmath>

namespace coh::core {

namespace {

// The run's moved-cost variants, in factor order.
std::vector<const CostVariant*> movedVariantsOf(const ComparedRun& run)
{
    std::vector<const CostVariant*> out;
    if (run.costVariants)
        for (const CostVariant& v : *run.costVariants)
            if (v.kind == CostVariant::Kind::MovedCosts)
                out.push_back(&v);
    std::sort(out.begin(), out.end(), [](const CostVariant* a, const CostVariant* b) { return a->factor < b->factor; });
    return out;
}

std::vector<double> factorsOf(const std::vector<const CostVariant*>& variants)
{
    std::vector<double> factors;
    for (const CostVariant* v : variants)
        factors.push_back(v->factor);
    return factors;
}

// One pair's error in %, as compare-real takes it: over pairs (and on own costs), SimVsRealRow::pairErrorPct at the
// metric's last digit shown; a lone pair's moved costs as SimVsRealRow::errorPct. A figure neither run has (NaN on
// both sides: no such requests) is no error.
double errorPct(const MetricSpec& spec, double real, double simulated, bool lone = false)
{
    if (std::isnan(real) && std::isnan(simulated))
        return 0;
    return lone ? SimVsRealRow{"", real, simulated}.errorPct()
                : SimVsRealRow::pairErrorPct(real, simulated, displayStep(spec.unit) / 2);
}

// The lowest and highest of errors; NaN for both where one is NaN.
std::pair<double, double> rangeOf(const std::vector<double>& errors)
{
    if (std::any_of(errors.begin(), errors.end(), [](double e) { return std::isnan(e); }))
        return {std::nan(""), std::nan("")};
    const auto [low, high] = std::minmax_element(errors.begin(), errors.end());
    return {*low, *high};
}

} // namespace

void addCostVariantErrors(RunComparison& c, const std::vector<ComparedRun>& runs)
{
    if (!c.simulatorError || c.columns.size() != 2)
        return;
    const std::vector<std::size_t>& reals = c.columns[0];
    const std::vector<std::size_t>& models = c.columns[1];
    // Per pair: the real run's own costs, the model's moved costs.
    std::vector<const RunSummary*> own;
    std::vector<std::vector<const CostVariant*>> moved;
    for (std::size_t p = 0; p < reals.size(); ++p) {
        const CostVariant* o = runs[reals[p]].costVariants ? ownCostsOf(*runs[reals[p]].costVariants) : nullptr;
        own.push_back(o ? &o->summary : nullptr);
        moved.push_back(movedVariantsOf(runs[models[p]]));
    }
    c.ownCosts = !own.empty() && std::all_of(own.begin(), own.end(), [](const RunSummary* s) { return s; });
    const std::vector<double> factors = moved.empty() ? std::vector<double>() : factorsOf(moved.front());
    const bool movedKept = !factors.empty() && std::all_of(moved.begin(), moved.end(),
                                                           [&](const auto& m) { return factorsOf(m) == factors; });
    c.costSensitivity = movedKept ? movedCostSensitivity(*runs[models.front()].costVariants) : 0;
    for (MetricRow& row : c.metrics) {
        const MetricSpec& spec = *row.spec;
        const double resolution = displayStep(spec.unit) / 2;
        if (c.ownCosts) {
            // As compare-real's ON OWN COSTS: each pair's error, their median, judged as the error is.
            SimVsRealRow judged;
            judged.count = mustEqual(spec);
            std::vector<double> realValues, ownValues;
            for (std::size_t p = 0; p < reals.size(); ++p) {
                const double real = spec.value(*runs[reals[p]].summary), simulated = spec.value(*own[p]);
                realValues.push_back(real);
                ownValues.push_back(simulated);
                judged.pairErrorsPct.push_back(errorPct(spec, real, simulated));
                judged.everyRunEqual = judged.everyRunEqual && (std::fabs(simulated - real) <= resolution ||
                                                                (std::isnan(real) && std::isnan(simulated)));
            }
            judged.real = SimVsRealRow::median(realValues);
            judged.simulated = SimVsRealRow::median(ownValues);
            row.ownCostsValue = judged.simulated;
            row.ownCostsRelative = judged.errorPct() / 100;
            row.ownCostsVerdict =
                (judged.count ? judged.everyRunEqual : judged.withinGoal()) ? Verdict::Within : Verdict::Beyond;
        }
        if (movedKept) {
            // As compare-real's AT COSTS column: each pair's lowest and highest error, the unmoved one included, and
            // the median of each end over the pairs.
            std::vector<double> lows, highs;
            for (std::size_t p = 0; p < reals.size(); ++p) {
                const double real = spec.value(*runs[reals[p]].summary);
                const bool lone = reals.size() == 1;
                std::vector<double> errors{errorPct(spec, real, spec.value(*runs[models[p]].summary), lone)};
                for (const CostVariant* v : moved[p])
                    errors.push_back(errorPct(spec, real, spec.value(v->summary), lone));
                const auto [low, high] = rangeOf(errors);
                lows.push_back(low);
                highs.push_back(high);
            }
            row.movedCostsLow = SimVsRealRow::median(lows) / 100;
            row.movedCostsHigh = SimVsRealRow::median(highs) / 100;
        }
    }
}

} // namespace coh::core
