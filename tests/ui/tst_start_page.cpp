// The Start tab: every shipped scenario and preset listed with its description and opened by activation, the
// lessons listed and opened in the Lab, Run forwarded.
#include "core/scenario/datasets_dir.h"
#include "ui/start_page.h"

#include <QDir>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

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
};

QTEST_MAIN(TstStartPage)
#include "tst_start_page.moc"
