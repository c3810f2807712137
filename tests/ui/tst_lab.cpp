// The Protocol Lab driven through its real widgets: op buttons, step buttons and keys, the state table and its
// highlights, the sequence chart, every shipped lesson, and a bug hunt that asks core's checker for a trace.
#include "core/coherence/explorer.h"
#include "core/coherence/protocol_registry.h"
#include "ui/lab_bug_hunt.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_op_panel.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_transition_table.h"
#include "ui/lab_widget.h"
#include "ui/lesson.h"
#include "ui/qt_text.h"
#include "ui/sequence_chart.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>

using namespace coh::ui;
namespace co = coh::core::coherence;

class TstLab : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // the lab touches no user files
    void modelTester();
    void stepsMsiWithButtonsAndKeys();
    void mesiReadGetsExclusive();
    void highlightsChangedCells();
    void chartHoldsOneArrowPerMessage();
    void chartClickSelectsStep();
    void transitionTableHighlightsTheStep();
    void everyLessonLoadsAndRuns();
    void lessonNumbersComeFromTheRun();
    void badLessonsNameFileAndField();
    void openLessonShowsNotes();
    void unknownProtocolShowsCoreError();

  private:
    static QString cell(const LabStateTableModel* m, int row, int column)
    {
        return m->index(row, column).data().toString();
    }
    static void show(LabWidget& w)
    {
        w.resize(1400, 900);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
    }
    static void chooseProtocol(LabWidget& w, const QString& name)
    {
        auto* combo = w.findChild<QComboBox*>(QStringLiteral("labProtocol"));
        QVERIFY(combo);
        combo->setCurrentIndex(combo->findData(name));
        QCOMPARE(w.model()->protocolName(), name);
    }
    static int sentUpTo(const LabModel* lab, int step)
    {
        int n = 0;
        for (int s = 1; s <= step; ++s)
            n += static_cast<int>(lab->step(s).sent.size());
        return n;
    }
};

