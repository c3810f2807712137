#pragma once
// A tuning study in a report (`cohsim report ID --study S`, docs/reports.md): its Pareto front read back from the
// run database, the front's points with their varied fields and objectives, and a scatter of the first two
// objectives with the front marked, as the Tuner tab shows it.
#include "core/store/run_store.h"

#include <optional>
#include <vector>

namespace coh::ui {

class ReportContent;

struct StudyReportInput {
    core::StudyInfo info;
    std::vector<core::StudyPoint> points;
    std::vector<std::optional<core::RunSummary>> summaries; // per point: its run's, when it has a completed one
};

// Reads study `id` and its points' summaries from the store; nullopt when there is no such study.
std::optional<StudyReportInput> loadStudyForReport(core::RunStore& store, std::int64_t id);

void addStudy(ReportContent& report, const StudyReportInput& study);

} // namespace coh::ui
