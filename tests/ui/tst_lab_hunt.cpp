// Bug hunts as puzzles, driven through the Lab's widgets: until the learner answers, nothing on screen names the
// variant or says what broke (no "violated", "deadlock" or core's "BUG:" sentence), a wrong answer stays hidden and
// counts a retry, hints come one at a time, and a right answer (or "Show me") reveals the name, the verdict, the
// explanation and the model checker's counterexample. Lesson files with a bad answer are rejected by field.
#include "core/coherence/protocol_registry.h"
#include "ui/lab_bug_hunt.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_puzzle.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_widget.h"
#include "ui/lesson.h"
#include "ui/sequence_chart.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTest>
#include <QTextDocumentFragment>

using namespace coh::ui;
namespace co = coh::core::coherence;

namespace {

// Every text the learner can see or hover: labels, buttons, combo boxes, tabs, item views' cells and tooltips,
// tooltips of visible widgets, and the chart's arrow labels.
QStringList visibleTexts(LabWidget& w)
{
    QStringList out;
    QList<QWidget*> widgets = w.findChildren<QWidget*>();
    for (QWidget* widget : widgets) {
        if (!widget->isVisible())
            continue;
        out << widget->toolTip();
        if (auto* label = qobject_cast<QLabel*>(widget))
            out << QTextDocumentFragment::fromHtml(label->text()).toPlainText();
        else if (auto* button = qobject_cast<QAbstractButton*>(widget))
            out << button->text();
        else if (auto* combo = qobject_cast<QComboBox*>(widget))
            out << combo->currentText();
        else if (auto* tabs = qobject_cast<QTabBar*>(widget))
            for (int i = 0; i < tabs->count(); ++i)
                out << tabs->tabText(i) << tabs->tabToolTip(i);
        else if (auto* view = qobject_cast<QAbstractItemView*>(widget); view && view->model())
            for (int r = 0; r < view->model()->rowCount(); ++r)
                for (int c = 0; c < view->model()->columnCount(); ++c)
                    out << view->model()->index(r, c).data().toString()
                        << view->model()->index(r, c).data(Qt::ToolTipRole).toString();
    }
    for (const SequenceChart::Arrow& a : w.chart()->arrows())
        out << a.label;
    return out;
}

// What would give the answer away; empty when nothing does.
QStringList giveaways(LabWidget& w, const QString& variant)
{
    QStringList found;
    for (const QString& text : visibleTexts(w))
        if (text.contains(variant) || text.contains(QStringLiteral("broken")) ||
            text.contains(QStringLiteral("violat"), Qt::CaseInsensitive) ||
            text.contains(QStringLiteral("deadlock"), Qt::CaseInsensitive) || text.contains(QStringLiteral("BUG")))
            found << text;
    return found;
}

TransitionKey key(bool atDirectory, const char* state, const char* event)
{
    return {atDirectory, QLatin1String(state), QLatin1String(event)};
}

} // namespace

