// The History tab over a temporary database of runs made with core: model contents (checked by
// QAbstractItemModelTester), rename and delete through the view, filtering, export, the compare dialog's
// table, and a corrupt database shown as core's error.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "core/workload/workload_builder.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_history_model.h"
#include "ui/run_history_widget.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

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

int findRow(const QTableWidget* table, const QString& label)
{
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->verticalHeaderItem(r) && table->verticalHeaderItem(r)->text() == label)
            return r;
    return -1;
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

    void compareDialogShowsBothRuns()
    {
        ui::RunCompareDialog dialog(m_db, {m_alpha, m_beta});
        QVERIFY(dialog.errorText().isEmpty());
        const QTableWidget* table = dialog.metricsTable();
        QCOMPARE(table->columnCount(), 2);
        core::RunStore store(m_db.toStdString());
        const auto alpha = store.loadRun(m_alpha).summary;
        const auto beta = store.loadRun(m_beta).summary;

        const int protocol = findRow(table, QStringLiteral("Protocol"));
        QVERIFY(protocol >= 0);
        QCOMPARE(table->item(protocol, 0)->text(), QStringLiteral("direct"));
        QCOMPARE(table->item(protocol, 1)->text(), QStringLiteral("msi-directory"));

        const int ttft = findRow(table, QStringLiteral("TTFT p99 (ms)"));
        QVERIFY(ttft >= 0);
        QCOMPARE(table->item(ttft, 0)->data(Qt::UserRole).toDouble(), alpha.ttftMs.p99);
        QCOMPARE(table->item(ttft, 1)->data(Qt::UserRole).toDouble(), beta.ttftMs.p99);
        // Messages: the plain copy sends only data; the protocol adds control messages, so direct is best.
        const int messages = findRow(table, QStringLiteral("Messages"));
        QVERIFY(messages >= 0);
        QCOMPARE(table->item(messages, 0)->data(Qt::UserRole).toDouble(), double(alpha.messages));
        QCOMPARE(table->item(messages, 1)->data(Qt::UserRole).toDouble(), double(beta.messages));
        QVERIFY(beta.messages > alpha.messages);
        QVERIFY(table->item(messages, 0)->data(Qt::UserRole + 1).toBool());
        QVERIFY(!table->item(messages, 1)->data(Qt::UserRole + 1).toBool());
        const int requests = findRow(table, QStringLiteral("Requests"));
        QVERIFY(!table->item(requests, 0)->data(Qt::UserRole + 1).toBool()); // no "better" for a count of input

        for (QChartView* view : {dialog.ttftChart(), dialog.tpotChart()}) {
            const auto series = view->chart()->series();
            QCOMPARE(series.size(), 2);
            const auto* first = qobject_cast<QLineSeries*>(series.at(0));
            QVERIFY(first && first->count() > 0);
            QCOMPARE(first->at(first->count() - 1).y(), 1.0); // a CDF ends at 1
        }
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
        QCOMPARE(dialog->metricsTable()->columnCount(), 2);
        QVERIFY(compare->isEnabled());
        dialog->close();
    }

    void compareRefusesRunsWithoutMetrics()
    {
        ui::RunCompareDialog dialog(m_db, {m_alpha, m_gamma});
        QVERIFY(dialog.errorText().contains(QStringLiteral("failed")));
        QCOMPARE(dialog.metricsTable()->columnCount(), 1);
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

  private:
    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_alpha = 0, m_beta = 0, m_gamma = 0;
};

QTEST_MAIN(TstRunHistory)
#include "tst_run_history.moc"
