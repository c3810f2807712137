#include "core/tune/capacity_search.h"

#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace coh::core {

namespace {

// One point's search, in x = ln(load multiple): from a first guess it steps up while the attainment is met and down
// while it is not, doubling the step, until it holds a bracket (a load that meets it, one that does not) or reaches
// an end of the range; then it narrows the bracket by regula falsi on the attainment's gap (Illinois variant), kept
// 5% inside so a flat stretch still shrinks it, to the tolerance.
struct Search {
    double x = 0, step = 0;               // the next probe, and the step while looking for a bracket
    std::optional<double> xLow, xHigh;    // a load that meets the attainment, one that does not
    double fLow = 0, fHigh = 0;           // attainment - target at each
    int kept = 0;                         // +n: the low end kept n rounds running; -n: the high end
    std::optional<PointOutcome> passing;  // the run at xLow
    std::optional<PointOutcome> lightest; // the lightest load's run, while none passed
    bool done = false;
    double capacity = 0;
};

// The field's value for load multiple e^x, to 6 significant digits, so a resumed search asks for the same runs.
double valueAt(const CapacitySpec& cap, double x)
{
    return std::strtod(fmt::format("{:.6g}", cap.valueFor(std::exp(x))).c_str(), nullptr);
}

// Bisection from the two ends to the tolerance: 2 + ceil(log2(range / tolerance)) runs per point.
std::uint64_t bisectionRuns(const CapacitySpec& cap)
{
    const double range = std::abs(std::log(cap.loadFor(cap.max)) - std::log(cap.loadFor(cap.min)));
    return static_cast<std::uint64_t>(2 + std::max(0.0, std::ceil(std::log2(range / std::log1p(cap.tolerance)))));
}

} // namespace

std::uint64_t expectedRunsPerPoint(const StudySpec& study)
{
    return study.capacity.enabled() ? bisectionRuns(study.capacity) : 1;
}

std::vector<PointOutcome> measurePoints(const StudySpec& study, PointEvaluator& evaluator,
                                        const std::vector<Point>& points, std::uint32_t requestLimit,
                                        const std::string& stage, std::vector<PointOutcome>& finals,
                                        CapacityCounts& counts)
{
    if (!study.capacity.enabled())
        return evaluator.evaluate(points, requestLimit, stage);
    const CapacitySpec& cap = study.capacity;
    const double a = std::log(cap.loadFor(cap.min)), b = std::log(cap.loadFor(cap.max));
    const double xMin = std::min(a, b), xMax = std::max(a, b);
    const double width = std::log1p(cap.tolerance);
    const auto probe = [&](const Point& point, double x) {
        Point p = point;
        p.load = valueAt(cap, x);
        return p;
    };
    const auto passes = [&](const PointOutcome& o) {
        return o.measured() && metricValue(o, "slo_attainment") >= cap.attainment;
    };
    const auto gap = [&](const PointOutcome& o) { return metricValue(o, "slo_attainment") - cap.attainment; };

    std::vector<Search> searches(points.size());
    std::size_t round = 0;
    // Runs the searches of points[first, last) in lockstep: one probe per unfinished point per round, one batch.
    const auto runWave = [&](std::size_t first, std::size_t last) {
        // The first guess: the median of the capacities found so far with a small step, else the middle of the range
        // with a quarter of it.
        std::vector<double> found = counts.found;
        const bool prior = !found.empty();
        double guess = (xMin + xMax) / 2, step = (xMax - xMin) / 4;
        if (prior) {
            std::nth_element(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(found.size() / 2), found.end());
            guess = std::clamp(std::log(found[found.size() / 2]), xMin, xMax);
            step = std::log(1.25);
        }
        for (std::size_t i = first; i < last; ++i) {
            searches[i].x = guess;
            searches[i].step = step;
        }
        while (true) {
            std::vector<Point> batch;
            std::vector<std::size_t> who;
            for (std::size_t i = first; i < last; ++i)
                if (!searches[i].done) {
                    batch.push_back(probe(points[i], searches[i].x));
                    who.push_back(i);
                }
            if (batch.empty())
                return;
            ++round;
            const auto outcomes =
                evaluator.evaluate(batch, requestLimit, fmt::format("{} · capacity, round {}", stage, round));
            counts.probes += batch.size();
            for (std::size_t k = 0; k < who.size(); ++k) {
                Search& s = searches[who[k]];
                const PointOutcome& o = outcomes[k];
                const double x = s.x;
                if (!o.measured()) {
                    // A failed or invalid run: the search stops at what it knows.
                    if (s.passing)
                        s.capacity = std::exp(*s.xLow);
                    else
                        s.lightest = o;
                    s.done = true;
                    continue;
                }
                if (passes(o)) {
                    s.xLow = x;
                    s.fLow = gap(o);
                    s.passing = o;
                    s.kept = s.kept <= 0 ? s.kept - 1 : -1; // the high end is kept once more
                } else {
                    s.xHigh = x;
                    s.fHigh = gap(o);
                    s.kept = s.kept >= 0 ? s.kept + 1 : 1; // the low end is kept once more
                    if (!s.passing)
                        s.lightest = o; // until one passes the search only steps down: the lightest so far
                }
                if (!s.xHigh) { // met so far: look higher
                    if (x >= xMax) {
                        s.done = true; // at least the range's top: the search cannot say more
                        s.capacity = std::exp(xMax);
                        continue;
                    }
                    s.x = std::min(xMax, x + s.step);
                    s.step *= 2;
                    continue;
                }
                if (!s.xLow) { // missed so far: look lower
                    if (x <= xMin) {
                        s.done = true; // capacity 0: even the lightest load misses the attainment
                        continue;
                    }
                    s.x = std::max(xMin, x - s.step);
                    s.step *= 2;
                    continue;
                }
                const double w = *s.xHigh - *s.xLow;
                if (w <= width) {
                    s.done = true;
                    s.capacity = std::exp(*s.xLow);
                    continue;
                }
                double fLow = s.fLow, fHigh = s.fHigh;
                if (s.kept >= 2)
                    fLow /= 2;
                if (s.kept <= -2)
                    fHigh /= 2;
                const double next = fLow - fHigh > 0 ? *s.xLow + w * fLow / (fLow - fHigh) : *s.xLow + w / 2;
                s.x = std::clamp(next, *s.xLow + 0.05 * w, *s.xHigh - 0.05 * w);
            }
        }
    };
    // A first wave as wide as the executor, cold; the rest start from what it found.
    const std::size_t firstWave = counts.found.empty() ? std::min<std::size_t>(points.size(), evaluator.threads()) : 0;
    runWave(0, firstWave);
    for (std::size_t i = 0; i < firstWave; ++i)
        if (searches[i].capacity > 0)
            counts.found.push_back(searches[i].capacity);
    runWave(firstWave, points.size());

    const std::size_t index = metricIndex("capacity_at_slo");
    const std::uint64_t bisection = bisectionRuns(cap);
    std::vector<PointOutcome> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
        Search& s = searches[i];
        if (i >= firstWave && s.capacity > 0)
            counts.found.push_back(s.capacity);
        counts.bisectionProbes += bisection;
        // The run at the capacity found (its point names the load it ran at), or at the lightest load run.
        PointOutcome o = s.passing ? *s.passing : *s.lightest;
        o.probe = false;
        if (o.measured())
            o.metrics.at(index) = s.passing ? s.capacity : 0.0;
        evaluator.recordCapacity(o.key, s.passing ? s.capacity : 0.0);
        finals.push_back(o);
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace coh::core
