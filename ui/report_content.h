#pragma once
// What a run's report says, as plain content (headings, paragraphs, tables, charts), built once and written as
// HTML, Markdown or PDF by report_writers.h (docs/reports.md). Text here is plain: each writer escapes it for its
// format. Charts are the Charts tab's own views (ChartsPanel), which the content keeps alive.
#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QWidget;

namespace coh::ui {

class ChartsPanel;

struct RunReportInput {
    core::RunInfo info;
    std::string scenarioJson;
    std::shared_ptr<const core::RunResult> run;
    // The run's twin from `cohsim compare-real`: the real run a simulated one models, or the newest simulated run
    // that models a real one. The report shows the simulator's error against it.
    struct Twin {
        core::RunInfo info;
        core::RunSummary summary;
        std::vector<core::CostVariant> costVariants;
    };
    std::optional<Twin> twin;
    // What compare-real kept with the run: the simulator on a real run's own costs, or a model's with its costs moved
    // (the simulator's error table shows them).
    std::vector<core::CostVariant> costVariants;
};

// Run `id` of the store with what its report needs (its twin, when it has a completed one); throws InputError
// naming the database when there is no such run or it has not completed (no figures to report).
RunReportInput loadRunForReport(core::RunStore& store, std::int64_t id, const std::string& field = "ID");

struct ReportTable {
    QStringList header; // empty: a two-column list of names and values
    QList<QStringList> rows;
};

struct ReportBlock {
    enum class Kind { Heading, Subheading, Paragraph, Note, Table, Chart };
    Kind kind = Kind::Paragraph;
    QString text; // heading, paragraph, note; a chart's caption
    ReportTable table;
    QWidget* chart = nullptr;
    QSize size; // a chart's, in pixels
};

class ReportContent {
  public:
    explicit ReportContent(QString title);
    ~ReportContent();
    ReportContent(ReportContent&&) noexcept;
    ReportContent& operator=(ReportContent&&) noexcept;

    const QString& title() const { return m_title; }
    const std::vector<ReportBlock>& blocks() const { return m_blocks; }

    void heading(const QString& text) { add(ReportBlock::Kind::Heading, text); }
    void subheading(const QString& text) { add(ReportBlock::Kind::Subheading, text); }
    void paragraph(const QString& text) { add(ReportBlock::Kind::Paragraph, text); }
    void note(const QString& text) { add(ReportBlock::Kind::Note, text); }
    void table(ReportTable table);
    // Adds the run's charts (the Charts tab's views) with their captions.
    void charts(const std::shared_ptr<const core::RunResult>& run);
    // Adds a chart the content owns from now on.
    void chart(QWidget* view, const QString& caption, QSize size);

  private:
    void add(ReportBlock::Kind kind, const QString& text);

    QString m_title;
    std::vector<ReportBlock> m_blocks;
    std::vector<std::unique_ptr<ChartsPanel>> m_panels; // own the chart views the blocks point at
    std::vector<std::unique_ptr<QWidget>> m_charts;     // and the charts added one by one
};

struct StudyReportInput;

// One run: title line, headline latencies, scenario, charts, traffic, staleness and failures; with `others`, a
// comparison of the run against them first (Compare's verdicts and sentences, overlaid latency CDFs); with `study`,
// that study's Pareto front (report_study.h).
ReportContent buildRunReport(const RunReportInput& input, const std::vector<RunReportInput>& others = {},
                             const StudyReportInput* study = nullptr);

} // namespace coh::ui