void TstLab::modelTester()
{
    LabModel lab;
    LabStateTableModel table(&lab);
    QAbstractItemModelTester tester(&table, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(lab.load(QStringLiteral("moesi-directory"), 3, QStringLiteral("P0:W,P1:R,P2:R")));
    QCOMPARE(table.rowCount(), 4);
    QCOMPARE(table.columnCount(), int(LabStateTableModel::ColumnCount));
    lab.setCaches(4);
    QCOMPARE(table.rowCount(), 5);
    lab.setCaches(2); // drops P2:R
    QCOMPARE(table.rowCount(), 3);
    QCOMPARE(lab.opsText(), QStringLiteral("P0:W,P1:R"));
    for (int s = 0; s <= lab.stepCount(); ++s)
        lab.setCurrentStep(s);
    QCOMPARE(table.headerData(2, Qt::Vertical).toString(), QStringLiteral("Dir"));
}

void TstLab::stepsMsiWithButtonsAndKeys()
{
    LabWidget w;
    show(w);
    chooseProtocol(w, QStringLiteral("msi-directory"));
    w.findChild<QSpinBox*>(QStringLiteral("labCaches"))->setValue(3);
    QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("labReset")), Qt::LeftButton);
    LabModel* lab = w.model();
    const LabStateTableModel* t = w.stateModel();
    QCOMPARE(lab->stepCount(), 0);
    QCOMPARE(t->rowCount(), 4);

    QAbstractButton* p0Read = w.findChild<QAbstractButton*>(QStringLiteral("opP0Read"));
    QVERIFY(p0Read && p0Read->isEnabled());
    QTest::mouseClick(p0Read, Qt::LeftButton);
    QCOMPARE(lab->opsText(), QStringLiteral("P0:R"));
    QCOMPARE(lab->currentStep(), lab->stepCount()); // jumps to the end of the transaction
    QCOMPARE(cell(t, 0, LabStateTableModel::StateColumn), QStringLiteral("S"));
    QCOMPARE(cell(t, 0, LabStateTableModel::DataColumn), QStringLiteral("0"));
    QCOMPARE(cell(t, 3, LabStateTableModel::StateColumn), QStringLiteral("S"));
    QCOMPARE(cell(t, 3, LabStateTableModel::SharersColumn), QStringLiteral("{P0}"));
    QCOMPARE(cell(t, 3, LabStateTableModel::OwnerColumn), QStringLiteral("-"));
    const int afterRead = lab->currentStep();

    QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("opP1Write")), Qt::LeftButton);
    QCOMPARE(lab->opsText(), QStringLiteral("P0:R,P1:W"));
    QCOMPARE(cell(t, 0, LabStateTableModel::StateColumn), QStringLiteral("I"));
    QCOMPARE(cell(t, 0, LabStateTableModel::DataColumn), QStringLiteral("-"));
    QCOMPARE(cell(t, 1, LabStateTableModel::StateColumn), QStringLiteral("M"));
    QCOMPARE(cell(t, 1, LabStateTableModel::DataColumn), QStringLiteral("1")); // the first store writes version 1
    QCOMPARE(cell(t, 3, LabStateTableModel::StateColumn), QStringLiteral("M"));
    QCOMPARE(cell(t, 3, LabStateTableModel::OwnerColumn), QStringLiteral("P1"));
    QCOMPARE(cell(t, 3, LabStateTableModel::SharersColumn), QStringLiteral("{}"));
    QVERIFY(!w.findChild<QAbstractButton*>(QStringLiteral("labForward"))->isEnabled());

    // Keys step back through P1's transaction to the end of P0's read.
    const int end = lab->currentStep();
    for (int s = end; s > afterRead; --s)
        QTest::keyClick(&w, Qt::Key_Left);
    QCOMPARE(lab->currentStep(), afterRead);
    QCOMPARE(cell(t, 0, LabStateTableModel::StateColumn), QStringLiteral("S"));
    QCOMPARE(cell(t, 1, LabStateTableModel::StateColumn), QStringLiteral("I"));
    QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(lab->currentStep(), afterRead + 1);
    QCOMPARE(cell(t, 1, LabStateTableModel::StateColumn), QStringLiteral("IM^AD"));

    QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("labFirst")), Qt::LeftButton);
    QCOMPARE(lab->currentStep(), 0);
    for (int r = 0; r < 3; ++r)
        QCOMPARE(cell(t, r, LabStateTableModel::StateColumn), QStringLiteral("I"));
    QVERIFY(!w.findChild<QAbstractButton*>(QStringLiteral("labBack"))->isEnabled());
    QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("labForward")), Qt::LeftButton);
    QCOMPARE(lab->currentStep(), 1);
    QCOMPARE(cell(t, 0, LabStateTableModel::StateColumn), QStringLiteral("IS^D"));
    QVERIFY(w.explanation().contains(QStringLiteral("GetS")));
    QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("labLast")), Qt::LeftButton);
    QCOMPARE(lab->currentStep(), end);
}

void TstLab::mesiReadGetsExclusive()
{
    LabWidget w;
    show(w);
    chooseProtocol(w, QStringLiteral("mesi-directory"));
    QCOMPARE(w.model()->opCount(), 0); // a learner's protocol change starts an empty run
    QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("opP0Read")), Qt::LeftButton);
    QCOMPARE(cell(w.stateModel(), 0, LabStateTableModel::StateColumn), QStringLiteral("E"));
    QCOMPARE(cell(w.stateModel(), w.model()->caches(), LabStateTableModel::OwnerColumn), QStringLiteral("P0"));
}

