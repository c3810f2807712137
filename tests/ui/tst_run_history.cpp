// The History tab over a temporary database of runs made with core: model contents (checked by
// QAbstractItemModelTester), rename and delete through the view, filtering, export, the compare dialog's
// table, and a corrupt database shown as core's error.
#include "core/compare/run_comparison.h"
#include "core/engine/traffic_counts.h"
#include "core/net/traffic_buckets.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/own_costs_text.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "core/workload/workload_builder.h"
#include "ui/backend_description.h"
#include "ui/chart_view.h"
#include "ui/main_actions.h"
#include "ui/metric_format.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_compare_model.h"
#include "ui/run_history_model.h"
#include "ui/run_history_widget.h"
#include "ui_checks.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QFile>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace coh;
using coh::ui::RunHistoryModel;
using coh::ui::RunHistoryWidget;

namespace {

// Runs the minimal fixture with `protocol` for 30 requests and stores it under `name`.
std::int64_t makeRun(core::RunStore& store, const std::string& name, const std::string& protocol)
{
    const std::string path = COH_TEST_DATA_DIR "/scenarios/minimal.json";
    std::ifstream in(path);
    nlohmann::json json = nlohmann::json::parse(in);
    json["workload"]["requests"] = 30;
    json["coherence"] = {{"decode", protocol}};
    const core::Scenario scenario = core::parseScenario(json, path);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    const auto id = store.beginRun(name, scenario.json, scenario.seed);
    store.completeRun(id, core::runScenario(scenario, workload));
    return id;
}

// Text items of a chart's scene that Qt Charts cut short with an ellipsis (axis labels, titles, legend).
QStringList elidedTexts(QChartView* view)
{
    QStringList out;
    const auto items = view->scene()->items();
    for (QGraphicsItem* item : items) {
        if (!item->isVisible())
            continue;
        QString text;
        if (auto* t = dynamic_cast<QGraphicsTextItem*>(item))
            text = t->toPlainText();
        else if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item))
            text = t->text();
        if (text.contains(QChar(0x2026)) || text.endsWith(QStringLiteral("...")))
            out << text;
    }
    return out;
}

// Clicks `button` of the next modal message box (the delete confirmation).
void answerNextMessageBox(QMessageBox::StandardButton button)
{
    QTimer::singleShot(0, [button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        QTest::mouseClick(box->button(button), Qt::LeftButton);
    });
}

} // namespace

