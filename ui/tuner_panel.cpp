#include "ui/tuner_panel.h"

#include "core/base/input_error.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/run_options.h"
#include "core/store/run_store.h"
#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"
#include "core/tune/study_parser.h"
#include "core/tune/study_runner.h"
#include "ui/chart_view.h"
#include "ui/parallel_coordinates.h"
#include "ui/study_parallel.h"

#include <QAreaSeries>

#include <QChart>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::ui {

namespace {

QString metricLabel(const core::MetricInfo& m)
{
    return QStringLiteral("%1 (%2)").arg(QString::fromUtf8(m.name), QString::fromUtf8(m.unit));
}

QString valueText(const nlohmann::json& v)
{
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_number_float())
        return QString::number(v.get<double>(), 'g', 4);
    return QString::fromStdString(v.dump());
}

// The points a scatter shows: full-workload runs that have metrics (not a screening run, not a capacity probe).
bool shown(const core::PointOutcome& p)
{
    return p.measured() && p.requests == 0 && !p.probe;
}

} // namespace

TunerPanel::TunerPanel(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("tunerPanel"));
    m_new = new QPushButton(tr("New Study…"), this);
    m_new->setToolTip(tr("Build a study over the open scenario: fields to vary, objectives, constraints, strategy"));
    m_open = new QPushButton(tr("Open Study…"), this);
    m_run = new QPushButton(tr("Run Study"), this);
    m_stop = new QPushButton(tr("Cancel"), this);
    m_apply = new QPushButton(tr("Apply Best"), this);
    m_apply->setToolTip(tr("Write the best point under the constraints into the current scenario (one undo step)"));
    m_title = new QLabel(tr("No study: open a study file (datasets/studies/, docs/tuning.md)."), this);
    m_title->setTextFormat(Qt::RichText);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(false);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_x = new QComboBox(this);
    m_y = new QComboBox(this);
    for (const auto& m : core::metricCatalog()) {
        m_x->addItem(metricLabel(m), QString::fromUtf8(m.name));
        m_y->addItem(metricLabel(m), QString::fromUtf8(m.name));
    }
    for (QComboBox* box : {m_x, m_y}) {
        // Sized by a short metric name, not the longest: the tab fits a 1024-pixel window.
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(16);
    }
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_new);
    controls->addWidget(m_open);
    controls->addWidget(m_run);
    controls->addWidget(m_stop);
    controls->addWidget(m_apply);
    controls->addWidget(m_progress, 1);
    auto* axes = new QHBoxLayout;
    axes->addWidget(new QLabel(tr("X"), this));
    axes->addWidget(m_x, 1);
    axes->addWidget(new QLabel(tr("Y"), this));
    axes->addWidget(m_y, 1);

    m_chart = new ChartView(tr("Points"), this);
    // Under the points: where the shown metrics meet their SLOs and constraints.
    m_region = new QAreaSeries(new QLineSeries(this), new QLineSeries(this));
    m_region->setName(tr("meets the SLOs and constraints"));
    m_chart->chart()->addSeries(m_region);
    // After addSeries, which gives a series the theme's colours: a faint wash the points stay readable on.
    m_region->setPen(Qt::NoPen);
    m_region->setBrush(QColor(46, 125, 50, 40));
    m_points = new QScatterSeries;
    m_points->setName(tr("points"));
    m_points->setMarkerSize(7);
    m_feasible = new QScatterSeries;
    m_feasible->setName(tr("meet the constraints"));
    m_feasible->setMarkerSize(9);
    m_front = new QScatterSeries;
    m_front->setName(tr("Pareto front"));
    m_front->setMarkerSize(13);
    for (QScatterSeries* s : {m_points, m_feasible, m_front}) {
        m_chart->chart()->addSeries(s);
        connect(s, &QScatterSeries::clicked, this, [this](const QPointF& at) {
            // The run of the point clicked: the nearest shown point's.
            const auto& points = m_result ? m_result->points : m_live;
            const int xi = metricIndex(m_x), yi = metricIndex(m_y);
            double best = std::numeric_limits<double>::infinity();
            std::optional<std::int64_t> run;
            for (const auto& p : points) {
                if (!shown(p) || !p.runId)
                    continue;
                const double d = std::hypot(p.metrics[static_cast<std::size_t>(xi)] - at.x(),
                                            p.metrics[static_cast<std::size_t>(yi)] - at.y());
                if (d < best) {
                    best = d;
                    run = p.runId;
                }
            }
            if (run)
                emit openRunRequested(*run);
        });
    }
    m_xSlo = new QLineSeries;
    m_ySlo = new QLineSeries;
    for (QLineSeries* line : {m_xSlo, m_ySlo}) {
        QPen pen(QColor(0xc6, 0x28, 0x28));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
        m_chart->chart()->addSeries(line);
    }
    m_xSlo->setName(tr("SLO"));
    m_ySlo->setName(tr("SLO"));
    auto* xAxis = new QValueAxis;
    auto* yAxis = new QValueAxis;
    m_chart->chart()->addAxis(xAxis, Qt::AlignBottom);
    m_chart->chart()->addAxis(yAxis, Qt::AlignLeft);
    for (QAbstractSeries* s :
         std::initializer_list<QAbstractSeries*>{m_region, m_points, m_feasible, m_front, m_xSlo, m_ySlo}) {
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    }
    m_chart->restyle();
    hideSecondSloMarker();
    m_chart->setEmptyText(tr("Open a study and run it: its points appear here as they finish."));

    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->hide();
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        bool ok = false;
        const qint64 id = m_table->item(row, 0)->text().toLongLong(&ok);
        if (ok)
            emit openRunRequested(id);
    });

    m_parallel = new ParallelCoordinatesView(this);
    m_parallelHint = new QLabel(this);
    m_parallelHint->setWordWrap(true);
    connect(m_parallel, &ParallelCoordinatesView::lineClicked, this, &TunerPanel::openRunRequested);
    connect(m_parallel, &ParallelCoordinatesView::brushesChanged, this, [this](int passing) {
        m_parallelHint->setText(
            tr("<span style='color:%1'>━</span> front · <span style='color:%2'>━</span> meet the constraints · "
               "%3 of %4 shown · drag along an axis to keep a range, click a line to open its run")
                .arg(m_parallel->frontColor().name(), m_parallel->feasibleColor().name())
                .arg(passing)
                .arg(m_parallel->lines().size()));
    });
    auto* parallelPage = new QWidget(this);
    auto* parallelLayout = new QVBoxLayout(parallelPage);
    parallelLayout->setContentsMargins(0, 0, 0, 0);
    parallelLayout->addWidget(m_parallel, 1);
    parallelLayout->addWidget(m_parallelHint);
    m_pointViews = new QTabWidget(this);
    m_pointViews->setDocumentMode(true);
    m_pointViews->addTab(m_table, tr("Table"));
    m_pointViews->addTab(parallelPage, tr("Parallel coordinates"));

    m_chart->setMinimumHeight(170);
    m_pointViews->setMinimumHeight(170);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_pointViews);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    split->setSizes({600, 300}); // the scatter first: the table scrolls
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_title);
    layout->addWidget(m_status);
    layout->addLayout(axes);
    layout->addWidget(split, 1);

    connect(m_new, &QPushButton::clicked, this, &TunerPanel::openBuilder);
    connect(m_open, &QPushButton::clicked, this, &TunerPanel::chooseStudy);
    connect(m_run, &QPushButton::clicked, this, &TunerPanel::run);
    connect(m_stop, &QPushButton::clicked, this, &TunerPanel::cancel);
    connect(m_apply, &QPushButton::clicked, this, &TunerPanel::applyBestRequested);
    connect(m_x, &QComboBox::currentIndexChanged, this, &TunerPanel::redraw);
    connect(m_y, &QComboBox::currentIndexChanged, this, &TunerPanel::redraw);
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &TunerPanel::onFinished);
    updateButtons();
}

