#include "core/tune/nsga2_search.h"

#include "core/tune/capacity_search.h"
#include "core/tune/point_designs.h"
#include "core/tune/study_analysis.h"

#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/batch_evaluators/member_bfe.hpp>
#include <pagmo/bfe.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>

#include <fmt/format.h>

#include <limits>

namespace coh::core {

namespace {

// What the pagmo problem evaluates through; pagmo copies problems, so they hold only a pointer to it.
struct SearchContext {
    const StudySpec* study = nullptr;
    const MeasureBatch* measure = nullptr;
    std::string stage;
};

// Any feasible point beats any other: those rank by their constraint violation above this floor.
constexpr double kInfeasible = 1e30;

class StudyProblem {
  public:
    StudyProblem() = default;
    explicit StudyProblem(SearchContext* context)
        : m_context(context)
    {
    }

    pagmo::vector_double fitness(const pagmo::vector_double& x) const { return batch_fitness(x); }

    pagmo::vector_double batch_fitness(const pagmo::vector_double& xs) const
    {
        const StudySpec& study = *m_context->study;
        const std::size_t dims = study.parameters.size();
        std::vector<Point> points;
        for (std::size_t at = 0; at + dims <= xs.size(); at += dims)
            points.push_back(pointAt(study, {xs.begin() + static_cast<std::ptrdiff_t>(at),
                                             xs.begin() + static_cast<std::ptrdiff_t>(at + dims)}));
        const auto outcomes = (*m_context->measure)(points, m_context->stage);
        pagmo::vector_double out;
        for (const PointOutcome& o : outcomes) {
            if (!o.measured()) {
                out.insert(out.end(), study.objectives.size(), kInfeasible * 2);
                continue;
            }
            const double violation = constraintViolation(study, o);
            if (violation > 0) {
                // 1 + v / (1 + v): grows with the violation and stays below the failed points' 2.
                out.insert(out.end(), study.objectives.size(), kInfeasible * (1 + violation / (1 + violation)));
                continue;
            }
            const auto objectives = minimisedObjectives(study, o);
            out.insert(out.end(), objectives.begin(), objectives.end());
        }
        return out;
    }

    bool has_batch_fitness() const { return true; }

    std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const
    {
        const std::size_t dims = m_context->study->parameters.size();
        // valueAt maps [0, 1] onto each parameter; 1 itself is the top value.
        return {pagmo::vector_double(dims, 0.0), pagmo::vector_double(dims, 1.0)};
    }

    pagmo::vector_double::size_type get_nobj() const { return m_context->study->objectives.size(); }

    std::string get_name() const { return "Coherence Studio study"; }

  private:
    SearchContext* m_context = nullptr;
};

} // namespace

void runNsga2(const StudySpec& study, PointEvaluator& evaluator, const MeasureBatch& measure)
{
    const StrategySpec& s = study.strategy;
    evaluator.setExpectedTotal(std::uint64_t{s.population} * (s.generations + 1) * expectedRunsPerPoint(study));
    SearchContext context{&study, &measure, "generation 0"};
    const pagmo::problem problem{StudyProblem(&context)};
    const auto seed = static_cast<unsigned>(s.seed ^ (s.seed >> 32));
    pagmo::population population(problem, pagmo::bfe{pagmo::member_bfe{}}, s.population, seed);
    // pagmo's defaults for crossover and mutation; one generation per evolve so progress names it.
    pagmo::nsga2 algorithm(1u, 0.95, 10., 0.01, 50., seed);
    algorithm.set_bfe(pagmo::bfe{pagmo::member_bfe{}});
    for (std::uint32_t g = 1; g <= s.generations; ++g) {
        context.stage = fmt::format("generation {}", g);
        population = algorithm.evolve(population);
    }
}

} // namespace coh::core
