#include "core/tune/point_designs.h"

#include <boost/random/sobol.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace coh::core {

namespace {

// Keeps the first of equal points, in order.
std::vector<Point> distinct(std::vector<Point> points)
{
    std::vector<Point> out;
    out.reserve(points.size());
    for (auto& p : points)
        if (std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(std::move(p));
    return out;
}

double unitDraw(std::mt19937_64& rng)
{
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

} // namespace

Point pointAt(const StudySpec& study, const std::vector<double>& unit)
{
    Point p;
    for (std::size_t d = 0; d < study.parameters.size(); ++d)
        p.values.push_back(study.parameters[d].valueAt(unit.at(d)));
    return p;
}

std::vector<Point> gridPoints(const StudySpec& study)
{
    std::vector<std::vector<nlohmann::json>> axes;
    for (const Parameter& p : study.parameters)
        axes.push_back(p.gridValues());
    std::vector<Point> points;
    std::vector<std::size_t> index(axes.size(), 0);
    if (std::any_of(axes.begin(), axes.end(), [](const auto& a) { return a.empty(); }))
        return points;
    while (true) {
        Point p;
        for (std::size_t d = 0; d < axes.size(); ++d)
            p.values.push_back(axes[d][index[d]]);
        points.push_back(std::move(p));
        // Odometer: the last axis turns fastest.
        std::size_t d = axes.size();
        while (d > 0) {
            --d;
            if (++index[d] < axes[d].size())
                break;
            index[d] = 0;
            if (d == 0)
                return points;
        }
        if (axes.empty())
            return points;
    }
}

std::vector<Point> randomPoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<Point> points;
    std::vector<double> unit(study.parameters.size());
    for (std::uint32_t i = 0; i < count; ++i) {
        for (double& u : unit)
            u = unitDraw(rng);
        points.push_back(pointAt(study, unit));
    }
    return distinct(std::move(points));
}

std::vector<Point> latinHypercubePoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const std::size_t dims = study.parameters.size();
    // Each dimension's `count` strata in a random order: point i takes stratum strata[d][i] in dimension d.
    std::vector<std::vector<std::uint32_t>> strata(dims, std::vector<std::uint32_t>(count));
    for (auto& order : strata) {
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), rng);
    }
    std::vector<Point> points;
    std::vector<double> unit(dims);
    for (std::uint32_t i = 0; i < count; ++i) {
        for (std::size_t d = 0; d < dims; ++d)
            unit[d] = (strata[d][i] + unitDraw(rng)) / count;
        points.push_back(pointAt(study, unit));
    }
    return distinct(std::move(points));
}

std::vector<Point> sobolPoints(const StudySpec& study, std::uint32_t count, std::uint64_t seed)
{
    const std::size_t dims = study.parameters.size();
    boost::random::sobol sequence(dims);
    // A random digital shift per dimension (XOR of the bits): unlike an additive rotation it keeps the sequence's
    // nets, so any 2^m leading points still fill every elementary cell evenly; it also moves the first point off
    // the origin.
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> shift(dims);
    for (auto& s : shift)
        s = rng() & (sequence.max() - sequence.min());
    const double range = static_cast<double>(sequence.max() - sequence.min()) + 1.0;
    std::vector<Point> points;
    std::vector<double> unit(dims);
    for (std::uint32_t i = 0; i < count; ++i) {
        // Boost's engine starts at the sequence's second point; the first is the origin, which the nets need.
        for (std::size_t d = 0; d < dims; ++d)
            unit[d] = static_cast<double>((i == 0 ? 0 : sequence() - sequence.min()) ^ shift[d]) / range;
        points.push_back(pointAt(study, unit));
    }
    return distinct(std::move(points));
}

std::vector<Point> designPoints(const StudySpec& study)
{
    const StrategySpec& s = study.strategy;
    switch (s.kind) {
    case StrategyKind::Grid:
        return gridPoints(study);
    case StrategyKind::Random:
        return randomPoints(study, s.points, s.seed);
    case StrategyKind::LatinHypercube:
        return latinHypercubePoints(study, s.points, s.seed);
    case StrategyKind::Sobol:
        return sobolPoints(study, s.points, s.seed);
    case StrategyKind::Nsga2:
        break;
    }
    throw std::logic_error("designPoints: NSGA-II has no fixed design");
}

} // namespace coh::core