TunerPanel::~TunerPanel()
{
    // The study's thread reports to this panel: stop it and wait, so nothing arrives after the panel is gone.
    m_cancel = true;
    m_watcher.waitForFinished();
}

void TunerPanel::setDatabasePath(const QString& path)
{
    m_databasePath = path;
}

bool TunerPanel::isRunning() const
{
    return m_watcher.isRunning();
}

int TunerPanel::metricIndex(const QComboBox* box) const
{
    return std::max(0, box->currentIndex());
}

void TunerPanel::chooseStudy()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Study"), QString::fromLatin1(COH_DATASETS_DIR "/studies"), tr("Study files (*.json)"));
    if (!path.isEmpty())
        openStudy(path);
}

bool TunerPanel::openStudy(const QString& path)
{
    if (isRunning())
        return false;
    try {
        m_study = std::make_unique<core::StudySpec>(core::loadStudyFile(path.toStdString()));
    } catch (const core::InputError& e) {
        m_study.reset();
        m_title->setText(tr("%1 cannot be read").arg(QFileInfo(path).fileName()));
        m_status->setText(QString::fromStdString(e.what()));
        updateButtons();
        return false;
    }
    m_result.reset();
    m_live.clear();
    m_sloTtftMs = m_sloTpotMs = 0;
    try {
        const core::Scenario base = core::parseScenario(m_study->baseScenario, m_study->scenarioPath);
        m_sloTtftMs = core::toMilliseconds(base.slo.ttft);
        m_sloTpotMs = core::toMilliseconds(base.slo.tpot);
    } catch (const std::exception&) {
        // the study reader has read it already; without it there are no SLO lines
    }
    // The name line stays one line; the description is the tooltip, so the scatter keeps its room.
    m_title->setText(tr("<b>%1</b> · %2 over %3 · %4 parameters, %5 objectives")
                         .arg(QString::fromStdString(m_study->name).toHtmlEscaped(),
                              QString::fromUtf8(core::toString(m_study->strategy.kind)),
                              QFileInfo(QString::fromStdString(m_study->scenarioPath)).fileName().toHtmlEscaped())
                         .arg(m_study->parameters.size())
                         .arg(m_study->objectives.size()));
    m_title->setToolTip(QString::fromStdString(m_study->description));
    m_status->setText(tr("Ready: Run Study runs it on every core and stores every point as a run; run it again to "
                         "resume."));
    // The first two objectives on the axes; with one, it against coherence bytes per token.
    const auto pick = [](QComboBox* box, const std::string& metric) {
        box->setCurrentIndex(std::max(0, box->findData(QString::fromStdString(metric))));
    };
    pick(m_x, m_study->objectives.size() > 1 ? m_study->objectives[1].metric : "coherence_bytes_per_token");
    pick(m_y, m_study->objectives.front().metric);
    fillTable();
    redraw();
    updateButtons();
    return true;
}

