// The Lab as a learner sees it: it fits and reads at 680x440 (what a 1024x700 window leaves it) and 1600x1000 in
// both palettes; opening a 2-cache lesson moves nothing in the lesson list; chart labels never overlap; every
// lifeline, the directory's included, is in view; the walk-through opens on its first op with an introduction;
// and highlights are tints of the palette.
#include "ui/lab_bug_hunt.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_widget.h"
#include "ui/main_actions.h"
#include "ui/sequence_chart.h"
#include "ui/sequence_chart_header.h"
#include "ui/theme.h"
#include "ui_checks.h"

#include <QAbstractButton>
#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace coh::ui;

namespace {

void showAt(LabWidget& w, QSize size)
{
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

QString overlapping(const SequenceChart* chart)
{
    const auto& arrows = chart->arrows();
    for (std::size_t i = 0; i < arrows.size(); ++i)
        for (std::size_t j = i + 1; j < arrows.size(); ++j)
            if (arrows[i].labelRect.intersects(arrows[j].labelRect))
                return QStringLiteral("\"%1\" and \"%2\"").arg(arrows[i].label, arrows[j].label);
    return {};
}

} // namespace

class TstLabLayout : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { MainActions::applyPalette(false); }

    void fitsAndReads_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        // 680x440: what a 1024x700 window leaves the Lab; 1014x682: a 1400x900 window's; and a large screen.
        for (const QSize size : {QSize(680, 440), QSize(1014, 682), QSize(1600, 1000)})
            for (const bool dark : {false, true})
                QTest::addRow("%dx%d %s", size.width(), size.height(), dark ? "dark" : "light") << size << dark;
    }
    void fitsAndReads()
    {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        LabWidget w;
        showAt(w, size);
        MainActions::applyPalette(dark);
        // Each state the Lab can be in, and each side tab, is looked at as the learner would see it.
        const auto check = [&w](const char* what) {
            for (int tab = 0; tab < w.sideTabs()->count(); ++tab) {
                w.sideTabs()->setCurrentIndex(tab);
                // Let the layouts settle first, as they would before the learner sees anything.
                for (int i = 0; i < 4; ++i)
                    QCoreApplication::processEvents();
                const QString where = QStringLiteral("%1, tab %2").arg(QLatin1String(what), w.sideTabs()->tabText(tab));
                QVERIFY2(test::clippedControls(&w).isEmpty(),
                         qPrintable(where + QLatin1Char(' ') + test::clippedControls(&w).join(QLatin1Char('\n'))));
                QVERIFY2(test::lowContrastTexts(&w).isEmpty(),
                         qPrintable(where + QLatin1Char(' ') + test::lowContrastTexts(&w).join(QLatin1Char('\n'))));
            }
        };
        check("walk-through");
        w.model()->setCurrentStep(6); // highlights in the state and transition tables
        check("walk-through step 6");
        w.openLesson(QStringLiteral("moesi-owned"));
        w.model()->last();
        check("lesson conclusion");
        w.openLesson(QStringLiteral("bughunt-missing-inv"));
        w.model()->last();
        w.bugHunt()->showHint();
        w.bugHunt()->setAnswer(coh::core::coherence::Violation::Deadlock,
                               {false, QStringLiteral("I"), QStringLiteral("Load")});
        w.bugHunt()->checkAnswer();
        check("bug hunt, wrong answer");
        QSignalSpy counterexample(w.bugHunt(), &LabBugHunt::counterexampleShown);
        w.bugHunt()->showMe();
        QVERIFY(counterexample.wait(30000));
        w.model()->last();
        check("bug hunt revealed");
        w.openProtocol(QStringLiteral("msi-directory"));
        w.model()->setDeliverByHand(true);
        QVERIFY(w.model()->load(QStringLiteral("msi-directory"), 2, QStringLiteral("P0:W,D:*,P1:W,D:0,P0:E")));
        w.model()->last();
        check("messages in flight");
    }

    void aTwoCacheLessonMovesNothingInTheList()
    {
        LabWidget w;
        showAt(w, QSize(680, 440));
        QListWidget* list = w.lessonPanel()->list();
        list->verticalScrollBar()->setValue(list->verticalScrollBar()->maximum());
        const int scroll = list->verticalScrollBar()->value();
        const QRect where(list->mapTo(&w, QPoint(0, 0)), list->size());
        const auto rowOf = [list](const char* id) {
            for (int i = 0; i < list->count(); ++i)
                if (list->item(i)->data(Qt::UserRole).toString() == QLatin1String(id))
                    return i;
            return -1;
        };
        for (const char* id : {"moesi-owned", "cxl-bias", "broadcast-sockets", "moesi-owned"}) {
            const int row = rowOf(id);
            QVERIFY(row >= 0);
            list->scrollToItem(list->item(row));
            const int before = list->verticalScrollBar()->value();
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(row)).center());
            QCOMPARE(w.lessonPanel()->currentLesson()->id, QLatin1String(id));
            QCOMPARE(QRect(list->mapTo(&w, QPoint(0, 0)), list->size()), where);
            QCOMPARE(list->verticalScrollBar()->value(), before);
            QCOMPARE(list->currentRow(), row);
            QVERIFY(list->item(row)->isSelected());
        }
        Q_UNUSED(scroll);
        QCOMPARE(w.model()->caches(), 2); // moesi-owned has two caches, broadcast-sockets four
    }

    void theOpRowsKeepTheirPlace()
    {
        LabWidget w;
        showAt(w, QSize(680, 440));
        w.sideTabs()->setCurrentIndex(1);
        auto* reset = w.findChild<QAbstractButton*>(QStringLiteral("labReset"));
        const QPoint at = reset->mapTo(&w, QPoint(0, 0));
        for (int caches : {2, 4, 3}) {
            w.model()->setCaches(caches);
            QCOMPARE(reset->mapTo(&w, QPoint(0, 0)), at);
        }
    }

    void thePlayTabFitsWithItsDeliveryButtonsInView_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("caches");
        QTest::addColumn<QString>("ops");
        // Four caches: the op grid at its tallest, with four messages in flight.
        for (const QSize size : {QSize(680, 440), QSize(1014, 682), QSize(1600, 1000)}) {
            QTest::addRow("%dx%d, 3 caches", size.width(), size.height()) << size << 3 << "P0:W,D:*,P1:W,D:0,P0:E";
            QTest::addRow("%dx%d, 4 caches", size.width(), size.height()) << size << 4 << "P0:R,D:0,P1:W,P2:W,P3:W";
        }
    }
    void thePlayTabFitsWithItsDeliveryButtonsInView()
    {
        QFETCH(QSize, size);
        QFETCH(int, caches);
        QFETCH(QString, ops);
        LabWidget w;
        showAt(w, size);
        w.model()->setDeliverByHand(true);
        QVERIFY(w.model()->load(QStringLiteral("msi-directory"), caches, ops));
        w.model()->last();
        QVERIFY(w.model()->inFlight().size() >= 2);
        w.sideTabs()->setCurrentIndex(1);
        for (int i = 0; i < 4; ++i)
            QCoreApplication::processEvents();
        auto* play = qobject_cast<QScrollArea*>(w.sideTabs()->currentWidget());
        QVERIFY(play);
        // Nothing to scroll sideways to (at 680x440 the content was 219 px in a 213 px viewport) ...
        QVERIFY(!play->horizontalScrollBar()->isVisible());
        QVERIFY(play->widget()->width() <= play->viewport()->width());
        // ... and Deliver / Deliver all in view without scrolling down: the list gives way first.
        QVERIFY(!play->verticalScrollBar()->isVisible());
        const QRect viewport = play->viewport()->rect();
        for (const char* name : {"labDeliver", "labDeliverAll", "labFlightList"}) {
            auto* widget = play->findChild<QWidget*>(QLatin1String(name));
            QVERIFY(widget && widget->isVisible());
            const QRect at(widget->mapTo(play->viewport(), QPoint(0, 0)), widget->size());
            QVERIFY2(viewport.contains(at), qPrintable(QStringLiteral("%1 at %2,%3 %4x%5")
                                                           .arg(QLatin1String(name))
                                                           .arg(at.x())
                                                           .arg(at.y())
                                                           .arg(at.width())
                                                           .arg(at.height())));
        }
        // At least three messages show in the list.
        auto* list = play->findChild<QListWidget*>(QStringLiteral("labFlightList"));
        QVERIFY(list->viewport()->height() >= 3 * list->visualItemRect(list->item(0)).height());
    }

    void chartLabelsNeverOverlap_data()
    {
        QTest::addColumn<QString>("protocol");
        QTest::addColumn<int>("caches");
        QTest::addColumn<QString>("ops");
        QTest::addColumn<QSize>("size");
        QTest::newRow("msi tour narrow") << "msi-directory" << 3 << "" << QSize(680, 440);
        QTest::newRow("msi invalidations") << "msi-directory" << 3 << "P0:R,P1:R,P2:W,P0:R" << QSize(680, 440);
        QTest::newRow("msi acks first") << "msi-directory" << 3 << "P0:R,D:*,P1:R,D:*,P2:W,D:0,D:1,D:2,D:1,D:1,D:0"
                                        << QSize(1600, 1000);
        QTest::newRow("snoop broadcast") << "mesi-snooping" << 4 << "P0:R,P1:R,P2:R,P3:W" << QSize(680, 440);
        QTest::newRow("moesi tour wide") << "moesi-directory" << 4 << "" << QSize(1600, 1000);
    }
    void chartLabelsNeverOverlap()
    {
        QFETCH(QString, protocol);
        QFETCH(int, caches);
        QFETCH(QString, ops);
        QFETCH(QSize, size);
        LabWidget w;
        showAt(w, size);
        const QString script =
            ops.isEmpty() ? QString::fromStdString(coh::core::coherence::defaultLabOps(caches)) : ops;
        QVERIFY(w.model()->load(protocol, caches, script));
        int labels = 0;
        for (int s = 0; s <= w.model()->stepCount(); ++s) {
            w.model()->setCurrentStep(s);
            QVERIFY2(overlapping(w.chart()).isEmpty(),
                     qPrintable(QStringLiteral("step %1: %2").arg(s).arg(overlapping(w.chart()))));
            labels = std::max(labels, w.chart()->arrowCount());
        }
        QVERIFY(labels > 5);
    }

    void everyLifelineIsInView()
    {
        for (const QSize size : {QSize(680, 440), QSize(1600, 1000)}) {
            LabWidget w;
            showAt(w, size);
            w.model()->setCaches(4);
            SequenceChart* chart = w.chart();
            const QWidget* viewport = w.chartScroll()->viewport();
            QVERIFY(!w.chartScroll()->horizontalScrollBar()->isVisible());
            QVERIFY(chart->width() <= viewport->width());
            const auto* header = w.findChild<SequenceChartHeader*>();
            QVERIFY(header && header->isVisible());
            for (int l = 0; l <= 4; ++l) {
                QVERIFY(chart->lifelineX(l) > 0 && chart->lifelineX(l) < viewport->width());
                QVERIFY2(header->rect().contains(header->nameRect(l).toRect()), qPrintable(QString::number(l)));
            }
            // The names stay in view however far the chart scrolls.
            w.model()->last();
            QVERIFY(header->isVisible());
        }
    }

    void theWalkThroughOpensWithAnIntroduction()
    {
        LabWidget w;
        showAt(w, QSize(680, 440));
        QCOMPARE(w.model()->protocolName(), QStringLiteral("msi-directory"));
        QCOMPARE(w.model()->currentStep(), 1);
        QVERIFY(w.chart()->arrowCount() > 0);
        QCOMPARE(w.findChild<QLabel*>(QStringLiteral("labPosition"))->text(),
                 QStringLiteral("Step 1 of %1").arg(w.model()->stepCount()));
        QCOMPARE(w.sideTabs()->currentWidget(), static_cast<QWidget*>(w.lessonPanel()));
        const QString text = w.lessonPanel()->text();
        QVERIFY2(text.contains(QStringLiteral("Walk-through")) && text.contains(QStringLiteral("What you will see")) &&
                     text.contains(QStringLiteral("Controls")),
                 qPrintable(text));
        QVERIFY(text.contains(QString::number(w.model()->stepCount())));
    }

    void highlightsAreTintsOfThePalette()
    {
        for (const bool dark : {false, true}) {
            LabWidget w;
            showAt(w, QSize(1600, 1000));
            MainActions::applyPalette(dark);
            w.model()->setCurrentStep(1); // P0 issues its load: its state changes
            const QVariant fill = w.stateModel()->index(0, LabStateTableModel::StateColumn).data(Qt::BackgroundRole);
            QCOMPARE(fill.value<QBrush>().color(), toneFill(Tone::Warning, QApplication::palette()));
            QVERIFY(contrastRatio(QApplication::palette().color(QPalette::Text), fill.value<QBrush>().color()) >= 4.5);
            auto* error = w.findChild<QLabel*>(QStringLiteral("labError"));
            QCOMPARE(error->palette().color(QPalette::WindowText), toneColor(Tone::Error, QApplication::palette()));
        }
    }
};

QTEST_MAIN(TstLabLayout)
#include "tst_lab_layout.moc"
