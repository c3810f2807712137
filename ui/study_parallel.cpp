#include "ui/study_parallel.h"

#include "core/tune/study_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::ui {

namespace {

QString categoryText(const nlohmann::json& v)
{
    return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString::fromStdString(v.dump());
}

QString fieldTitle(const std::string& pointer)
{
    // The pointer's last two parts read best ("decode" alone could be a protocol or an instance count).
    const auto last = pointer.rfind('/');
    const auto before = last == std::string::npos || last == 0 ? std::string::npos : pointer.rfind('/', last - 1);
    return QString::fromStdString(before == std::string::npos ? pointer.substr(last == std::string::npos ? 0 : last + 1)
                                                              : pointer.substr(before + 1));
}

} // namespace

StudyParallelData studyParallelData(const core::StudySpec& study, const core::StudyResult& result)
{
    StudyParallelData out;
    for (const core::Parameter& p : study.parameters) {
        ParallelAxis axis;
        axis.title = fieldTitle(p.pointer);
        if (p.kind == core::ParameterKind::Categorical)
            for (const auto& v : p.values)
                axis.categories << categoryText(v);
        axis.logScale = p.kind == core::ParameterKind::LogReal && p.min > 0;
        out.axes.push_back(axis);
    }
    for (const core::Objective& o : study.objectives) {
        ParallelAxis axis;
        axis.title = QString::fromStdString(o.metric) +
                     (o.direction == core::Direction::Minimize ? QStringLiteral(" ↓") : QStringLiteral(" ↑"));
        axis.smallerAtTop = o.direction == core::Direction::Minimize;
        out.axes.push_back(axis);
    }
    const auto contains = [](const std::vector<std::size_t>& list, std::size_t i) {
        return std::find(list.begin(), list.end(), i) != list.end();
    };
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < result.points.size(); ++i) {
        const core::PointOutcome& point = result.points[i];
        if (point.probe || point.requests != 0)
            continue; // screening runs and capacity probes: not points of the study (as in the table)
        ParallelLine line;
        for (std::size_t k = 0; k < study.parameters.size(); ++k) {
            const core::Parameter& p = study.parameters[k];
            const nlohmann::json* v = k < point.point.values.size() ? &point.point.values[k] : nullptr;
            double value = kNone;
            if (v && p.kind == core::ParameterKind::Categorical) {
                const auto at = std::find(p.values.begin(), p.values.end(), *v);
                if (at != p.values.end())
                    value = static_cast<double>(at - p.values.begin());
            } else if (v && v->is_number()) {
                value = v->get<double>();
            }
            line.values.push_back(value);
        }
        for (const core::Objective& o : study.objectives)
            line.values.push_back(point.measured() ? core::metricValue(point, o.metric) : kNone);
        line.kind = contains(result.front, i)      ? ParallelLine::Kind::Front
                    : contains(result.feasible, i) ? ParallelLine::Kind::Feasible
                                                   : ParallelLine::Kind::Other;
        line.runId = point.runId.value_or(0);
        out.lines.push_back(std::move(line));
    }
    return out;
}

} // namespace coh::ui