void TunerPanel::run()
{
    if (!m_study || isRunning())
        return;
    m_cancel = false;
    m_error.clear();
    m_result.reset();
    m_live.clear();
    m_progress->setRange(0, 0);
    m_status->setText(tr("Starting…"));
    auto study = std::make_shared<const core::StudySpec>(*m_study);
    m_pending = std::make_shared<core::StudyResult>();
    const std::string database = m_databasePath.toStdString();
    m_watcher.setFuture(QtConcurrent::run([this, study, result = m_pending, database] {
        core::EvaluatorOptions options;
        options.cancel = &m_cancel;
        options.progress = [this](const core::StudyProgress& p) {
            const QString text =
                tr("%1 of %2 points · %3 run, %4 from the store · %5 · %6 s%7")
                    .arg(p.done)
                    .arg(p.total)
                    .arg(p.ran)
                    .arg(p.cached)
                    .arg(QString::fromStdString(p.stage))
                    .arg(p.elapsedSeconds, 0, 'f', 0)
                    .arg(p.etaSeconds >= 0 ? tr(", about %1 s left").arg(p.etaSeconds, 0, 'f', 0) : QString());
            const int done = static_cast<int>(p.done), total = static_cast<int>(p.total);
            QMetaObject::invokeMethod(
                this, [this, text, done, total] { onProgress(text, done, total); }, Qt::QueuedConnection);
        };
        options.pointDone = [this](const core::PointOutcome& point) {
            QMetaObject::invokeMethod(
                this, [this, point] { onPoint(point); }, Qt::QueuedConnection);
        };
        try {
            std::unique_ptr<core::RunStore> store;
            if (!database.empty())
                store = std::make_unique<core::RunStore>(database);
            *result = core::runStudy(*study, store.get(), options);
        } catch (const core::RunCancelled&) {
            m_error = tr("Cancelled: the finished points are stored; run the study again to resume it.");
        } catch (const std::exception& e) {
            m_error = QString::fromStdString(e.what());
        }
    }));
    updateButtons();
}

