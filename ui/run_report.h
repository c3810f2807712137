#pragma once
// A run as one self-contained report a person sends to a colleague (docs/reports.md): the scenario (topology,
// model, workload, protocols per phase and tier, backend), the headline latencies with their percentiles, the
// run's charts as vector SVG drawn by the Charts tab's own code (so the report and the screen agree), coherence
// traffic by kind and by link, staleness and failures. Every user-provided string is escaped. The HTML is XHTML:
// well-formed XML that any XML parser reads.
#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <QByteArray>
#include <QSize>
#include <QString>

#include <memory>
#include <string>

class QWidget;

namespace coh::ui {

struct RunReportInput {
    core::RunInfo info;
    std::string scenarioJson;
    std::shared_ptr<const core::RunResult> run;
};

QString runReportHtml(const RunReportInput& input);

// A widget painted into SVG (a chart view: its series, axes and text as vector paths and text).
QByteArray widgetSvg(QWidget* widget, QSize size, const QString& title);

} // namespace coh::ui
