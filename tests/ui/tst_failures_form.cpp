// The Failures section of the Scenario dock (the top-level "failures"): a file's failures show in the table and the
// detection and recovery rows; Add, the row's node, kind, time and repair, the detection times and the recovery each
// write the JSON of docs/scenario-format.md as one undo step; removing the last failure removes the whole section and
// one undo brings it back; problems mark the cell they are about; the table fits the narrowest dock.
#include "editor_input.h"
#include "json_compare.h"
#include "ui/failures_form.h"
#include "ui/field_edit.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui_checks.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

using namespace coh::ui;
using coh::ui::test::enter;
using coh::ui::test::openPreset;
using nlohmann::ordered_json;

namespace {

// The section as docs/scenario-format.md writes it, on the cxl-pool preset's decode nodes.
const char* kFailures = R"({
  "events": [ {"node": "gpu2", "at": "20 s", "repair": "60 s"},
              {"node": "gpu3", "mtbf": "600 s", "repair": "30 s"} ],
  "detection": {"heartbeat": "100 ms", "timeout": "500 ms"},
  "recovery": "replica"
})";

// Picks the item whose data is `value`, as a click in the list does.
void choose(QComboBox* combo, const QString& value)
{
    QVERIFY(combo);
    const int index = combo->findData(value);
    QVERIFY2(index >= 0, qPrintable(value));
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

void selectRow(QTableWidget* table, int row)
{
    table->clearSelection();
    table->selectRow(row);
}

void openWithFailures(ScenarioDocument& doc, const char* failures)
{
    openPreset(doc, "cxl-pool.json");
    ordered_json opened = doc.json();
    opened["failures"] = ordered_json::parse(failures);
    doc.reset(opened);
}

QStringList failureProblems(const ScenarioDocument& doc)
{
    QStringList found;
    for (const auto& problem : doc.validate().problems)
        if (problem.field.rfind("/failures", 0) == 0)
            found << QString::fromStdString(problem.field + ": " + problem.message);
    return found;
}

} // namespace