void TunerPanel::cancel()
{
    m_cancel = true;
    m_status->setText(tr("Cancelling: the points running now stop; those finished stay stored…"));
}

void TunerPanel::onProgress(const QString& text, int done, int total)
{
    m_progress->setRange(0, std::max(total, done));
    m_progress->setValue(done);
    m_status->setText(text);
}

void TunerPanel::onPoint(const core::PointOutcome& point)
{
    m_live.push_back(point);
    if (shown(point))
        redraw();
}

void TunerPanel::onFinished()
{
    // The thread has ended: its result and error are this thread's to read. Queued, so that the points it reported
    // before it ended are drawn first.
    if (m_error.isEmpty() && m_pending)
        m_result = std::make_unique<core::StudyResult>(std::move(*m_pending));
    m_pending.reset();
    QMetaObject::invokeMethod(
        this,
        [this] {
            const bool completed = m_error.isEmpty() && m_result;
            m_progress->setRange(0, 1);
            m_progress->setValue(1);
            if (completed) {
                m_status->setText(tr("%1 points: %2 run, %3 from the store, %4 invalid, %5 excluded; %6 meet the "
                                     "constraints, %7 on the Pareto front; %8 s")
                                      .arg(m_result->points.size())
                                      .arg(m_result->ran)
                                      .arg(m_result->cached)
                                      .arg(m_result->invalid)
                                      .arg(m_result->excluded)
                                      .arg(m_result->feasible.size())
                                      .arg(m_result->front.size())
                                      .arg(m_result->wallSeconds, 0, 'f', 1));
                m_live.clear();
            } else {
                m_status->setText(m_error);
            }
            fillTable();
            redraw();
            updateButtons();
            emit finished(completed);
        },
        Qt::QueuedConnection);
}