class TstRunHistory : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("runs.db"));
        core::RunStore store(m_db.toStdString());
        m_alpha = makeRun(store, "alpha", "direct");
        m_beta = makeRun(store, "beta", "msi-directory");
        m_gamma = store.beginRun("gamma", "{}", 3);
        store.failRun(m_gamma, core::RunStatus::Failed, "trace file vanished");
    }

    void modelListsRunsNewestFirst()
    {
        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDatabasePath(m_db);
        QVERIFY(model.errorText().isEmpty());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(RunHistoryModel::ColumnCount));
        QCOMPARE(model.runId(0), m_gamma);
        QCOMPARE(model.runId(2), m_alpha);

        core::RunStore store(m_db.toStdString());
        const auto alpha = *store.runInfo(m_alpha);
        const int row = model.rowOfRun(m_alpha);
        QCOMPARE(model.index(row, RunHistoryModel::Name).data().toString(), QStringLiteral("alpha"));
        QCOMPARE(model.index(row, RunHistoryModel::Scenario).data().toString(), QStringLiteral("minimal"));
        QCOMPARE(model.index(row, RunHistoryModel::Status).data().toString(), QStringLiteral("completed"));
        QCOMPARE(model.index(row, RunHistoryModel::Requests).data().toULongLong(), 30u);
        QCOMPARE(model.index(row, RunHistoryModel::TtftP50).data(Qt::EditRole).toDouble(), alpha.ttftP50Ms);
        QCOMPARE(model.index(row, RunHistoryModel::TpotP99).data(Qt::EditRole).toDouble(), alpha.tpotP99Ms);
        QCOMPARE(model.index(row, RunHistoryModel::Throughput).data(Qt::EditRole).toDouble(),
                 alpha.throughputTokensPerSec);
        QCOMPARE(model.index(row, RunHistoryModel::TtftP50).data().toString(),
                 QLocale().toString(alpha.ttftP50Ms, 'f', 2));
        QVERIFY(alpha.ttftP50Ms > 0);

        // A failed run has no summary: blanks, and the reason as the status tooltip.
        const int failed = model.rowOfRun(m_gamma);
        QCOMPARE(model.index(failed, RunHistoryModel::Status).data().toString(), QStringLiteral("failed"));
        QVERIFY(!model.index(failed, RunHistoryModel::TtftP50).data().isValid());
        QCOMPARE(model.index(failed, RunHistoryModel::Status).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("trace file vanished"));
        QVERIFY(model.flags(model.index(0, RunHistoryModel::Name)) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(0, RunHistoryModel::Id)) & Qt::ItemIsEditable));
    }

    void renameThroughTheView()
    {
        RunHistoryWidget widget;
        widget.setDatabasePath(m_db);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.selectRun(m_alpha);
        QCOMPARE(widget.selectedRunIds(), QList<qint64>{m_alpha});
        widget.renameSelected();
        auto* editor = widget.view()->viewport()->findChild<QLineEdit*>();
        QVERIFY(editor);
        editor->selectAll();
        QTest::keyClicks(editor, QStringLiteral("alpha renamed"));
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_COMPARE(core::RunStore(m_db.toStdString()).runInfo(m_alpha)->name, std::string("alpha renamed"));
        const int row = widget.model()->rowOfRun(m_alpha);
        QCOMPARE(widget.model()->index(row, RunHistoryModel::Name).data().toString(), QStringLiteral("alpha renamed"));

        // A control character (a pasted tab) is refused, as cohsim's rename refuses it, saying so.
        QSignalSpy errors(widget.model(), &RunHistoryModel::errorChanged);
        QVERIFY(!widget.model()->setData(widget.model()->index(row, RunHistoryModel::Name), QStringLiteral("a\tb")));
        QCOMPARE(core::RunStore(m_db.toStdString()).runInfo(m_alpha)->name, std::string("alpha renamed"));
        QVERIFY(!errors.isEmpty());
        QVERIFY2(
            errors.last().at(0).toString().contains(QStringLiteral("control character")) &&
                errors.last().at(0).toString().contains(QStringLiteral("\u201calpha renamed\u201d keeps its name")),
            qPrintable(errors.last().at(0).toString()));
    }

    void filterMatchesAnyColumn()
    {
        RunHistoryWidget widget;
        widget.setDatabasePath(m_db);
        QCOMPARE(widget.proxy()->rowCount(), 3);
        QTest::keyClicks(widget.filterEdit(), QStringLiteral("beta"));
        QCOMPARE(widget.proxy()->rowCount(), 1);
        QCOMPARE(widget.proxy()->index(0, RunHistoryModel::Id).data(RunHistoryModel::RunIdRole).toLongLong(), m_beta);
        widget.filterEdit()->clear();
        QTest::keyClicks(widget.filterEdit(), QStringLiteral("FAILED"));
        QCOMPARE(widget.proxy()->rowCount(), 1);
        widget.filterEdit()->clear();
        QCOMPARE(widget.proxy()->rowCount(), 3);
    }

    void exportMatchesCohsimExport()
    {
        const QString csv = m_dir.filePath(QStringLiteral("beta.csv"));
        QString error;
        QVERIFY2(RunHistoryWidget::exportRun(m_db, m_beta, RunHistoryWidget::ExportFormat::RequestsCsv, csv, &error),
                 qPrintable(error));
        core::RunStore store(m_db.toStdString());
        std::ostringstream expected;
        core::writeRequestsCsv(expected, store.loadRun(m_beta));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), expected.str());
        QVERIFY(!RunHistoryWidget::exportRun(m_db, 9999, RunHistoryWidget::ExportFormat::Json, csv, &error));
        QVERIFY(error.contains(QStringLiteral("9999")));
    }

    void compareDialogShowsDeltasGroupsAndSummary()
    {
        ui::RunCompareDialog dialog(m_db, {m_alpha, m_beta});
        QVERIFY(dialog.errorText().isEmpty());
        const ui::RunCompareModel* model = dialog.model();
        QAbstractItemModelTester tester(const_cast<ui::RunCompareModel*>(model),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->runCount(), 2);
        QCOMPARE(model->columnCount(), 4); // metric, two values, one difference
        core::RunStore store(m_db.toStdString());
        const auto alpha = store.loadRun(m_alpha).summary;
        const auto beta = store.loadRun(m_beta).summary;

        // The columns are titled by what differs between the runs: the protocol, not "#2 alpha".
        QCOMPARE(model->headerData(model->valueColumn(0), Qt::Horizontal).toString(), QStringLiteral("direct"));
        QCOMPARE(model->headerData(model->valueColumn(1), Qt::Horizontal).toString(), QStringLiteral("msi-directory"));
        QCOMPARE(model->headerData(model->deltaColumn(1), Qt::Horizontal).toString(),
                 QStringLiteral("\u0394 msi-directory"));

        // Groups: what ran, latency, traffic and coherence (a protocol run is among them); no failures.
        for (const char* group : {"What ran", "Latency", "Throughput", "Traffic", "Coherence"}) {
            const int row = model->rowOf(QString::fromLatin1(group));
            QVERIFY2(row >= 0 && model->isGroupRow(row), group);
            QCOMPARE(dialog.metricsTable()->columnSpan(row, 0), model->columnCount());
        }
        QCOMPARE(model->rowOf(QStringLiteral("Failures")), -1);
        const int protocol = model->rowOf(QStringLiteral("Decode protocol"));
        QCOMPARE(model->index(protocol, model->valueColumn(1)).data().toString(), QStringLiteral("msi-directory"));

        // Values and deltas are the runs' own numbers, in the counts vocabulary.
        const int messages = model->rowOf(QStringLiteral("Messages"));
        const double a = double(core::trafficCounts(alpha).messages), b = double(core::trafficCounts(beta).messages);
        QCOMPARE(model->index(messages, model->valueColumn(0)).data(ui::RunCompareModel::ValueRole).toDouble(), a);
        QCOMPARE(model->index(messages, model->valueColumn(1)).data(ui::RunCompareModel::ValueRole).toDouble(), b);
        const QModelIndex delta = model->index(messages, model->deltaColumn(1));
        QCOMPARE(delta.data(ui::RunCompareModel::ValueRole).toDouble(), b - a);
        QVERIFY(b > a); // the protocol adds control messages to the plain copy
        QCOMPARE(delta.data(ui::RunCompareModel::VerdictRole).toInt(), int(core::Verdict::Worse));
        QCOMPARE(delta.data().toString(), ui::formatDelta(b - a, (b - a) / a, core::MetricUnit::Count));
        QVERIFY(delta.data().toString().contains(QLatin1Char('%')));
        QVERIFY(delta.data(Qt::BackgroundRole).isValid()); // tinted: beyond the (exact) threshold

        // A latency within its threshold reads "about the same", untinted, and says the threshold on hover.
        const core::RunComparison& c = model->comparison();
        for (int row = 0; row < model->rowCount(); ++row) {
            const QModelIndex d = model->index(row, model->deltaColumn(1));
            if (d.data(ui::RunCompareModel::VerdictRole).toInt() != int(core::Verdict::Same))
                continue;
            QCOMPARE(d.data().toString(), QStringLiteral("about the same"));
            QVERIFY(!d.data(Qt::BackgroundRole).isValid());
            QVERIFY(d.data(Qt::ToolTipRole).toString().contains(QStringLiteral("within")));
        }

        // The summary opens the dialog, sentence by sentence from core's comparison.
        QVERIFY(dialog.summaryLabel()->isVisibleTo(&dialog));
        QCOMPARE(c.summary.size(), std::size_t{2});
        QVERIFY(dialog.summaryLabel()->text().startsWith(QStringLiteral("msi-directory against direct: ")));
        QVERIFY(dialog.thresholdLabel()->text().contains(QStringLiteral("1%")));

        for (ui::ChartView* view : {dialog.ttftChart(), dialog.tpotChart()}) {
            const auto series = view->chart()->series();
            QCOMPARE(series.size(), 2);
            const auto* first = qobject_cast<QLineSeries*>(series.at(0));
            QVERIFY(first && first->count() > 0);
            QCOMPARE(first->at(first->count() - 1).y(), 1.0); // a CDF ends at 1
            QCOMPARE(first->name(), QStringLiteral("direct"));
            QVERIFY(!view->isEmptyStateShown());
        }
    }

    void aDifferenceUnderWhatTheRowShowsIsAboutTheSame()
    {
        // The row: "TPOT coherence stall" 0.001 ms against 0.001 ms read "+0.000 ms (+6.3%)", tinted worse.
        core::RunSummary a, b;
        for (core::RunSummary* s : {&a, &b}) {
            s->requests = s->completed = 100;
            s->protocol = "msi-directory";
            s->messagesByKind = {{"Data", true, 100, 1e6, "data"}};
        }
        a.tpotStallMs.mean = 0.00094;
        b.tpotStallMs.mean = 0.001;
        core::ComparedRun ra, rb;
        ra.info.id = 1;
        rb.info.id = 2;
        ra.summary = &a;
        rb.summary = &b;
        ui::RunCompareModel model(core::compareRuns({ra, rb}));
        const int row = model.rowOf(QStringLiteral("TPOT coherence stall (mean per token)"));
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, model.valueColumn(0)).data().toString(), QStringLiteral("0.001 ms"));
        QCOMPARE(model.index(row, model.valueColumn(1)).data().toString(), QStringLiteral("0.001 ms"));
        const QModelIndex delta = model.index(row, model.deltaColumn(1));
        QCOMPARE(delta.data().toString(), QStringLiteral("about the same"));
        QCOMPARE(delta.data(ui::RunCompareModel::VerdictRole).toInt(), int(core::Verdict::Same));
        QVERIFY(!delta.data(Qt::BackgroundRole).isValid());
        QVERIFY2(delta.data(Qt::ToolTipRole).toString().contains(QStringLiteral("within ±0.010 ms")),
                 qPrintable(delta.data(Qt::ToolTipRole).toString()));

        // Core's display step is the view's last digit: under half of it a difference is written as zero, a whole
        // step is not.
        const auto nonZeroDigit = [](const QString& text) {
            return std::any_of(text.begin(), text.end(), [](QChar c) { return c.isDigit() && c != QLatin1Char('0'); });
        };
        using enum core::MetricUnit;
        for (const core::MetricUnit unit :
             {Milliseconds, Seconds, Count, Bytes, Percent, TokensPerSecond, RequestsPerSecond}) {
            const double step = core::displayStep(unit);
            const QString under = ui::formatDelta(0.49 * step, std::nan(""), unit);
            const QString whole = ui::formatDelta(step, std::nan(""), unit);
            QVERIFY2(!nonZeroDigit(under), qPrintable(under));
            QVERIFY2(nonZeroDigit(whole), qPrintable(whole));
        }

        // Pairs of a real run and its model: a count differing in one pair of three reads so, not "equal", though
        // the medians are equal; the error column's tooltip lists each pair's.
        std::vector<core::RunSummary> summaries(6);
        std::vector<core::ComparedRun> pairs;
        for (std::size_t i = 0; i < summaries.size(); ++i) {
            core::RunSummary& s = summaries[i];
            s.requests = s.completed = 100;
            s.protocol = "msi-directory";
            s.messagesByKind = {{"Data", true, 100, 1e6, "data"}};
            s.flows = 100;
            s.ttftMs.p50 = i % 2 ? 110 : 100; // +10% in every pair
            core::ComparedRun r;
            r.info.id = static_cast<std::int64_t>(i) + 1;
            r.info.backend = i % 2 ? "simulated" : "real-cpu";
            r.info.modelsRun = i % 2 ? static_cast<std::int64_t>(i) : 0;
            r.summary = &s;
            pairs.push_back(r);
        }
        summaries[3].flows = 101;
        ui::RunCompareModel paired(core::compareRuns(pairs));
        QCOMPARE(paired.runCount(), 2);
        const QModelIndex flows = paired.index(paired.rowOf(QStringLiteral("Network flows")), paired.deltaColumn(1));
        QCOMPARE(flows.data().toString(), QStringLiteral("differs in 1 of 3 pairs"));
        QCOMPARE(flows.data(ui::RunCompareModel::VerdictRole).toInt(), int(core::Verdict::Beyond));
        QVERIFY2(flows.data(Qt::ToolTipRole).toString().contains(QStringLiteral("equal, +1 (+1.0%), equal")),
                 qPrintable(flows.data(Qt::ToolTipRole).toString()));
        const QModelIndex ttft = paired.index(paired.rowOf(QStringLiteral("TTFT p50")), paired.deltaColumn(1));
        QVERIFY2(ttft.data(Qt::ToolTipRole).toString().contains(QStringLiteral("(+10.0%, +10.0%, +10.0%)")),
                 qPrintable(ttft.data(Qt::ToolTipRole).toString()));
        QCOMPARE(paired.index(paired.rowOf(QStringLiteral("Messages")), paired.deltaColumn(1)).data().toString(),
                 QStringLiteral("equal"));

        // The dialog states the rule with core's figures.
        ui::RunCompareDialog dialog(m_db, {m_alpha, m_beta});
        const QString rule = dialog.thresholdLabel()->text();
        QVERIFY2(rule.contains(QStringLiteral("within 1%")) && rule.contains(QStringLiteral("within 0.01 ms")) &&
                     rule.contains(QStringLiteral("last digit shown")),
                 qPrintable(rule));
    }

    void compareFromTheTabOpensTheDialogOnceTheRunsAreRead()
    {
        RunHistoryWidget widget;
        widget.setDatabasePath(m_db);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        for (qint64 id : {m_alpha, m_beta}) {
            const QModelIndex index =
                widget.proxy()->mapFromSource(widget.model()->index(widget.model()->rowOfRun(id), 0));
            widget.view()->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QCOMPARE(widget.selectedRunIds().size(), 2);
        QPushButton* compare = nullptr;
        for (QPushButton* b : widget.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Compare"))
                compare = b;
        QVERIFY(compare && compare->isEnabled());
        // The runs are read on a worker thread (Compare is disabled meanwhile; with two small runs that may be
        // over before the call returns): the dialog opens once they are.
        widget.compareSelected();
        QTRY_VERIFY(widget.findChild<ui::RunCompareDialog*>() != nullptr);
        auto* dialog = widget.findChild<ui::RunCompareDialog*>();
        QVERIFY(dialog->errorText().isEmpty());
        QCOMPARE(dialog->model()->runCount(), 2);
        QVERIFY(compare->isEnabled());
        dialog->close();
    }

    void compareRefusesRunsWithoutMetrics()
    {
        ui::RunCompareDialog dialog(m_db, {m_alpha, m_gamma});
        QVERIFY(dialog.errorText().contains(QStringLiteral("failed")));
        QCOMPARE(dialog.model()->runCount(), 1);
    }

    void deleteThroughTheViewAsksFirst()
    {
        RunHistoryWidget widget;
        widget.setDatabasePath(m_db);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.selectRun(m_gamma);
        auto* button = widget.findChild<QPushButton*>(); // any: find the Delete button by its text
        const auto buttons = widget.findChildren<QPushButton*>();
        for (QPushButton* b : buttons)
            if (b->text().startsWith(QStringLiteral("Delete")))
                button = b;
        QVERIFY(button && button->isEnabled());

        answerNextMessageBox(QMessageBox::Cancel);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(widget.model()->rowCount(), 3);

        answerNextMessageBox(QMessageBox::Yes);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(widget.model()->rowCount(), 2);
        QCOMPARE(widget.model()->rowOfRun(m_gamma), -1);
        QVERIFY(!core::RunStore(m_db.toStdString()).runInfo(m_gamma));
    }

    void aRunningRunCannotBeDeleted()
    {
        // Its worker still writes to it; deleting it would lose the run. The model refuses and says why.
        const qint64 running = core::RunStore(m_db.toStdString()).beginRun("busy", "{}", 4);
        RunHistoryModel model;
        model.setDatabasePath(m_db);
        QString error;
        QVERIFY(!model.deleteRun(running, &error));
        QVERIFY2(error.contains(QStringLiteral("still running")), qPrintable(error));
        QVERIFY(model.rowOfRun(running) >= 0);
        core::RunStore store(m_db.toStdString());
        QCOMPARE(store.runInfo(running)->status, core::RunStatus::Running);
        store.failRun(running, core::RunStatus::Cancelled, "test over");
        QVERIFY(model.deleteRun(running, &error));
    }

    void corruptDatabaseShowsCoreError()
    {
        const QString bad = m_dir.filePath(QStringLiteral("corrupt.db"));
        {
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray(8192, 'x'));
        }
        RunHistoryWidget widget;
        RunHistoryModel* model = widget.model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        widget.setDatabasePath(bad);
        QCOMPARE(model->rowCount(), 0);
        QVERIFY2(model->errorText().contains(QStringLiteral("corrupt.db")), qPrintable(model->errorText()));
        bool shown = false;
        const auto labels = widget.findChildren<QLabel*>();
        for (const QLabel* label : labels)
            shown = shown || (label->text() == model->errorText() && !label->isHidden());
        QVERIFY(shown);
        // Pointing it back at a good database clears the error.
        widget.setDatabasePath(m_db);
        QVERIFY(model->errorText().isEmpty());
        QVERIFY(model->rowCount() > 0);
    }

    void runDetailsShowWhatEachNodeRanOn()
    {
        // A real-cpu run and a simulated one of the same scenario, in a database of their own.
        const QString db = m_dir.filePath(QStringLiteral("backends.db"));
        std::ifstream in(COH_TEST_DATA_DIR "/scenarios/minimal.json");
        nlohmann::json json = nlohmann::json::parse(in);
        json["workload"]["requests"] = 3;
        const core::Scenario scenario = core::parseScenario(json, "minimal.json");
        const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
        core::RunStore store(db.toStdString());
        core::RunOptions real;
        real.backend.name = "real-cpu";
        real.backend.realCpu.arenaBytes = 1 << 20;
        const auto result = core::runAndStore(store, scenario, workload, real, "real");
        core::runAndStore(store, scenario, workload, {}, "simulated");
        const auto& mapping = result.summary.backend.mapping;
        QVERIFY(!mapping.empty());

        RunHistoryModel model;
        model.setDatabasePath(db);
        QCOMPARE(model.rowCount(), 2);
        // The details (shown below the list for the selected run): dozens of lines, past what a tooltip shows on a
        // 700-pixel screen, so the tooltip only points to them.
        const QString pointer = model.index(1, RunHistoryModel::Backend).data(Qt::ToolTipRole).toString();
        QVERIFY2(pointer.contains(QStringLiteral("below the list when it is selected")), qPrintable(pointer));
        QVERIFY2(pointer.size() < 200, qPrintable(pointer));
        const QString realTip = model.index(1, RunHistoryModel::Backend).data(RunHistoryModel::DetailsRole).toString();
        QVERIFY2(realTip.contains(QStringLiteral("<b>real-cpu</b>")), qPrintable(realTip));
        QVERIFY2(realTip.contains(QStringLiteral("%1 copies")
                                      .arg(QLocale().toString(static_cast<qulonglong>(result.summary.backend.copies)))),
                 qPrintable(realTip));
        QVERIFY(realTip.contains(QStringLiteral("Decode attention")));
        // What its decode steps checked and wrote, as the stored summary says.
        QVERIFY(result.summary.backend.blockReadsChecked > 0);
        QVERIFY2(realTip.contains(
                     QStringLiteral("%1 block reads checked against their stamps and seals")
                         .arg(QLocale().toString(static_cast<qulonglong>(result.summary.backend.blockReadsChecked)))),
                 qPrintable(realTip));
        // What its transfers carried: the sequences' rows, as many as its 1 MiB memories hold at once.
        const auto& b = result.summary.backend;
        QVERIFY(b.kvTransfersChecked > 0 && b.kvRowsCarried > 0);
        QVERIFY2(realTip.contains(QStringLiteral("<br>K/V carried: %1 transfers carried their sequence's first-layer "
                                                 "K/V rows for %2 of the %3 tokens")
                                      .arg(QLocale().toString(static_cast<qulonglong>(b.kvTransfersChecked)),
                                           QLocale().toString(static_cast<qulonglong>(b.kvRowsCarried)),
                                           QLocale().toString(static_cast<qulonglong>(b.kvRowsOffered)))),
                 qPrintable(realTip));
        // Its decode K/V pools, from the stored figures (1 MiB arenas: the pools start at 1 MiB).
        QVERIFY2(realTip.contains(QStringLiteral("<br>K/V pools: one per decode node")), qPrintable(realTip));
        QVERIFY2(realTip.contains(
                     QString::fromStdString(coh::core::describeKvPools(result.summary.backend)).toHtmlEscaped()),
                 qPrintable(realTip));
        // The costs it fitted over its own copies and steps, as stored.
        QVERIFY(b.copyFit.measured() && (b.attentionFit.measured() || b.attentionWarmFit.measured()));
        QVERIFY2(
            realTip.contains(
                QStringLiteral("<br>Own costs: %1")
                    .arg(QString::fromStdString(coh::core::describeOwnCosts(result.summary.backend)).toHtmlEscaped())),
            qPrintable(realTip));
        // Every node the run mapped, with the resource it ran on, as the stored summary says.
        for (const auto& m : mapping) {
            QVERIFY2(realTip.contains(QString::fromStdString(m.node).toHtmlEscaped()), qPrintable(realTip));
            QVERIFY2(realTip.contains(QString::fromStdString(m.resource).toHtmlEscaped()), qPrintable(realTip));
        }
        // History shows them below the list for the selected run, and nothing for two.
        RunHistoryWidget widget;
        widget.setDatabasePath(db);
        widget.selectRun(model.runId(1));
        const QString shown = widget.details()->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("K/V carried")), qPrintable(shown));
        QVERIFY2(shown.contains(QString::fromStdString(mapping.front().resource)), qPrintable(shown));
        widget.view()->selectAll();
        QVERIFY(widget.details()->toPlainText().isEmpty());
        // The backend sits beside the name, where a small screen still shows it.
        const QHeaderView* header = widget.view()->horizontalHeader();
        QCOMPARE(header->visualIndex(RunHistoryModel::Backend), header->visualIndex(RunHistoryModel::Name) + 1);
        const QString simTip = model.index(0, RunHistoryModel::Backend).data(Qt::ToolTipRole).toString();
        QVERIFY2(simTip.startsWith(QStringLiteral("<b>Simulated</b>")), qPrintable(simTip));
        QVERIFY(!simTip.contains(QStringLiteral("ran on")));
        // The roofline keeps no steps by traffic; a run on a profile does, and says so as a real run does.
        QVERIFY(!simTip.contains(QStringLiteral("Attention after traffic")));
        coh::core::BackendSummary onProfile;
        onProfile.name = "simulated";
        onProfile.calibratedProfile = "real-cpu";
        coh::core::addTrafficStep(onProfile.attentionByTraffic, 0, 4 << 20, 1e6);
        coh::core::addTrafficStep(onProfile.attentionByTraffic, 3 << 20, 4 << 20, 2e6);
        const ui::BackendFacts facts = ui::backendFacts(onProfile);
        QVERIFY(std::any_of(facts.lines.begin(), facts.lines.end(), [&](const auto& line) {
            return line.first == QStringLiteral("Attention after traffic") &&
                   line.second == QString::fromStdString(coh::core::describeAttentionByTraffic(onProfile));
        }));
    }

    void modelShowsWhatRanAndItsTraffic()
    {
        RunHistoryModel model;
        model.setDatabasePath(m_db);
        core::RunStore store(m_db.toStdString());
        const int beta = model.rowOfRun(m_beta);
        QCOMPARE(model.index(beta, RunHistoryModel::DecodeProtocol).data().toString(), QStringLiteral("msi-directory"));
        QCOMPARE(model.index(beta, RunHistoryModel::PrefillProtocol).data().toString(), QStringLiteral("direct"));
        QCOMPARE(model.index(beta, RunHistoryModel::TierProtocols).data().toString(), QString());
        // Read from the run, not assumed: the store records what executed it.
        QCOMPARE(model.index(beta, RunHistoryModel::Backend).data().toString(),
                 QString::fromStdString(store.runInfo(m_beta)->backend));
        QCOMPARE(model.index(beta, RunHistoryModel::Seed).data(Qt::EditRole).toULongLong(),
                 store.runInfo(m_beta)->seed);
        // Messages are the protocol's per block (the legend's sum); flows the network transfers.
        const auto summary = store.loadRun(m_beta).summary;
        const auto counts = core::trafficCounts(summary);
        QCOMPARE(model.index(beta, RunHistoryModel::Messages).data(Qt::EditRole).toULongLong(), counts.messages);
        QCOMPARE(model.index(beta, RunHistoryModel::Flows).data(Qt::EditRole).toULongLong(), counts.flows);
        QVERIFY(counts.messages > counts.flows);
        QCOMPARE(model.index(beta, RunHistoryModel::Messages).data().toString(),
                 QLocale().toString(static_cast<qulonglong>(counts.messages)));
        QVERIFY(!model.headerData(RunHistoryModel::Flows, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
        // A failed run has no traffic to show.
        QVERIFY(!model.index(model.rowOfRun(m_gamma), RunHistoryModel::Messages).data().isValid());
    }

    void unnamedRunsAreNamedByScenarioAndProtocol()
    {
        const std::string path = COH_TEST_DATA_DIR "/scenarios/minimal.json";
        std::ifstream in(path);
        nlohmann::json json = nlohmann::json::parse(in);
        json["workload"]["requests"] = 5;
        json["coherence"] = {{"decode", "lazy-causal"}};
        const core::Scenario scenario = core::parseScenario(json, path);
        core::RunStore store(m_db.toStdString());
        std::int64_t id = 0;
        core::StoredRunHooks hooks;
        hooks.begun = [&](std::int64_t begun) { id = begun; };
        core::runAndStore(store, scenario, core::buildWorkload(scenario.workload, scenario.seed), {}, {}, hooks);
        RunHistoryModel model;
        model.setDatabasePath(m_db);
        const int row = model.rowOfRun(id);
        QCOMPARE(model.index(row, RunHistoryModel::Name).data().toString(),
                 QStringLiteral("minimal \u00b7 lazy-causal"));
        QCOMPARE(model.index(row, RunHistoryModel::DecodeProtocol).data().toString(), QStringLiteral("lazy-causal"));
        QVERIFY(store.deleteRun(id));
    }

    void historyAndCompareReadAtEverySizeInBothPalettes()
    {
        RunHistoryWidget history;
        history.setDatabasePath(m_db);
        ui::RunCompareDialog compare(m_db, {m_alpha, m_beta});
        history.show();
        compare.show();
        QVERIFY(QTest::qWaitForWindowExposed(&history));
        QVERIFY(QTest::qWaitForWindowExposed(&compare));
        for (const bool dark : {false, true}) {
            ui::MainActions::applyPalette(dark);
            for (const QSize size : {QSize(680, 440), QSize(1600, 1000)}) {
                for (const int tab : {0, 1}) {
                    compare.tabs()->setCurrentIndex(tab); // the metrics, then the distributions
                    for (QWidget* w : {static_cast<QWidget*>(&history), static_cast<QWidget*>(&compare)}) {
                        w->resize(size);
                        QCoreApplication::processEvents();
                        QCoreApplication::processEvents();
                        const QString where = QStringLiteral("%1 at %2x%3, %4")
                                                  .arg(QString::fromLatin1(w->metaObject()->className()))
                                                  .arg(size.width())
                                                  .arg(size.height())
                                                  .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"));
                        const QStringList cut = ui::test::clippedControls(w);
                        QVERIFY2(cut.isEmpty(),
                                 qPrintable(where + QStringLiteral(": ") + cut.join(QStringLiteral("; "))));
                        const QStringList faint = ui::test::lowContrastTexts(w);
                        QVERIFY2(faint.isEmpty(),
                                 qPrintable(where + QStringLiteral(": ") + faint.join(QStringLiteral("; "))));
                    }
                    if (tab == 1) {
                        for (ui::ChartView* view : {compare.ttftChart(), compare.tpotChart()}) {
                            const QStringList elided = elidedTexts(view);
                            QVERIFY2(elided.isEmpty(), qPrintable(elided.join(QStringLiteral(", "))));
                        }
                    }
                }
            }
        }
        // The charts follow the palette: their background is the palette's base.
        QCOMPARE(compare.ttftChart()->chart()->backgroundBrush().color(),
                 QApplication::palette().color(QPalette::Base));
        ui::MainActions::applyPalette(false);
        QCOMPARE(compare.ttftChart()->chart()->backgroundBrush().color(),
                 QApplication::palette().color(QPalette::Base));
    }

  private:
    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_alpha = 0, m_beta = 0, m_gamma = 0;
};

QTEST_MAIN(TstRunHistory)
#include "tst_run_history.moc"