class TestFailuresForm : public QObject {
    Q_OBJECT
  private slots:
    void aFilesFailuresShow()
    {
        ScenarioDocument doc;
        openWithFailures(doc, kFailures);
        QVERIFY2(failureProblems(doc).isEmpty(), qPrintable(failureProblems(doc).join(QLatin1Char('\n'))));
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        FailuresForm* form = panel.failuresForm();
        QTableWidget* table = form->table();
        QVERIFY(table->isVisible() && !form->emptyLabel()->isVisible());
        QCOMPARE(table->rowCount(), 2);
        // What fails: exactly the nodes that run an instance (the preset's gpus, not its cpu or cxl memory), then,
        // past a separator, every link.
        QComboBox* node = form->nodeCombo(0);
        QStringList offered;
        for (int i = 0; i < node->count(); ++i)
            offered << node->itemData(i).toString();
        QCOMPARE(offered, QStringLiteral("node:gpu0,node:gpu1,node:gpu2,node:gpu3,,link:cpu0-cxl0,link:cpu0-gpu0,"
                                         "link:cpu0-gpu1,link:cpu0-gpu2,link:cpu0-gpu3")
                              .split(QLatin1Char(',')));
        const struct {
            const char *node, *kind, *time, *repair;
        } rows[] = {{"gpu2", "at", "20 s", "60 s"}, {"gpu3", "mtbf", "600 s", "30 s"}};
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(form->nodeCombo(r)->currentText(), QLatin1String(rows[r].node));
            QCOMPARE(form->kindCombo(r)->currentData().toString(), QLatin1String(rows[r].kind));
            QCOMPARE(table->item(r, FailuresForm::Time)->text(), QLatin1String(rows[r].time));
            QCOMPARE(form->repairCombo(r)->currentText(), QLatin1String(rows[r].repair));
        }
        QCOMPARE(form->heartbeatEdit()->text(), QStringLiteral("100 ms"));
        QCOMPARE(form->timeoutEdit()->text(), QStringLiteral("500 ms"));
        QCOMPARE(form->recoveryCombo()->currentData().toString(), QStringLiteral("replica"));
        QVERIFY(form->heartbeatEdit()->isEnabled() && form->timeoutEdit()->isEnabled());
        QVERIFY(form->recoveryCombo()->isEnabled() && form->addButton()->isEnabled());
        QVERIFY(!form->removeButton()->isEnabled()); // until a row is selected
        selectRow(table, 1);
        QVERIFY(form->removeButton()->isEnabled());
        // A repair-less failure says so.
        doc.setValue("/failures/events/0", ordered_json::parse(R"({"node": "gpu2", "at": "20 s"})"),
                     QStringLiteral("x"));
        QCOMPARE(form->repairCombo(0)->currentText(), QStringLiteral("never"));
    }

    void theFormWritesTheSection()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json"); // no failures
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        FailuresForm* form = panel.failuresForm();
        QTableWidget* table = form->table();
        QVERIFY(!doc.value("/failures"));
        QVERIFY(!table->isVisible() && form->emptyLabel()->isVisible());
        // Without failures, detection and recovery govern nothing.
        QVERIFY(!form->heartbeatEdit()->isEnabled());
        QVERIFY(!form->timeoutEdit()->isEnabled());
        QVERIFY(!form->recoveryCombo()->isEnabled());

        // Add: the first decode node, once, repaired; one undo step.
        int steps = doc.undoStack()->index();
        QTest::mouseClick(form->addButton(), Qt::LeftButton);
        COMPARE_JSON(doc.value("/failures").value(),
                     ordered_json::parse(R"({"events": [{"node": "gpu2", "at": "20 s", "repair": "60 s"}]})"));
        QCOMPARE(doc.undoStack()->index(), steps + 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Add failure"));
        QVERIFY(table->isVisible() && form->heartbeatEdit()->isEnabled() && form->recoveryCombo()->isEnabled());
        QCOMPARE(table->rowCount(), 1);

        // The row's node, time, repair and kind, each one step.
        steps = doc.undoStack()->index();
        choose(form->nodeCombo(0), QStringLiteral("node:gpu1"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Edit failures"));
        table->item(0, FailuresForm::Time)->setText(QStringLiteral("25 s"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 2);
        COMPARE_JSON(doc.value("/failures/events/0").value(),
                     ordered_json::parse(R"({"node": "gpu1", "at": "25 s", "repair": "60 s"})"));
        choose(form->repairCombo(0), QString()); // never
        QTRY_COMPARE(doc.undoStack()->index(), steps + 3);
        COMPARE_JSON(doc.value("/failures/events/0").value(), ordered_json::parse(R"({"node": "gpu1", "at": "25 s"})"));
        enter(form->repairCombo(0)->lineEdit(), QStringLiteral("60 s")); // typed, as any time
        QTRY_COMPARE(doc.undoStack()->index(), steps + 4);
        table->item(0, FailuresForm::Time)->setText(QStringLiteral("20 s"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 5);
        choose(form->nodeCombo(0), QStringLiteral("node:gpu2"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 6);
        COMPARE_JSON(doc.value("/failures/events/0").value(),
                     ordered_json::parse(R"({"node": "gpu2", "at": "20 s", "repair": "60 s"})"));

        // A second failure goes to the decode node that does not fail yet, a third to the first other node.
        QTest::mouseClick(form->addButton(), Qt::LeftButton);
        QCOMPARE(table->rowCount(), 2);
        COMPARE_JSON(doc.value("/failures/events/1/node").value(), "gpu3");
        QTest::mouseClick(form->addButton(), Qt::LeftButton);
        COMPARE_JSON(doc.value("/failures/events/2/node").value(), "gpu0");
        doc.undoStack()->undo();
        QCOMPARE(table->rowCount(), 2);
        // Made one at random: "mtbf" in the docs' key order.
        steps = doc.undoStack()->index();
        choose(form->kindCombo(1), QStringLiteral("mtbf"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 1);
        COMPARE_JSON(doc.value("/failures/events/1").value(),
                     ordered_json::parse(R"({"node": "gpu3", "mtbf": "20 s", "repair": "60 s"})"));
        table->item(1, FailuresForm::Time)->setText(QStringLiteral("600 s"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 2);
        enter(form->repairCombo(1)->lineEdit(), QStringLiteral("30 s"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 3);

        // Detection and recovery.
        enter(form->heartbeatEdit(), QStringLiteral("100 ms"));
        enter(form->timeoutEdit(), QStringLiteral("500 ms"));
        choose(form->recoveryCombo(), QStringLiteral("replica"));
        COMPARE_JSON(doc.value("/failures").value(), ordered_json::parse(kFailures));
        QVERIFY2(failureProblems(doc).isEmpty(), qPrintable(failureProblems(doc).join(QLatin1Char('\n'))));
        // The default recovery removes the key; clearing both times removes "detection".
        choose(form->recoveryCombo(), QString());
        QVERIFY(!doc.value("/failures/recovery"));
        enter(form->heartbeatEdit(), QString());
        enter(form->timeoutEdit(), QString());
        QVERIFY(!doc.value("/failures/detection"));
        QVERIFY(doc.value("/failures/events"));
    }

    void removingTheLastFailureRemovesTheSection()
    {
        ScenarioDocument doc;
        openWithFailures(doc, kFailures);
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        FailuresForm* form = panel.failuresForm();
        QTableWidget* table = form->table();
        const int steps = doc.undoStack()->index();
        selectRow(table, 0);
        QTest::mouseClick(form->removeButton(), Qt::LeftButton);
        ordered_json expected = ordered_json::parse(kFailures);
        expected["events"].erase(0);
        COMPARE_JSON(doc.value("/failures").value(), expected);
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(form->nodeCombo(0)->currentText(), QStringLiteral("gpu3"));
        // The last one: detection and recovery go with it, and their rows are switched off.
        selectRow(table, 0);
        QTest::mouseClick(form->removeButton(), Qt::LeftButton);
        QVERIFY(!doc.value("/failures"));
        QCOMPARE(doc.undoStack()->index(), steps + 2);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Remove failure"));
        QVERIFY(!table->isVisible() && form->emptyLabel()->isVisible());
        QVERIFY(!form->heartbeatEdit()->isEnabled() && !form->recoveryCombo()->isEnabled());
        QVERIFY(form->heartbeatEdit()->text().isEmpty());
        // One undo brings the whole section back, and the form shows it.
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/failures").value(), expected);
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(form->heartbeatEdit()->text(), QStringLiteral("100 ms"));
        QCOMPARE(form->recoveryCombo()->currentData().toString(), QStringLiteral("replica"));
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/failures").value(), ordered_json::parse(kFailures));
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(form->nodeCombo(0)->currentText(), QStringLiteral("gpu2"));
    }

    void problemsMarkTheirCell()
    {
        // A node that runs no instance (kept in its chooser so the problem reads), failures at random without a
        // repair, and a timeout under the heartbeat.
        ScenarioDocument doc;
        openWithFailures(doc, R"({"events": [{"node": "cpu0", "at": "20 s"}, {"node": "gpu3", "mtbf": "600 s"}],
                                  "detection": {"heartbeat": "1 s", "timeout": "500 ms"}})");
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showProblems();
        FailuresForm* form = panel.failuresForm();
        QCOMPARE(form->nodeCombo(0)->currentText(), QStringLiteral("cpu0"));
        QVERIFY(form->nodeCombo(0)->property("invalid").toBool());
        QVERIFY(!form->nodeCombo(1)->property("invalid").toBool());
        QVERIFY(form->repairCombo(1)->property("invalid").toBool());
        QVERIFY(!form->repairCombo(0)->property("invalid").toBool()); // "at" needs no repair
        QVERIFY(form->timeoutEdit()->property("invalid").toBool());
        QVERIFY(!form->table()->property("invalid").toBool()); // every problem has its cell
        // Fixing them clears the marks.
        choose(form->nodeCombo(0), QStringLiteral("node:gpu2"));
        QTRY_VERIFY(doc.value("/failures/events/0/node").value_or(ordered_json()) == ordered_json("gpu2"));
        panel.showProblems();
        QVERIFY(!form->nodeCombo(0)->property("invalid").toBool());
        // An empty list is a problem of the section: the line saying there are none carries it.
        doc.setValue("/failures/events", ordered_json::array(), QStringLiteral("x"));
        panel.showProblems();
        QVERIFY(form->emptyLabel()->isVisible());
        QVERIFY(form->emptyLabel()->property("invalid").toBool());
    }

    void aLinkFailsFromTheSameChooser()
    {
        // The cxl-pool preset's links form a star around cpu0: a link down for good cuts a gpu off, which core
        // refuses; with a repair it is a partition that heals.
        ScenarioDocument doc;
        openWithFailures(doc, R"({"events": [{"node": "gpu2", "at": "20 s", "repair": "60 s"}]})");
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        FailuresForm* form = panel.failuresForm();
        const int steps = doc.undoStack()->index();
        choose(form->nodeCombo(0), QStringLiteral("link:cpu0-gpu2"));
        QTRY_COMPARE(doc.undoStack()->index(), steps + 1);
        COMPARE_JSON(doc.value("/failures/events/0").value(),
                     ordered_json::parse(R"({"link": "cpu0-gpu2", "at": "20 s", "repair": "60 s"})"));
        QCOMPARE(form->nodeCombo(0)->currentText(), QStringLiteral("cpu0-gpu2"));
        QVERIFY2(failureProblems(doc).isEmpty(), qPrintable(failureProblems(doc).join(QLatin1Char('\n'))));
        // Never repaired: refused, and the chooser carries the problem.
        choose(form->repairCombo(0), QString());
        QTRY_VERIFY(!doc.value("/failures/events/0/repair"));
        panel.showProblems();
        QVERIFY(form->nodeCombo(0)->property("invalid").toBool());
        QVERIFY(!form->table()->property("invalid").toBool());
        // Back to a node: the key changes with the choice.
        choose(form->nodeCombo(0), QStringLiteral("node:gpu3"));
        QTRY_VERIFY(doc.value("/failures/events/0").value_or(ordered_json()) ==
                    ordered_json::parse(R"({"node": "gpu3", "at": "20 s"})"));
        panel.showProblems();
        QVERIFY(!form->nodeCombo(0)->property("invalid").toBool());
    }

    void theTableFitsTheNarrowestDock()
    {
        ScenarioDocument doc;
        openWithFailures(doc, kFailures);
        ScenarioPanel panel(&doc);
        panel.resize(ScenarioPanel::kMinimumWidth, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCoreApplication::processEvents();
        QVERIFY2(test::clippedControls(&panel).isEmpty(),
                 qPrintable(test::clippedControls(&panel).join(QLatin1Char('\n'))));
        // Every cell widget within the table's viewport, every row shown whole.
        QTableWidget* table = panel.failuresForm()->table();
        for (int r = 0; r < table->rowCount(); ++r)
            for (int c = 0; c < FailuresForm::ColumnCount; ++c)
                if (QWidget* cell = table->cellWidget(r, c))
                    QVERIFY2(table->viewport()->rect().contains(cell->geometry()),
                             qPrintable(QStringLiteral("row %1 column %2").arg(r).arg(c)));
        QVERIFY(table->viewport()->rect().contains(table->visualItemRect(table->item(1, FailuresForm::Time))));
    }
};

QTEST_MAIN(TestFailuresForm)
#include "tst_failures_form.moc"
