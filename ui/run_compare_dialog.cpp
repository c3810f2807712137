#include "ui/run_compare_dialog.h"

#include "core/compare/run_comparison.h"
#include "ui/chart_view.h"
#include "ui/compare_cdf_chart.h"
#include "ui/qt_text.h"
#include "ui/report_export.h"
#include "ui/run_compare_model.h"
#include "ui/theme.h"
#include "ui/window_size.h"

#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace coh::ui {

namespace {

// Narrower than this, two CDFs side by side squeeze their axes until the labels are cut.
constexpr int kSideBySideWidth = 900;
// The table and both CDFs side by side at ease.
constexpr QSize kRoomySize(1000, 760);

// The rule core's comparison applies, its figures read from core's metric table: a latency's tolerance and floor
// (the rates share the tolerance).
QString thresholdText(const QString& baseline)
{
    const auto& metrics = core::comparedMetrics();
    const auto latency = std::find_if(metrics.begin(), metrics.end(), [](const core::MetricSpec& m) {
        return m.unit == core::MetricUnit::Milliseconds;
    });
    return RunCompareDialog::tr("Δ: each run against %1. \"About the same\": latencies and rates within %2% or within "
                                "the percentile's own 95% confidence interval, latencies also within %3 ms; counts and "
                                "bytes only when equal; any difference under the last digit shown. Tinted: better "
                                "(green) or worse (amber).")
        .arg(baseline, QLocale().toString(100 * latency->tolerance, 'g', 3),
             QLocale().toString(latency->floor, 'g', 3));
}

// A real run and the simulator's model of it (or pairs of them): what the error column means.
QString simulatorErrorText(const QString& real, std::size_t pairs)
{
    if (pairs > 1)
        return RunCompareDialog::tr(
                   "Simulator's error: in each of the %1 pairs, the simulated run's value against what "
                   "its real run measured, as a share of it; the column shows their median, each "
                   "side its runs' median (as compare-real --repeat). Latencies and rates: green "
                   "within the simulator's goal of ±%2%, amber beyond it. Counts and bytes: equal in "
                   "every pair, or amber where transfers raced in some.")
            .arg(pairs)
            .arg(QLocale().toString(100 * core::kSimulatorErrorGoal, 'g', 3));
    return RunCompareDialog::tr("Simulator's error: the simulated run's value against what %1 measured, as a share of "
                                "it. Latencies and rates: green within the simulator's goal of ±%2%, amber beyond "
                                "it. Counts and bytes, outcomes of the protocol: equal, or amber where transfers "
                                "raced and the order of events followed measured times.")
        .arg(real, QLocale().toString(100 * core::kSimulatorErrorGoal, 'g', 3));
}

} // namespace

RunCompareDialog::Loaded RunCompareDialog::loadRuns(const QString& databasePath, const QList<qint64>& runIds)
{
    Loaded loaded;
    QStringList errors;
    try {
        core::RunStore store(toStdString(databasePath));
        for (qint64 id : runIds) {
            try {
                auto info = store.runInfo(id);
                if (!info) {
                    errors << tr("Run %1 is not in %2.").arg(id).arg(databasePath);
                    continue;
                }
                if (info->status != core::RunStatus::Completed) {
                    errors << tr("Run %1 is %2: only completed runs have metrics to compare.")
                                  .arg(id)
                                  .arg(toQString(core::toString(info->status)));
                    continue;
                }
                loaded.runs.push_back({*info, store.loadRun(id), store.costVariants(id)});
            } catch (const std::exception& e) {
                errors << toQString(e.what());
            }
        }
    } catch (const std::exception& e) {
        errors << toQString(e.what());
    }
    loaded.error = errors.join(QLatin1Char('\n'));
    return loaded;
}

RunCompareDialog::RunCompareDialog(Loaded loaded, QWidget* parent)
    : QDialog(parent)
    , m_runs(std::move(loaded.runs))
    , m_error(std::move(loaded.error))
{
    build();
}

RunCompareDialog::RunCompareDialog(const QString& databasePath, const QList<qint64>& runIds, QWidget* parent)
    : RunCompareDialog(loadRuns(databasePath, runIds), parent)
{
}

RunCompareDialog::RunCompareDialog(std::vector<Run> runs, QWidget* parent)
    : QDialog(parent)
    , m_runs(std::move(runs))
{
    build();
}

