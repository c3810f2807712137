// The Start tab: every shipped scenario and preset listed with its description and opened by activation, the
// lessons listed and opened in the Lab, Run forwarded and disabled with the reason; readable and whole at the
// sizes the window gives it, in both palettes.
#include "core/scenario/datasets_dir.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_widget.h"
#include "ui/lesson.h"
#include "ui/main_actions.h"
#include "ui/start_page.h"
#include "ui/theme.h"
#include "ui_checks.h"

#include <QDir>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using coh::ui::LabWidget;
using coh::ui::Lesson;
using coh::ui::loadLessons;
using coh::ui::StartPage;

class TstStartPage : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void listsEveryShippedScenarioAndOpensIt()
    {
        StartPage page;
        const QDir datasets(QString::fromStdString(coh::core::datasetsDir()));
        QStringList expected;
        for (const char* folder : {"scenarios", "presets"})
            for (const QFileInfo& f :
                 QDir(datasets.filePath(QLatin1String(folder))).entryInfoList({QStringLiteral("*.json")}, QDir::Files))
                expected << f.absoluteFilePath();
        QVERIFY(expected.size() >= 7);
        QStringList listed;
        QListWidget* list = page.scenarioList();
        for (int i = 0; i < list->count(); ++i) {
            const QString path = list->item(i)->data(Qt::UserRole).toString();
            if (!listed.contains(path))
                listed << path;
        }
        expected.sort();
        listed.sort();
        QCOMPARE(listed, expected);
        // Each file has its name row and a description row (every shipped file has a description).
        QCOMPARE(list->count(), 2 * expected.size());

        QSignalSpy open(&page, &StartPage::openRequested);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        list->setCurrentRow(0);
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Return);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.at(0).at(0).toString(), list->item(0)->data(Qt::UserRole).toString());
    }

    void lessonsAndRunAreOneClickAway()
    {
        StartPage page;
        QVERIFY(page.lessonList()->count() >= 8);
        QSignalSpy lesson(&page, &StartPage::lessonRequested);
        emit page.lessonList()->itemActivated(page.lessonList()->item(0));
        QCOMPARE(lesson.count(), 1);
        QVERIFY(!lesson.at(0).at(0).toString().isEmpty());

        QSignalSpy run(&page, &StartPage::runRequested);
        auto* button = page.findChild<QPushButton*>(QStringLiteral("startRun"));
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(run.count(), 1);
    }

    void lessonsAreListedAsTheLabListsThem()
    {
        // The Start page called the bug hunts "MSI directory, variant A"; the Lab "Bug hunt: MSI directory, variant
        // A". Both lists now read the same titles, and neither tooltip names a bug hunt's protocol.
        StartPage page;
        LabWidget lab;
        QListWidget* start = page.lessonList();
        QListWidget* inLab = lab.lessonPanel()->list();
        QCOMPARE(start->count(), inLab->count());
        QStringList errors;
        const std::vector<Lesson> lessons = loadLessons(errors);
        QCOMPARE(start->count(), static_cast<int>(lessons.size()));
        int hunts = 0;
        for (int i = 0; i < start->count(); ++i) {
            const Lesson& lesson = lessons[static_cast<std::size_t>(i)];
            QCOMPARE(start->item(i)->text(), inLab->item(i)->text());
            QCOMPARE(start->item(i)->toolTip(), inLab->item(i)->toolTip());
            QCOMPARE(start->item(i)->text().startsWith(QStringLiteral("Bug hunt: ")), lesson.bugHunt);
            if (lesson.bugHunt) {
                ++hunts;
                QVERIFY2(!start->item(i)->toolTip().contains(lesson.protocol), qPrintable(start->item(i)->toolTip()));
            }
        }
        QVERIFY(hunts >= 2);
    }

    void runIsDisabledWithTheReason()
    {
        StartPage page;
        page.setRunState(false, QStringLiteral("Fix the scenario first (see Problems):\n/topology/links/0/bandwidth"));
        QVERIFY(!page.runButton()->isEnabled());
        QVERIFY(page.runButton()->toolTip().contains(QStringLiteral("bandwidth")));
        QSignalSpy run(&page, &StartPage::runRequested);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTest::mouseClick(page.runButton(), Qt::LeftButton);
        QCOMPARE(run.count(), 0);
        page.setRunState(true, QStringLiteral("Simulate the scenario and store the run (F5)"));
        QTest::mouseClick(page.runButton(), Qt::LeftButton);
        QCOMPARE(run.count(), 1);
    }

    void readableAndWholeInBothPalettes_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        for (const QSize size : {QSize(680, 440), QSize(1600, 1000)})
            for (const bool dark : {false, true})
                QTest::newRow(qPrintable(QStringLiteral("%1x%2 %3")
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"))))
                    << size << dark;
    }

    void readableAndWholeInBothPalettes()
    {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        StartPage page;
        page.setCurrentScenario(QStringLiteral("default.json"));
        page.resize(size);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        // Switched while shown, as View → Dark Palette does: the descriptions follow.
        coh::ui::MainActions::applyPalette(dark);
        QCOMPARE(page.size(), size);
        const QStringList problems = coh::ui::test::clippedControls(&page) + coh::ui::test::lowContrastTexts(&page);
        coh::ui::MainActions::applyPalette(false);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TstStartPage)
#include "tst_start_page.moc"