class TstLabHunt : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void nothingGivesTheAnswerAwayBeforeAnswering_data()
    {
        QTest::addColumn<QString>("lesson");
        QTest::addColumn<QString>("variant");
        QTest::newRow("missing-inv") << "bughunt-missing-inv"
                                     << "msi-directory-broken-noinv";
        QTest::newRow("lost-ack") << "bughunt-lost-ack"
                                  << "msi-directory-broken-lostack";
    }
    void nothingGivesTheAnswerAwayBeforeAnswering()
    {
        QFETCH(QString, lesson);
        QFETCH(QString, variant);
        LabWidget w;
        show(w);
        w.openLesson(lesson);
        QCOMPARE(w.model()->protocolName(), variant);
        QVERIFY(w.bugHunt()->hidesAnswer());
        auto* protocol = w.findChild<QComboBox*>(QStringLiteral("labProtocol"));
        QCOMPARE(protocol->currentText(), QStringLiteral("MSI directory — variant under test"));
        QVERIFY(!protocol->isEnabled()); // its list would name the variants
        // Every step, the last included: the run stops on the bug there, and the lab says only that it stops.
        for (int s = 0; s <= w.model()->stepCount(); ++s) {
            w.model()->setCurrentStep(s);
            QCOMPARE(giveaways(w, variant), QStringList());
        }
        QVERIFY(w.model()->run().violation != co::Violation::None);
        auto* error = w.findChild<QLabel*>(QStringLiteral("labError"));
        QVERIFY(error->isVisible());
        QVERIFY(error->text().contains(QStringLiteral("The run stops here")));
        // Narrow, the transition tables sit in a side tab: still no explanation tooltips there.
        w.resize(680, 440);
        QCOMPARE(giveaways(w, variant), QStringList());
        // Reset restarts the hunt's run instead of leaving it (which would show the name).
        QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("labReset")), Qt::LeftButton);
        QVERIFY(w.bugHunt()->hidesAnswer());
        QCOMPARE(w.model()->opsText(), w.bugHunt()->lesson().ops);
    }

    void wrongAnswersStayHiddenAndCountRetries()
    {
        LabWidget w;
        show(w);
        w.openLesson(QStringLiteral("bughunt-missing-inv"));
        w.model()->last();
        auto* check = w.findChild<QAbstractButton*>(QStringLiteral("bugHuntCheck"));
        QTest::mouseClick(check, Qt::LeftButton); // nothing chosen: not an attempt
        QCOMPARE(w.bugHunt()->attempts(), 0);
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("Choose both")));

        // Right transition, wrong invariant.
        w.bugHunt()->setAnswer(co::Violation::DataValue, key(true, "S", "GetM"));
        QTest::mouseClick(check, Qt::LeftButton);
        QCOMPARE(w.bugHunt()->attempts(), 1);
        QVERIFY(w.bugHunt()->hidesAnswer());
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("That transition is to blame")));
        // Right invariant, wrong transition (the cache's read miss, which the run also took).
        w.bugHunt()->setAnswer(co::Violation::Swmr, key(false, "I", "Load"));
        QTest::mouseClick(check, Qt::LeftButton);
        QCOMPARE(w.bugHunt()->attempts(), 2);
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("attempt 2")));
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("What goes wrong is right")));
        QCOMPARE(giveaways(w, QStringLiteral("msi-directory-broken-noinv")), QStringList());
    }

    void hintsComeOneAtATime()
    {
        LabWidget w;
        show(w);
        w.openLesson(QStringLiteral("bughunt-missing-inv"));
        const QStringList hints = w.bugHunt()->lesson().hints;
        QCOMPARE(hints.size(), 3);
        auto* label = w.findChild<QLabel*>(QStringLiteral("bugHuntHints"));
        auto* hint = w.findChild<QAbstractButton*>(QStringLiteral("bugHuntHint"));
        QVERIFY(!label->isVisible());
        QTest::mouseClick(hint, Qt::LeftButton);
        QVERIFY(label->isVisible());
        QString text = QTextDocumentFragment::fromHtml(label->text()).toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Hint 1 of 3: ") + hints[0]), qPrintable(text));
        QVERIFY(!text.contains(hints[1]));
        QTest::mouseClick(hint, Qt::LeftButton);
        QTest::mouseClick(hint, Qt::LeftButton);
        text = QTextDocumentFragment::fromHtml(label->text()).toPlainText();
        QVERIFY(text.contains(hints[2]));
        QVERIFY(!hint->isEnabled()); // all given
        QCOMPARE(w.bugHunt()->hintsShown(), 3);
        QVERIFY(w.bugHunt()->hidesAnswer());
        QCOMPARE(giveaways(w, QStringLiteral("msi-directory-broken-noinv")), QStringList());

        // A lesson without hints gets general ones, the last naming the controller whose table is wrong.
        Lesson bare = w.bugHunt()->lesson();
        bare.hints.clear();
        QVERIFY(huntHints(bare).last().contains(QStringLiteral("directory's table")));
    }

    void theRightAnswerRevealsEverything()
    {
        LabWidget w;
        show(w);
        w.openLesson(QStringLiteral("bughunt-missing-inv"));
        QSignalSpy revealed(w.bugHunt(), &LabBugHunt::revealed);
        QSignalSpy counterexample(w.bugHunt(), &LabBugHunt::counterexampleShown);
        w.bugHunt()->setAnswer(co::Violation::Swmr, key(true, "S", "GetM"));
        QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("bugHuntCheck")), Qt::LeftButton);
        QCOMPARE(revealed.size(), 1);
        QVERIFY(revealed.at(0).at(0).toBool());
        QVERIFY(!w.bugHunt()->hidesAnswer());
        QVERIFY(w.bugHunt()->verdict().startsWith(QStringLiteral("Right")));
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("msi-directory-broken-noinv")));
        auto* protocol = w.findChild<QComboBox*>(QStringLiteral("labProtocol"));
        QCOMPARE(protocol->currentText(), QStringLiteral("msi-directory-broken-noinv [bug hunt]"));
        QVERIFY(protocol->isEnabled());
        QVERIFY(w.lessonPanel()->text().contains(QStringLiteral("Conclusion")));
        QVERIFY(!giveaways(w, QStringLiteral("msi-directory-broken-noinv")).isEmpty()); // the check can see them

        // The checker's counterexample arrives off the GUI thread and replaces the run.
        QVERIFY(counterexample.wait(30000));
        QVERIFY(w.model()->isTrace());
        QCOMPARE(w.model()->currentStep(), counterexample.at(0).at(0).toInt());
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("labError"))->text().contains(QStringLiteral("SWMR violated")));
        QStringList states;
        for (int r = 0; r < w.model()->caches(); ++r)
            states << w.stateModel()->index(r, LabStateTableModel::StateColumn).data().toString();
        QVERIFY2(states.contains(QStringLiteral("M")) && states.contains(QStringLiteral("S")),
                 qPrintable(states.join(QLatin1Char(','))));
        // Core's sentence for the planted transition is back, "BUG:" and all, in the explanation.
        bool sentence = false;
        for (int s = 1; s <= w.model()->stepCount() && !sentence; ++s) {
            w.model()->setCurrentStep(s);
            sentence = w.explanation().contains(QStringLiteral("BUG:"));
        }
        QVERIFY(sentence);
        QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("bugHuntBack")), Qt::LeftButton);
        QVERIFY(!w.model()->isTrace());
        QCOMPARE(w.model()->opsText(), QStringLiteral("P0:R,P1:W,P0:R"));
        QVERIFY(!w.bugHunt()->hidesAnswer()); // answered stays answered
    }

    void showMeRevealsTheLostAck()
    {
        LabWidget w;
        show(w);
        w.openLesson(QStringLiteral("bughunt-lost-ack"));
        QSignalSpy revealed(w.bugHunt(), &LabBugHunt::revealed);
        QSignalSpy counterexample(w.bugHunt(), &LabBugHunt::counterexampleShown);
        QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("bugHuntShowMe")), Qt::LeftButton);
        QCOMPARE(revealed.size(), 1);
        QVERIFY(!revealed.at(0).at(0).toBool());
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("(S, Inv)")));
        QVERIFY(w.bugHunt()->verdict().contains(QStringLiteral("msi-directory-broken-lostack")));
        QVERIFY(counterexample.wait(30000));
        w.model()->last();
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("labError"))->text().contains(QStringLiteral("deadlock")));
        // Opening the hunt again asks again.
        w.openLesson(QStringLiteral("bughunt-lost-ack"));
        QVERIFY(w.bugHunt()->hidesAnswer());
        QCOMPARE(w.bugHunt()->attempts(), 0);
    }

    void aNewHuntsCheckerWaitsForTheOldOneWithoutBlocking()
    {
        // Reveal one hunt, then at once open and reveal the other: the first search is cancelled and the second
        // starts once it reports finished (the GUI thread no longer waits for it). Only the second's counterexample
        // reaches the lab, once.
        LabWidget w;
        show(w);
        QSignalSpy counterexample(w.bugHunt(), &LabBugHunt::counterexampleShown);
        w.openLesson(QStringLiteral("bughunt-lost-ack"));
        w.bugHunt()->showMe();
        QVERIFY(w.bugHunt()->isRunning());
        w.openLesson(QStringLiteral("bughunt-missing-inv"));
        QVERIFY(counterexample.isEmpty());
        w.bugHunt()->showMe();
        QVERIFY(w.bugHunt()->isRunning());
        QVERIFY(counterexample.wait(30000));
        QTRY_VERIFY(!w.bugHunt()->isRunning());
        QTest::qWait(50); // nothing else arrives
        QCOMPARE(counterexample.size(), 1);
        QCOMPARE(w.model()->protocolName(), w.bugHunt()->lesson().protocol);
        QCOMPARE(w.bugHunt()->lesson().id, QStringLiteral("bughunt-missing-inv"));
        QVERIFY(w.model()->isTrace());

        // Stopped while its search runs, a hunt shows nothing when that search ends.
        w.openLesson(QStringLiteral("bughunt-lost-ack"));
        w.bugHunt()->showMe();
        w.openProtocol(QStringLiteral("msi-directory"));
        QTRY_VERIFY(!w.bugHunt()->isRunning());
        QTest::qWait(50);
        QCOMPARE(counterexample.size(), 1);
        QVERIFY(!w.model()->isTrace());
    }

    void answersMustFitTheProtocolAndTheRun()
    {
        const QByteArray good = R"({"id":"hunt","title":"t","protocol":"msi-directory-broken-noinv","caches":2,
            "ops":"P0:R,P1:W","bug_hunt":true,"intro":"i","conclusion":"c","hints":["h"],
            "answer":{"violation":"swmr","controller":"directory","state":"S","event":"GetM"}})";
        Lesson l;
        QString error;
        const QString file = QStringLiteral("hunt.json");
        QVERIFY2(parseLesson(good, file, l, error), qPrintable(error));
        QCOMPARE(l.shownAs, QStringLiteral("Protocol variant under test"));
        QCOMPARE(l.answer.violation, co::Violation::Swmr);
        const struct {
            QByteArray from, to, field;
        } cases[] = {
            {R"("answer":{"violation":"swmr","controller":"directory","state":"S","event":"GetM"})", R"("x":1)",
             "\"answer\""},
            {R"("violation":"swmr")", R"("violation":"oops")", "answer/violation"},
            {R"("violation":"swmr")", R"("violation":"deadlock")", "answer/violation"}, // the run breaks SWMR
            {R"("controller":"directory")", R"("controller":"bus")", "answer/controller"},
            {R"("state":"S")", R"("state":"Q")", "\"answer\""},
            {R"("state":"S","event":"GetM")", R"("state":"M","event":"GetS")", "never takes"},
            {R"("hints":["h"])", R"("hints":[""])", "\"hints\""},
        };
        for (const auto& c : cases) {
            QByteArray bad = good;
            bad.replace(c.from, c.to);
            QVERIFY2(!parseLesson(bad, file, l, error), c.to.constData());
            QVERIFY2(error.contains(file) && error.contains(QLatin1String(c.field)), qPrintable(error));
        }
    }

  private:
    static void show(LabWidget& w)
    {
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
    }
};

QTEST_MAIN(TstLabHunt)
#include "tst_lab_hunt.moc"