void TunerPanel::redraw()
{
    const auto& points = m_result ? m_result->points : m_live;
    const auto xi = static_cast<std::size_t>(metricIndex(m_x)), yi = static_cast<std::size_t>(metricIndex(m_y));
    QList<QPointF> all, feasible, front;
    const auto contains = [](const std::vector<std::size_t>& list, std::size_t i) {
        return std::find(list.begin(), list.end(), i) != list.end();
    };
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (!shown(p))
            continue;
        const QPointF at(p.metrics[xi], p.metrics[yi]);
        x0 = std::min(x0, at.x());
        x1 = std::max(x1, at.x());
        y0 = std::min(y0, at.y());
        y1 = std::max(y1, at.y());
        if (m_result && contains(m_result->front, i))
            front.append(at);
        else if (m_result && contains(m_result->feasible, i))
            feasible.append(at);
        else
            all.append(at);
    }
    m_points->replace(all);
    m_feasible->replace(feasible);
    m_front->replace(front);
    if (all.isEmpty() && feasible.isEmpty() && front.isEmpty()) {
        m_chart->setEmptyText(m_study ? tr("No point measured yet.")
                                      : tr("Open a study and run it: its points appear here as they finish."));
        return;
    }
    m_chart->setEmptyText({});
    const auto pad = [](double lo, double hi) {
        const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1.0);
        return std::pair{lo - span * 0.06, hi + span * 0.06};
    };
    // The SLO a metric is held to, when the axis shows a TTFT, a TPOT or a token gap: drawn as a dashed line, and
    // kept in view.
    const auto sloOf = [this](const QComboBox* box) {
        const QString metric = box->currentData().toString();
        if (metric.startsWith(QStringLiteral("ttft_")))
            return m_sloTtftMs;
        if (metric.startsWith(QStringLiteral("tpot_")) || metric.startsWith(QStringLiteral("itl_")))
            return m_sloTpotMs;
        return 0.0;
    };
    const double xSlo = sloOf(m_x), ySlo = sloOf(m_y);
    if (xSlo > 0) {
        x0 = std::min(x0, xSlo);
        x1 = std::max(x1, xSlo);
    }
    if (ySlo > 0) {
        y0 = std::min(y0, ySlo);
        y1 = std::max(y1, ySlo);
    }
    const auto [xa, xb] = pad(x0, x1);
    const auto [ya, yb] = pad(y0, y1);
    auto* xAxis = qobject_cast<QValueAxis*>(m_chart->chart()->axes(Qt::Horizontal).front());
    auto* yAxis = qobject_cast<QValueAxis*>(m_chart->chart()->axes(Qt::Vertical).front());
    // No negative latencies or bytes below a range that starts at or above zero.
    xAxis->setRange(x0 >= 0 ? std::max(0.0, xa) : xa, xb);
    yAxis->setRange(y0 >= 0 ? std::max(0.0, ya) : ya, yb);
    xAxis->applyNiceNumbers();
    yAxis->applyNiceNumbers();
    // Across the whole plot, as the axes ended up.
    m_xSlo->replace(xSlo > 0 ? QList<QPointF>{{xSlo, yAxis->min()}, {xSlo, yAxis->max()}} : QList<QPointF>{});
    m_ySlo->replace(ySlo > 0 ? QList<QPointF>{{xAxis->min(), ySlo}, {xAxis->max(), ySlo}} : QList<QPointF>{});
    shadeCompliantRegion(xSlo, ySlo);
    xAxis->setTitleText(m_x->currentText());
    yAxis->setTitleText(m_y->currentText());
    m_chart->restyle();
    hideSecondSloMarker();
}

void TunerPanel::shadeCompliantRegion(double xSlo, double ySlo)
{
    auto* xAxis = qobject_cast<QValueAxis*>(m_chart->chart()->axes(Qt::Horizontal).front());
    auto* yAxis = qobject_cast<QValueAxis*>(m_chart->chart()->axes(Qt::Vertical).front());
    // Per axis, the interval its metric must lie in: at most its SLO, and within the study's constraints on it.
    const auto bounds = [this](const QComboBox* box, double slo, double lo, double hi) {
        bool bounded = slo > 0;
        if (slo > 0)
            hi = std::min(hi, slo);
        const std::string metric = box->currentData().toString().toStdString();
        if (m_study)
            for (const core::Constraint& c : m_study->constraints) {
                if (c.metric != metric)
                    continue;
                bounded = true;
                if (c.min)
                    lo = std::max(lo, *c.min);
                if (c.max)
                    hi = std::min(hi, *c.max);
            }
        return std::tuple{bounded, lo, hi};
    };
    const auto [xBounded, x0, x1] = bounds(m_x, xSlo, xAxis->min(), xAxis->max());
    const auto [yBounded, y0, y1] = bounds(m_y, ySlo, yAxis->min(), yAxis->max());
    QList<QPointF> upper, lower;
    if ((xBounded || yBounded) && x0 < x1 && y0 < y1) {
        upper = {{x0, y1}, {x1, y1}};
        lower = {{x0, y0}, {x1, y0}};
    }
    m_region->upperSeries()->replace(upper);
    m_region->lowerSeries()->replace(lower);
    m_region->setVisible(!upper.isEmpty());
    for (QLegendMarker* marker : m_chart->chart()->legend()->markers(m_region))
        marker->setVisible(!upper.isEmpty());
}