void TstLab::highlightsChangedCells()
{
    LabModel lab;
    LabStateTableModel t(&lab);
    QVERIFY(lab.load(QStringLiteral("msi-directory"), 3, QStringLiteral("P0:R")));
    lab.setCurrentStep(0);
    for (int r = 0; r < t.rowCount(); ++r)
        for (int c = 0; c < t.columnCount(); ++c)
            QVERIFY(!t.index(r, c).data(Qt::BackgroundRole).isValid());
    lab.setCurrentStep(1); // P0 issues the load: only P0's state changes
    QVERIFY(t.index(0, LabStateTableModel::StateColumn).data(LabStateTableModel::ChangedRole).toBool());
    QVERIFY(t.index(0, LabStateTableModel::StateColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(t.index(0, LabStateTableModel::StateColumn).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!t.index(1, LabStateTableModel::StateColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(!t.index(3, LabStateTableModel::StateColumn).data(Qt::BackgroundRole).isValid());
    lab.setCurrentStep(2); // the directory takes the GetS: its state and sharers change, P0 does not
    QVERIFY(!t.index(0, LabStateTableModel::StateColumn).data(LabStateTableModel::ChangedRole).toBool());
    QVERIFY(t.index(3, LabStateTableModel::StateColumn).data(LabStateTableModel::ChangedRole).toBool());
    QVERIFY(t.index(3, LabStateTableModel::SharersColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(!t.index(3, LabStateTableModel::MemoryColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(
        t.index(0, LabStateTableModel::StateColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("IS^D")));
}

void TstLab::chartHoldsOneArrowPerMessage()
{
    LabModel lab;
    SequenceChart chart(&lab);
    chart.resize(700, 600);
    QVERIFY(lab.load(QStringLiteral("mesi-snooping"), 4, QStringLiteral("P0:R,P1:R,P0:W")));
    QVERIFY(lab.stepCount() > 10);
    for (int s = 0; s <= lab.stepCount(); ++s) {
        lab.setCurrentStep(s);
        QCOMPARE(chart.arrowCount(), sentUpTo(&lab, s));
    }
    // At the end every message was delivered, and the first one is the BusRd from P0 to Dir.
    for (const SequenceChart::Arrow& a : chart.arrows())
        QVERIFY(!a.inFlight);
    QCOMPARE(chart.arrows().front().flow.kind, QStringLiteral("BusRd"));
    QCOMPARE(chart.arrows().front().flow.from, 0);
    QCOMPARE(chart.arrows().front().flow.to, 4);
    // Step 2 broadcasts one snoop to each of the other three caches, still in flight there.
    lab.setCurrentStep(2);
    int snoops = 0;
    for (const SequenceChart::Arrow& a : chart.arrows())
        if (a.flow.kind == QStringLiteral("Snoop-Rd")) {
            ++snoops;
            QVERIFY(a.inFlight && a.emphasised);
        }
    QCOMPARE(snoops, 3);
}

void TstLab::chartClickSelectsStep()
{
    LabWidget w;
    show(w);
    QVERIFY(w.model()->load(QStringLiteral("msi-directory"), 3, QStringLiteral("P0:R,P1:W")));
    SequenceChart* chart = w.chart();
    QTest::mouseClick(chart, Qt::LeftButton, {}, QPoint(8, chart->rowY(2)));
    QCOMPARE(w.model()->currentStep(), 2);
    w.model()->last();
    // A click on the first arrow (P0's GetS) selects the step that delivered it.
    const SequenceChart::Arrow first = chart->arrows().front();
    QCOMPARE(first.flow.kind, QStringLiteral("GetS"));
    QTest::mouseClick(chart, Qt::LeftButton, {}, first.line.pointAt(0.25).toPoint());
    QCOMPARE(w.model()->currentStep(), first.flow.deliveredAt);
    QCOMPARE(w.model()->current().message->kind, std::string("GetS"));
}

void TstLab::transitionTableHighlightsTheStep()
{
    LabWidget w;
    QVERIFY(w.model()->load(QStringLiteral("msi-directory"), 3, QStringLiteral("P0:R")));
    const co::Protocol& p = co::findProtocol("msi-directory");
    w.model()->setCurrentStep(1);
    LabTransitionTable* t = w.transitionTable();
    QCOMPARE(t->currentWidget(), static_cast<QWidget*>(t->cacheTable()));
    QCOMPARE(t->highlighted(), qMakePair(p.cache.findState("I"), p.cache.findEvent("Load")));
    QCOMPARE(t->cacheTable()->item(t->highlighted().first, t->highlighted().second)->text(),
             QStringLiteral("GetS→Dir / IS^D"));
    w.model()->setCurrentStep(2);
    QCOMPARE(t->currentWidget(), static_cast<QWidget*>(t->directoryTable()));
    QCOMPARE(t->highlighted(), qMakePair(p.directory.findState("I"), p.directory.findEvent("GetS")));
}

void TstLab::everyLessonLoadsAndRuns()
{
    QStringList errors;
    const std::vector<Lesson> lessons = loadLessons(errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    int plain = 0, hunts = 0;
    for (const Lesson& l : lessons) {
        LessonRun run;
        QString error;
        QVERIFY2(runLesson(l, run, error), qPrintable(error));
        QVERIFY2(!run.run.steps.empty(), qPrintable(l.id));
        QVERIFY2(!run.intro.contains(QLatin1Char('{')) && !run.conclusion.contains(QLatin1Char('{')), qPrintable(l.id));
        if (!l.bugHunt) {
            ++plain;
            QVERIFY2(run.run.violation == co::Violation::None && run.run.error.empty(), qPrintable(l.id));
            continue;
        }
        ++hunts;
        co::ExplorerOptions options;
        options.caches = l.caches;
        const co::ExplorerResult result = co::explore(co::findProtocol(toStdString(l.protocol)), options);
        // The checker finds exactly the bug the lesson's answer names, and the lab's run stops on it too.
        QVERIFY2(result.violation == l.answer.violation, qPrintable(l.id));
        QCOMPARE(run.run.violation, l.answer.violation);
        QVERIFY(!result.trace.empty());
    }
    QVERIFY(plain >= 6);
    QVERIFY(hunts >= 2);
    for (const char* id : {"moesi-owned", "broadcast-sockets", "cxl-bias", "lazy-causal-stale", "migratory",
                           "sealed-lease", "bughunt-missing-inv", "bughunt-lost-ack"})
        QVERIFY2(
            std::any_of(lessons.begin(), lessons.end(), [id](const Lesson& l) { return l.id == QLatin1String(id); }),
            id);
}

void TstLab::lessonNumbersComeFromTheRun()
{
    QStringList errors;
    const std::vector<Lesson> lessons = loadLessons(errors);
    auto find = [&lessons](const char* id) {
        return *std::find_if(lessons.begin(), lessons.end(),
                             [id](const Lesson& l) { return l.id == QLatin1String(id); });
    };
    LessonRun moesi;
    QString error;
    QVERIFY(runLesson(find("moesi-owned"), moesi, error));
    // The Owned state's whole point: fewer memory writes than MESI for the same ops.
    QVERIFY(moesi.values.value(QStringLiteral("memory_writes")).toInt() <
            moesi.values.value(QStringLiteral("compare_memory_writes")).toInt());
    QVERIFY(moesi.conclusion.contains(moesi.values.value(QStringLiteral("compare_memory_writes"))));
    QCOMPARE(moesi.values.value(QStringLiteral("messages")).toInt(), moesi.run.messages);
    QCOMPARE(moesi.values.value(QStringLiteral("compare_messages")).toInt(), moesi.compareRun.messages);

    LessonRun broadcast;
    QVERIFY(runLesson(find("broadcast-sockets"), broadcast, error));
    QVERIFY(broadcast.values.value(QStringLiteral("extra_messages")).toInt() > 0);
    QVERIFY(broadcast.run.messages > broadcast.compareRun.messages);

    LessonRun lazy;
    QVERIFY(runLesson(find("lazy-causal-stale"), lazy, error));
    QVERIFY(lazy.values.value(QStringLiteral("stale_steps")).toInt() > 0);
    LessonRun sealed;
    QVERIFY(runLesson(find("sealed-lease"), sealed, error));
    QVERIFY(sealed.values.value(QStringLiteral("leases")).toInt() > 0);
    QCOMPARE(sealed.values.value(QStringLiteral("invalidations")).toInt(), 0);
}

void TstLab::badLessonsNameFileAndField()
{
    Lesson l;
    QString error;
    const QString file = QStringLiteral("broken.json");
    QVERIFY(!parseLesson("{ not json", file, l, error));
    QVERIFY(error.contains(file));
    const QByteArray good = R"({"id":"broken","title":"t","protocol":"msi-directory","caches":3,"ops":"P0:R",
        "intro":"i {messages}","steps_notes":{"1":"n"},"conclusion":"c"})";
    QVERIFY2(parseLesson(good, file, l, error), qPrintable(error));
    QCOMPARE(l.stepNotes.value(1), QStringLiteral("n"));

    const struct {
        QByteArray from, to, field;
    } cases[] = {
        {R"("title":"t",)", "", "\"title\""},
        {R"("caches":3)", R"("caches":7)", "\"caches\""},
        {R"("msi-directory")", R"("msi-nope")", "protocol"},
        {R"("P0:R")", R"("P5:R")", "ops"},
        {"{messages}", "{bogus}", "\"intro\""},
        {R"({"1":"n"})", R"({"99":"n"})", "steps_notes/99"},
        {R"("msi-directory")", R"("msi-directory-broken-noinv")", "\"protocol\""},
        {R"("id":"broken")", R"("id":"other")", "\"id\""},
    };
    for (const auto& c : cases) {
        QByteArray bad = good;
        bad.replace(c.from, c.to);
        QVERIFY2(!parseLesson(bad, file, l, error), c.to.constData());
        QVERIFY2(error.contains(file) && error.contains(QLatin1String(c.field)), qPrintable(error));
    }
}

void TstLab::openLessonShowsNotes()
{
    LabWidget w;
    show(w);
    LabLessonPanel* panel = w.lessonPanel();
    QVERIFY(panel->loadErrors().isEmpty());
    w.openLesson(QStringLiteral("moesi-owned"));
    QVERIFY(panel->currentLesson());
    QCOMPARE(w.model()->protocolName(), QStringLiteral("moesi-directory"));
    QCOMPARE(w.model()->caches(), 2);
    QCOMPARE(w.model()->currentStep(), 0);
    QVERIFY(panel->text().contains(QStringLiteral("Owned")));
    QVERIFY(!panel->text().contains(QStringLiteral("Conclusion")));
    QTest::keyClick(&w, Qt::Key_End);
    QCOMPARE(w.model()->currentStep(), w.model()->stepCount());
    QVERIFY(panel->text().contains(QStringLiteral("Conclusion")));
    QVERIFY(!panel->text().contains(QLatin1Char('{')));
    QVERIFY(!w.bugHunt()->isVisible());
    w.openLesson(QStringLiteral("no-such-lesson"));
    QCOMPARE(panel->currentLesson()->id, QStringLiteral("moesi-owned")); // unchanged
}

void TstLab::unknownProtocolShowsCoreError()
{
    LabWidget w;
    show(w);
    w.openProtocol(QStringLiteral("no-such-protocol"));
    QCOMPARE(w.model()->protocolName(), QStringLiteral("msi-directory")); // unchanged
    auto* error = w.findChild<QLabel*>(QStringLiteral("labError"));
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(QStringLiteral("moesi-directory")), qPrintable(error->text()));
    w.openProtocol(QStringLiteral("sealed-lease"));
    QCOMPARE(w.model()->protocolName(), QStringLiteral("sealed-lease"));
    QCOMPARE(w.model()->opsText(), toQString(co::defaultLabOps(w.model()->caches())));
    QVERIFY(!error->isVisible());
}

QTEST_MAIN(TstLab)
#include "tst_lab.moc"
