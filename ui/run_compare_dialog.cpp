#include "ui/run_compare_dialog.h"

#include "ui/qt_text.h"

#include <QChart>
#include <QChartView>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace coh::ui {

namespace {

enum class Better { Lower, Higher, Neutral };

struct MetricRow {
    const char* label;
    Better better;
    int decimals;
    double (*value)(const core::RunSummary&);
};

// The label is translated in the dialog's context (tr(row.label)); the macro only marks it for lupdate.
#define COH_METRIC(text) QT_TRANSLATE_NOOP("RunCompareDialog", text)

const std::vector<MetricRow>& metricRows()
{
    using S = core::RunSummary;
    using enum Better;
    static const std::vector<MetricRow> rows = {
        {COH_METRIC("Requests"), Neutral, 0, [](const S& s) { return double(s.requests); }},
        {COH_METRIC("Completed"), Higher, 0, [](const S& s) { return double(s.completed); }},
        {COH_METRIC("TTFT p50 (ms)"), Lower, 3, [](const S& s) { return s.ttftMs.p50; }},
        {COH_METRIC("TTFT p90 (ms)"), Lower, 3, [](const S& s) { return s.ttftMs.p90; }},
        {COH_METRIC("TTFT p99 (ms)"), Lower, 3, [](const S& s) { return s.ttftMs.p99; }},
        {COH_METRIC("TPOT p50 (ms)"), Lower, 3, [](const S& s) { return s.tpotMs.p50; }},
        {COH_METRIC("TPOT p90 (ms)"), Lower, 3, [](const S& s) { return s.tpotMs.p90; }},
        {COH_METRIC("TPOT p99 (ms)"), Lower, 3, [](const S& s) { return s.tpotMs.p99; }},
        {COH_METRIC("E2E p50 (ms)"), Lower, 3, [](const S& s) { return s.e2eMs.p50; }},
        {COH_METRIC("E2E p90 (ms)"), Lower, 3, [](const S& s) { return s.e2eMs.p90; }},
        {COH_METRIC("E2E p99 (ms)"), Lower, 3, [](const S& s) { return s.e2eMs.p99; }},
        {COH_METRIC("KV transfer p50 (ms)"), Lower, 3, [](const S& s) { return s.transferMs.p50; }},
        {COH_METRIC("KV transfer p99 (ms)"), Lower, 3, [](const S& s) { return s.transferMs.p99; }},
        {COH_METRIC("Throughput (tokens/s)"), Higher, 1, [](const S& s) { return s.throughputTokensPerSec; }},
        {COH_METRIC("Throughput (requests/s)"), Higher, 3, [](const S& s) { return s.throughputRequestsPerSec; }},
        {COH_METRIC("Goodput (requests/s)"), Higher, 3, [](const S& s) { return s.goodputRequestsPerSec; }},
        {COH_METRIC("SLO attainment (%)"), Higher, 1, [](const S& s) { return 100.0 * s.sloAttainment; }},
        {COH_METRIC("Makespan (s)"), Lower, 3, [](const S& s) { return core::toSeconds(s.makespan); }},
        {COH_METRIC("Messages"), Lower, 0, [](const S& s) { return double(s.messages); }},
        {COH_METRIC("Control bytes"), Lower, 0, [](const S& s) { return s.controlBytes; }},
        {COH_METRIC("Data bytes"), Lower, 0, [](const S& s) { return s.dataBytes; }},
        {COH_METRIC("KV transfers"), Neutral, 0, [](const S& s) { return double(s.kvTransfers); }},
        {COH_METRIC("Invalidations"), Lower, 0, [](const S& s) { return double(s.invalidations); }},
        {COH_METRIC("Upgrades"), Lower, 0, [](const S& s) { return double(s.upgrades); }},
        {COH_METRIC("Write-backs"), Lower, 0, [](const S& s) { return double(s.writebacks); }},
        {COH_METRIC("Bias flips"), Lower, 0, [](const S& s) { return double(s.biasFlips); }},
        {COH_METRIC("Migrations"), Lower, 0, [](const S& s) { return double(s.migrations); }},
        {COH_METRIC("TPOT transfer (ms/token)"), Lower, 4, [](const S& s) { return s.tpotTransferMs.mean; }},
        {COH_METRIC("TPOT coherence stall (ms/token)"), Lower, 4, [](const S& s) { return s.tpotStallMs.mean; }},
        {COH_METRIC("Stale block reads"), Lower, 0, [](const S& s) { return double(s.staleness.staleReads); }},
        {COH_METRIC("Reads that waited (staleness bound)"), Lower, 0,
         [](const S& s) { return double(s.staleness.readerWaits); }},
        {COH_METRIC("Prompt tokens from the prefix pool (%)"), Higher, 1,
         [](const S& s) {
             const auto& p = s.prefixPool;
             return p.promptTokens ? 100.0 * static_cast<double>(p.hitTokens) / static_cast<double>(p.promptTokens)
                                   : 0.0;
         }},
    };
    return rows;
}

#undef COH_METRIC

// At most this many points per CDF series: enough to look smooth, few enough to draw at once.
constexpr std::size_t kMaxCdfPoints = 400;

QList<QPointF> cdfPoints(std::vector<double> values)
{
    QList<QPointF> points;
    if (values.empty())
        return points;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    const std::size_t step = std::max<std::size_t>(1, n / kMaxCdfPoints);
    for (std::size_t i = 0; i < n; i += step)
        points.append(QPointF(values[i], double(i + 1) / double(n)));
    if (points.last().y() < 1.0)
        points.append(QPointF(values.back(), 1.0));
    return points;
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
                loaded.runs.push_back({*info, store.loadRun(id)});
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
    setWindowTitle(tr("Compare runs"));
    resize(1000, 720);
    auto* layout = new QVBoxLayout(this);
    m_errorLabel = new QLabel(m_error, this);
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_errorLabel->setVisible(!m_error.isEmpty());
    layout->addWidget(m_errorLabel);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(splitter);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    fillTable();
    auto* charts = new QSplitter(Qt::Horizontal, splitter);
    m_ttftChart = makeCdfChart(tr("TTFT CDF"), false);
    m_tpotChart = makeCdfChart(tr("TPOT CDF"), true);
    charts->addWidget(m_ttftChart);
    charts->addWidget(m_tpotChart);
    splitter->addWidget(m_table);
    splitter->addWidget(charts);
    splitter->setSizes({420, 320});
    layout->addWidget(splitter, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void RunCompareDialog::fillTable()
{
    const auto& rows = metricRows();
    const int columns = static_cast<int>(m_runs.size());
    m_table->setRowCount(static_cast<int>(rows.size()) + 1);
    m_table->setColumnCount(columns);
    QStringList headers;
    for (const Run& run : m_runs)
        headers << tr("#%1 %2").arg(run.info.id).arg(toQString(run.info.name));
    m_table->setHorizontalHeaderLabels(headers);

    QStringList rowLabels{tr("Protocol")};
    for (int c = 0; c < columns; ++c)
        m_table->setItem(0, c, new QTableWidgetItem(toQString(m_runs[std::size_t(c)].result.summary.protocol)));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const MetricRow& row = rows[r];
        rowLabels << tr(row.label);
        std::vector<double> values;
        for (const Run& run : m_runs)
            values.push_back(row.value(run.result.summary));
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        const bool differ = !values.empty() && *lo != *hi;
        for (int c = 0; c < columns; ++c) {
            const double v = values[std::size_t(c)];
            auto* item = new QTableWidgetItem(QLocale().toString(v, 'f', row.decimals));
            item->setData(Qt::UserRole, v);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            // Only highlight when the runs differ: a tie has no winner worth pointing at.
            const bool best =
                differ && ((row.better == Better::Lower && v == *lo) || (row.better == Better::Higher && v == *hi));
            if (best) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
                item->setBackground(QColor(46, 204, 113, 90));
                item->setToolTip(tr("best of the compared runs"));
            }
            item->setData(Qt::UserRole + 1, best);
            m_table->setItem(static_cast<int>(r) + 1, c, item);
        }
    }
    m_table->setVerticalHeaderLabels(rowLabels);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
}

QChartView* RunCompareDialog::makeCdfChart(const QString& title, bool tpot)
{
    auto* chart = new QChart();
    chart->setTitle(title);
    auto* x = new QValueAxis(chart);
    x->setTitleText(tr("ms"));
    auto* y = new QValueAxis(chart);
    y->setRange(0.0, 1.0);
    y->setTitleText(tr("fraction of requests"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double maxX = 0;
    for (const Run& run : m_runs) {
        std::vector<double> values;
        values.reserve(run.result.requests.size());
        for (const core::RequestMetrics& r : run.result.requests) {
            const core::SimTime t = tpot ? r.tpot() : r.ttft();
            if (r.finish > 0 && t >= 0)
                values.push_back(double(t) * 1e-6);
        }
        auto* series = new QLineSeries(chart);
        series->setName(tr("#%1 %2").arg(run.info.id).arg(toQString(run.info.name)));
        const QList<QPointF> points = cdfPoints(std::move(values));
        if (!points.isEmpty())
            maxX = std::max(maxX, points.last().x());
        series->replace(points);
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    x->setRange(0.0, maxX > 0 ? maxX : 1.0);
    auto* view = new QChartView(chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    return view;
}

} // namespace coh::ui