void TunerPanel::hideSecondSloMarker()
{
    // One legend entry for both SLO lines (restyling shows every marker again).
    for (QLegendMarker* marker : m_chart->chart()->legend()->markers(m_ySlo))
        marker->setVisible(false);
}

void TunerPanel::fillTable()
{
    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setRowCount(0);
    m_parallel->setData({}, {});
    if (!m_study)
        return;
    QStringList header = {tr("run")};
    for (const auto& p : m_study->parameters)
        header << QString::fromStdString(p.pointer.substr(p.pointer.rfind('/') + 1));
    for (const auto& o : m_study->objectives)
        header << QString::fromStdString(o.metric) +
                      (o.direction == core::Direction::Minimize ? QStringLiteral(" ↓") : QStringLiteral(" ↑"));
    header << tr("feasible") << tr("front") << tr("note");
    m_table->setColumnCount(header.size());
    m_table->setHorizontalHeaderLabels(header);
    if (!m_result)
        return;
    const auto contains = [](const std::vector<std::size_t>& list, std::size_t i) {
        return std::find(list.begin(), list.end(), i) != list.end();
    };
    for (std::size_t i = 0; i < m_result->points.size(); ++i) {
        const auto& p = m_result->points[i];
        if (p.probe || p.requests != 0)
            continue; // screening runs and capacity probes are runs of History; the table lists the study's points
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        int column = 0;
        auto* id = new QTableWidgetItem;
        if (p.runId)
            id->setData(Qt::DisplayRole, static_cast<qlonglong>(*p.runId));
        m_table->setItem(row, column++, id);
        for (const auto& v : p.point.values)
            m_table->setItem(row, column++, new QTableWidgetItem(valueText(v)));
        for (const auto& o : m_study->objectives) {
            auto* item = new QTableWidgetItem;
            if (p.measured())
                item->setData(Qt::DisplayRole, core::metricValue(p, o.metric));
            m_table->setItem(row, column++, item);
        }
        m_table->setItem(row, column++, new QTableWidgetItem(contains(m_result->feasible, i) ? tr("yes") : tr("no")));
        m_table->setItem(row, column++, new QTableWidgetItem(contains(m_result->front, i) ? tr("yes") : QString()));
        m_table->setItem(row, column++, new QTableWidgetItem(QString::fromStdString(p.error)));
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    StudyParallelData parallel = studyParallelData(*m_study, *m_result);
    m_parallel->setKindColors(m_front->color(), m_feasible->color()); // as the scatter marks them
    m_parallel->setData(std::move(parallel.axes), std::move(parallel.lines));
}

void TunerPanel::updateButtons()
{
    const bool running = isRunning();
    m_progress->setVisible(running);
    m_open->setEnabled(!running);
    m_new->setEnabled(!running);
    m_run->setEnabled(m_study && !running);
    m_stop->setEnabled(running);
    m_apply->setEnabled(!running && m_study && m_result && m_result->best);
}

std::vector<std::pair<std::string, nlohmann::json>> TunerPanel::bestAssignments() const
{
    std::vector<std::pair<std::string, nlohmann::json>> out;
    if (!m_study || !m_result || !m_result->best)
        return out;
    const core::PointOutcome& best = m_result->points[*m_result->best];
    for (std::size_t i = 0; i < m_study->parameters.size() && i < best.point.values.size(); ++i)
        out.emplace_back(m_study->parameters[i].pointer, best.point.values[i]);
    for (const core::DerivedField& derived : m_study->derived)
        for (const auto& [pointer, value] : std::vector(out))
            if (pointer == derived.from)
                out.emplace_back(derived.pointer, value);
    return out;
}

} // namespace coh::ui
