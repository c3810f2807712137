#pragma once
// Reads the outcome of a study's points: objective vectors, feasibility, the Pareto front (pagmo's
// non-dominated sorting), the best point and a sensitivity summary. Pure functions of the points.
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

#include <vector>

namespace coh::core {

// The value of `metric` in a point's metrics (the catalog's order).
double metricValue(const PointOutcome& point, const std::string& metric);

// The point's objectives as a vector to minimise (maximised objectives negated).
std::vector<double> minimisedObjectives(const StudySpec& study, const PointOutcome& point);

// How far the point is outside its constraints, summed relative to each bound (0: it meets them all).
double constraintViolation(const StudySpec& study, const PointOutcome& point);

// Indices of the non-dominated vectors (all minimised); equal vectors are all kept.
std::vector<std::size_t> nonDominated(const std::vector<std::vector<double>>& minimised);

// Ranks for selection among candidates: the non-dominated sorting front index, ties broken by crowding distance
// (larger first). Returns the candidates' indices, best first.
std::vector<std::size_t> rankByDominance(const std::vector<std::vector<double>>& minimised);

// Fills result.feasible, front, best and sensitivity from result.points.
void analyseStudy(const StudySpec& study, StudyResult& result);

} // namespace coh::core