void RunCompareDialog::build()
{
    // Opened from History, the parent's window sets the size; a 1000x760 dialog would overrun a 1024x700 screen.
    resize(fittedSizeOver(this, kRoomySize));
    std::vector<core::ComparedRun> compared;
    for (const Run& run : m_runs)
        compared.push_back({run.info, &run.result.summary, &run.result.requests, &run.costVariants});
    m_model = new RunCompareModel(core::compareRuns(compared), this);
    const core::RunComparison& comparison = m_model->comparison();
    setWindowTitle(windowTitleOf(comparison));

    auto* layout = new QVBoxLayout(this);
    m_errorLabel = new QLabel(m_error, this);
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTone(m_errorLabel, Tone::Error);
    m_errorLabel->setVisible(!m_error.isEmpty());
    layout->addWidget(m_errorLabel);

    // The answer first: which run is better here and why (or, for a real run and its model, the simulator's error),
    // in sentences computed from the numbers.
    QStringList sentences;
    for (const std::string& s : comparison.summary)
        sentences << toQString(s);
    m_summary = new QLabel(sentences.join(QLatin1Char('\n')), this);
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setVisible(!sentences.isEmpty());
    QFont larger = m_summary->font();
    larger.setPointSizeF(larger.pointSizeF() * 1.1);
    m_summary->setFont(larger);

    m_threshold = new QLabel(this);
    m_threshold->setWordWrap(true);
    setTone(m_threshold, Tone::Muted);
    if (m_model->runCount() > 1) {
        const QString first = toQString(comparison.titles[0]);
        m_threshold->setText(comparison.simulatorError ? simulatorErrorText(first, comparison.pairs)
                                                       : thresholdText(first));
    }
    m_threshold->setVisible(!m_threshold->text().isEmpty());

    // The answer and how to read it sit in a pane of their own above the table: a real run's sentences and note took
    // half of a 1024x700 dialog, leaving the table eight rows. The pane takes what it needs up to a third of the
    // height, scrolling past that, until the split is dragged (fitSplit).
    m_headerPane = new QScrollArea(this);
    m_headerPane->setObjectName(QStringLiteral("compareHeaderPane"));
    m_headerPane->setWidgetResizable(true);
    m_headerPane->setFrameShape(QFrame::NoFrame);
    m_headerPane->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_header = new QWidget(m_headerPane);
    auto* headerLayout = new QVBoxLayout(m_header);
    headerLayout->setContentsMargins(0, 0, 0, 0);
    m_summary->setParent(m_header);
    m_threshold->setParent(m_header);
    headerLayout->addWidget(m_summary);
    headerLayout->addWidget(m_threshold);
    headerLayout->addStretch(1);
    m_headerPane->setWidget(m_header);
    m_headerPane->setMinimumHeight(2 * fontMetrics().lineSpacing());
    m_headerPane->setVisible(!m_summary->isHidden() || !m_threshold->isHidden());

    // The table and the distributions each get the whole height: at 680x440 they would not read one above the
    // other.
    m_tabs = new QTabWidget(this);
    m_table = new QTableView(m_tabs);
    m_table->setModel(m_model);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    // Rows a line of text high, as the Lab's table: the style's default (30 px here) left a 1024x700 dialog ten rows.
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->setWordWrap(false);
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->isGroupRow(r))
            m_table->setSpan(r, 0, 1, m_model->columnCount());
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // A real run and its model: two values, then the error and what compare-real kept beside it, whose texts must
    // read whole ("−28.66 ms (−13.1%)", "−21.9% to +1.1%"); the two values take the room left.
    if (comparison.simulatorError)
        for (int c = m_model->deltaColumn(1); c < m_model->columnCount(); ++c)
            m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_tabs->addTab(m_table, tr("Metrics"));
    buildCharts();
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_headerPane);
    m_split->addWidget(m_tabs);
    m_split->setChildrenCollapsible(false);
    m_split->setStretchFactor(1, 1);
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_splitDragged = true; });
    layout->addWidget(m_split, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_exportReport = buttons->addButton(tr("Export Report…"), QDialogButtonBox::ActionRole);
    m_exportReport->setObjectName(QStringLiteral("exportCompareReport"));
    m_exportReport->setToolTip(tr("The first run's report with this comparison: HTML, PDF or Markdown"));
    m_exportReport->setVisible(false); // until the database is known (setDatabasePath)
    connect(m_exportReport, &QPushButton::clicked, this, [this] {
        QList<qint64> others;
        for (std::size_t i = 1; i < m_runs.size(); ++i)
            others << m_runs[i].info.id;
        exportReportWithDialog(this, m_databasePath, m_runs.front().info.id, {}, others);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void RunCompareDialog::setDatabasePath(const QString& path)
{
    m_databasePath = path;
    m_exportReport->setVisible(!path.isEmpty() && m_runs.size() > 1);
}

QSize RunCompareDialog::initialSize(const QSize& window, const QSize& screen)
{
    return fittedSize(kRoomySize, window, screen);
}

QString RunCompareDialog::windowTitleOf(const core::RunComparison& comparison) const
{
    if (!comparison.simulatorError)
        return tr("Compare runs");
    const Run& real = m_runs[comparison.columns[0].front()];
    if (comparison.pairs > 1) {
        QStringList ids;
        for (std::size_t p = 0; p < comparison.pairs; ++p)
            ids << tr("#%1 and #%2")
                       .arg(m_runs[comparison.columns[0][p]].info.id)
                       .arg(m_runs[comparison.columns[1][p]].info.id);
        return tr("Simulator against %1 in %2 pairs (runs %3)")
            .arg(toQString(real.info.backend))
            .arg(comparison.pairs)
            .arg(ids.join(QStringLiteral(", ")));
    }
    return tr("Simulator against %1 (runs #%2 and #%3)")
        .arg(toQString(real.info.backend))
        .arg(real.info.id)
        .arg(m_runs[comparison.columns[1].front()].info.id);
}

void RunCompareDialog::buildCharts()
{
    QStringList names;
    for (const std::string& title : m_model->comparison().titles)
        names << toQString(title);
    // A curve per column: the requests of all its runs (a pair's side: every real run's, every simulated run's).
    std::vector<std::vector<double>> ttft, tpot;
    for (const auto& column : m_model->comparison().columns) {
        auto& t = ttft.emplace_back();
        auto& p = tpot.emplace_back();
        for (std::size_t i : column)
            for (const core::RequestMetrics& r : m_runs[i].result.requests) {
                t.push_back(core::toMilliseconds(r.ttft()));
                if (r.tpot() >= 0)
                    p.push_back(core::toMilliseconds(r.tpot()));
            }
    }
    // Side by side where they are wide enough to read, one above the other (scrolling) where not.
    auto* scroll = new QScrollArea(m_tabs);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget(scroll);
    m_chartGrid = new QGridLayout(content);
    m_chartGrid->setContentsMargins(0, 0, 0, 0);
    m_ttftChart = makeCompareCdfChart(tr("TTFT CDF"), tr("TTFT"), names, ttft, content);
    m_tpotChart = makeCompareCdfChart(tr("TPOT CDF"), tr("TPOT"), names, tpot, content);
    for (ChartView* view : {m_ttftChart, m_tpotChart})
        view->setMinimumHeight(280);
    scroll->setWidget(content);
    m_tabs->addTab(scroll, tr("Latency distributions"));
    layoutCharts();
}

void RunCompareDialog::layoutCharts()
{
    const bool sideBySide = width() >= kSideBySideWidth;
    // Only when the arrangement flips: taking both charts out and back on every resize event laid them out again
    // at each step of a drag.
    if (m_sideBySide == sideBySide)
        return;
    m_sideBySide = sideBySide;
    m_chartGrid->removeWidget(m_ttftChart);
    m_chartGrid->removeWidget(m_tpotChart);
    m_chartGrid->addWidget(m_ttftChart, 0, 0);
    m_chartGrid->addWidget(m_tpotChart, sideBySide ? 0 : 1, sideBySide ? 1 : 0);
}

void RunCompareDialog::fitSplit()
{
    if (m_splitDragged || m_headerPane->isHidden())
        return;
    const int total = m_split->height() - m_split->handleWidth();
    const int width = m_headerPane->viewport()->width();
    const int needed = m_header->hasHeightForWidth() ? m_header->heightForWidth(width) : m_header->sizeHint().height();
    const int top = std::max(m_headerPane->minimumHeight(), std::min(needed, total / 3));
    m_split->setSizes({top, std::max(0, total - top)});
}

bool RunCompareDialog::headerScrolls() const
{
    return m_header->height() > m_headerPane->viewport()->height();
}

void RunCompareDialog::resizeEvent(QResizeEvent* event)
{
    QDialog::resizeEvent(event);
    layoutCharts();
    fitSplit();
}

void RunCompareDialog::showEvent(QShowEvent* event)
{
    QDialog::showEvent(event);
    fitSplit();
}

} // namespace coh::ui
