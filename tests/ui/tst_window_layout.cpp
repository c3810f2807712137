// The whole window at 1024×700 with the default layout: every tab, in the light and the dark palette, fits the
// room the docks leave it, cuts no control off and has no text under 4.5:1; the window fits the screen; docks
// hidden and shown come back at their size, the Lab open; Reset Layout gives the documented default sizes.
#include "ui/dock_layout.h"
#include "ui/document_files.h"
#include "ui/lab_model.h"
#include "ui/lab_widget.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/run_controller.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/theme.h"
#include "ui_checks.h"
#include "window_fixture.h"

#include <QAction>
#include <QDockWidget>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

using coh::ui::DockLayout;
using coh::ui::MainActions;
using coh::ui::MainWindow;

namespace {

constexpr int kWidth = 1024, kHeight = 700;
constexpr int kTabWidth = 680, kTabHeight = 440; // what each tab is made to fit (docs/gui-shell.md)

QString lines(const QStringList& list)
{
    return QLatin1Char('\n') + list.join(QLatin1Char('\n'));
}

} // namespace

class TstWindowLayout : public QObject, coh::ui::test::WindowFixture {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        isolate("tst_window_layout");
        openWindow(QSize(kWidth, kHeight));
        if (QTest::currentTestFailed())
            return;
        // First start (no saved layout): the defaults are applied once the window has its size.
        QTRY_COMPARE(m_window->scenarioDock()->width(), DockLayout::defaultScenarioWidth(kWidth));
        // Every tab with something in it: a finished run in Replay, Charts and History, a lesson in the Lab.
        QSignalSpy finished(m_window->runController(), &coh::ui::RunController::finished);
        m_window->runScenario();
        QVERIFY(finished.wait(120000));
        auto* lab = m_window->findChild<coh::ui::LabWidget*>();
        lab->openLesson(QStringLiteral("moesi-owned"));
        lab->model()->setCurrentStep(lab->model()->stepCount() / 2); // changed cells highlighted
    }

    void cleanupTestCase()
    {
        MainActions::applyPalette(false);
        m_window->document()->undoStack()->setClean();
        m_window.reset();
    }

    void windowFitsTheScreen()
    {
        const QSize minimum = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        QVERIFY2(
            minimum.width() <= kWidth && minimum.height() <= kHeight,
            qPrintable(QStringLiteral("the window needs at least %1x%2").arg(minimum.width()).arg(minimum.height())));
        QCOMPARE(m_window->size(), QSize(kWidth, kHeight));
    }

    void eachTabFitsAndReads_data()
    {
        QTest::addColumn<int>("tab");
        QTest::addColumn<bool>("dark");
        // Built before the window exists: the tab titles are fixed (MainWindow::buildTabs).
        const QStringList titles{QStringLiteral("Start"),  QStringLiteral("Topology"), QStringLiteral("Replay"),
                                 QStringLiteral("Charts"), QStringLiteral("Lab"),      QStringLiteral("History"),
                                 QStringLiteral("Tuner")};
        for (int i = 0; i < titles.size(); ++i)
            for (const bool dark : {false, true})
                QTest::newRow(qPrintable(titles[i] + (dark ? QStringLiteral(" dark") : QStringLiteral(" light"))))
                    << i << dark;
    }

    void eachTabFitsAndReads()
    {
        QFETCH(int, tab);
        QFETCH(bool, dark);
        MainActions::applyPalette(dark);
        QTabWidget* tabs = m_window->tabs();
        QCOMPARE(tabs->count(), 7);
        tabs->setCurrentIndex(tab);
        QTest::qWait(20); // layouts and paints settle
        QWidget* page = tabs->currentWidget();
        const QString name = tabs->tabText(tab);

        // The default layout leaves each tab at least 680×440, and the tab needs no more than it is given.
        const auto* scroll = m_window->findChild<QScrollArea*>(QStringLiteral("tabsScroll"));
        QVERIFY(scroll);
        const QSize room = scroll->viewport()->size() - QSize(0, tabs->tabBar()->height());
        QVERIFY2(room.width() >= kTabWidth && room.height() >= kTabHeight,
                 qPrintable(QStringLiteral("%1 gets %2x%3").arg(name).arg(room.width()).arg(room.height())));
        // Everything wrong with this tab at once, so one run lists all there is to fix.
        QStringList problems;
        const QSize needs = page->minimumSizeHint().expandedTo(page->minimumSize());
        if (needs.width() > room.width() || needs.height() > room.height())
            problems << QStringLiteral("%1 needs %2x%3, the window gives it %4x%5")
                            .arg(name)
                            .arg(needs.width())
                            .arg(needs.height())
                            .arg(room.width())
                            .arg(room.height());
        problems << coh::ui::test::clippedControls(m_window.get());
        problems << coh::ui::test::lowContrastTexts(m_window.get());
        QVERIFY2(problems.isEmpty(), qPrintable(lines(problems)));
    }

    void docksComeBackAtTheirSizeWithTheLabOpen()
    {
        MainActions::applyPalette(false);
        // The Lab needed 911 px: the window could not be narrower than that plus the Scenario form, and a
        // Scenario dock shown again with the Lab open got only what the Lab left, cut off and not widenable.
        m_window->tabs()->setCurrentWidget(m_window->findChild<coh::ui::LabWidget*>());
        struct Case {
            QDockWidget* dock;
            Qt::Orientation orientation;
            int size;
        };
        // Wider and taller than the defaults, so a dock coming back at its default size would not pass.
        const Case cases[] = {{m_window->scenarioDock(), Qt::Horizontal, 420},
                              {m_window->problemsDock(), Qt::Vertical, 150}};
        for (const Case& c : cases) {
            const auto extent = [&c] { return c.orientation == Qt::Horizontal ? c.dock->width() : c.dock->height(); };
            m_window->resizeDocks({c.dock}, {c.size}, c.orientation);
            QTRY_COMPARE(extent(), c.size);
            c.dock->toggleViewAction()->trigger();
            QTRY_VERIFY(!c.dock->isVisible());
            c.dock->toggleViewAction()->trigger();
            QTRY_VERIFY(c.dock->isVisible());
            QTRY_COMPARE(extent(), c.size);
        }
        QCOMPARE(m_window->size(), QSize(kWidth, kHeight));
    }

    void resetLayoutGivesTheDefaults()
    {
        QDockWidget* scenario = m_window->scenarioDock();
        QDockWidget* problems = m_window->problemsDock();
        m_window->resizeDocks({problems}, {300}, Qt::Vertical);
        m_window->resizeDocks({scenario}, {450}, Qt::Horizontal);
        QTRY_COMPARE(problems->height(), 300);
        scenario->setFloating(true);
        m_window->actions().resetLayout->trigger();
        QTRY_VERIFY(scenario->isVisible() && !scenario->isFloating());
        QTRY_COMPARE(scenario->width(), DockLayout::defaultScenarioWidth(kWidth));
        QTRY_COMPARE(problems->height(), m_window->dockLayout()->defaultProblemsHeight());
        // A few lines of problems, not a fifth of the screen.
        const int line = problems->fontMetrics().lineSpacing();
        QVERIFY2(
            problems->height() <= 8 * line,
            qPrintable(
                QStringLiteral("Problems is %1 px, %2 lines").arg(problems->height()).arg(problems->height() / line)));
        QVERIFY(scenario->width() <= 320);
        QCOMPARE(m_window->dockWidgetArea(scenario), Qt::LeftDockWidgetArea);
        QCOMPARE(m_window->dockWidgetArea(problems), Qt::BottomDockWidgetArea);
    }

    void largerWindowsGiveTheRoomToTheTabs()
    {
        m_window->resize(1600, 1000);
        m_window->resetLayout();
        QTRY_COMPARE(m_window->scenarioDock()->width(), DockLayout::defaultScenarioWidth(1600));
        QVERIFY(m_window->scenarioDock()->width() <= 380);
        QTRY_VERIFY(m_window->tabs()->width() >= 1600 - 380 - 20);
        m_window->resize(kWidth, kHeight);
        m_window->resetLayout();
        QTRY_COMPARE(m_window->scenarioDock()->width(), DockLayout::defaultScenarioWidth(kWidth));
    }

    void bothPalettesKeepTheirDerivedRolesReadable()
    {
        for (const QPalette& p : {MainActions::makeLightPalette(), MainActions::makeDarkPalette()}) {
            const QString which = coh::ui::isDark(p) ? QStringLiteral("dark") : QStringLiteral("light");
            const auto ratio = [&p](QPalette::ColorGroup g, QPalette::ColorRole fg, QPalette::ColorRole bg) {
                return coh::ui::contrastRatio(p.color(g, fg), p.color(g, bg));
            };
            const struct {
                QPalette::ColorGroup group;
                QPalette::ColorRole fg, bg;
                const char* what;
            } pairs[] = {
                {QPalette::Active, QPalette::WindowText, QPalette::Window, "window text"},
                {QPalette::Active, QPalette::Text, QPalette::Base, "text"},
                {QPalette::Active, QPalette::ButtonText, QPalette::Button, "button text"},
                {QPalette::Disabled, QPalette::WindowText, QPalette::Window, "disabled window text"},
                {QPalette::Disabled, QPalette::Text, QPalette::Base, "disabled text"},
                {QPalette::Disabled, QPalette::ButtonText, QPalette::Button, "disabled button text"},
                {QPalette::Active, QPalette::PlaceholderText, QPalette::Base, "placeholder"},
                {QPalette::Active, QPalette::ToolTipText, QPalette::ToolTipBase, "tooltip"},
                {QPalette::Active, QPalette::Link, QPalette::Base, "link"},
                {QPalette::Active, QPalette::HighlightedText, QPalette::Highlight, "selection"},
                {QPalette::Inactive, QPalette::HighlightedText, QPalette::Highlight, "inactive selection"},
            };
            for (const auto& pair : pairs)
                QVERIFY2(ratio(pair.group, pair.fg, pair.bg) >= 4.5,
                         qPrintable(QStringLiteral("%1 %2: %3:1")
                                        .arg(which, QLatin1String(pair.what))
                                        .arg(ratio(pair.group, pair.fg, pair.bg), 0, 'f', 2)));
            // Greyed text still looks greyed: nearer the background than the enabled text is.
            QVERIFY(ratio(QPalette::Disabled, QPalette::ButtonText, QPalette::Button) <
                    ratio(QPalette::Active, QPalette::ButtonText, QPalette::Button) - 2);
        }
    }

    void thePaletteIsRememberedAndRestylesTheWindow()
    {
        QAction* dark = m_window->actions().darkPalette;
        dark->setChecked(true);
        QVERIFY(QSettings().value(QStringLiteral("darkPalette")).toBool());
        // Every widget, docks included, hears of it: the form's background is the dark window colour.
        QVERIFY(coh::ui::isDark(m_window->scenarioPanel()->palette()));
        QVERIFY(coh::ui::isDark(m_window->toolBar()->palette()));
        MainActions::applyPalette(false); // as the next start would begin
        {
            MainWindow second(m_db);
            QVERIFY(second.actions().darkPalette->isChecked());
            QVERIFY(coh::ui::isDark(QApplication::palette()));
        }
        dark->setChecked(false);
        QVERIFY(!QSettings().value(QStringLiteral("darkPalette")).toBool());
        QVERIFY(!coh::ui::isDark(m_window->scenarioPanel()->palette()));
    }
};

QTEST_MAIN(TstWindowLayout)
#include "tst_window_layout.moc"
