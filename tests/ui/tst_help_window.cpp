// The help window opens at a size that suits the window it is opened from (the rule Compare uses too), and the
// guides' wide pictures are scaled to the page with their proportions kept.
#include "ui/help_window.h"
#include "ui/window_size.h"

#include <QImageReader>
#include <QScreen>
#include <QStandardPaths>
#include <QTextBlock>
#include <QtTest>

using namespace coh::ui;

class TstHelpWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theSizeRuleBoundsByWindowAndScreen()
    {
        const QSize help(900, 700);
        // Room: the preferred size. A 1024x700 window on a 1024x700 screen: 0.9 x 700 = 630 high, 900 still fits
        // in 0.9 x 1024 = 921.6.
        QCOMPARE(fittedSize(help, QSize(1600, 1000), QSize(1920, 1200)), QSize(900, 700));
        QCOMPARE(fittedSize(help, QSize(1024, 700), QSize(1024, 700)), QSize(900, 630));
        // A small window on a large screen: 0.9 x 800 = 720, 0.9 x 600 = 540; no window: the screen alone.
        QCOMPARE(fittedSize(help, QSize(800, 600), QSize(1920, 1200)), QSize(720, 540));
        QCOMPARE(fittedSize(help, QSize(), QSize(1024, 700)), QSize(900, 630));
        QCOMPARE(fittedSize(help, QSize(), QSize()), help);
    }

    void opensInsideTheWindowItIsOpenedFrom_data()
    {
        QTest::addColumn<QSize>("window");
        QTest::newRow("1024x700") << QSize(1024, 700);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
    }
    void opensInsideTheWindowItIsOpenedFrom()
    {
        QFETCH(QSize, window);
        QWidget top;
        top.resize(window);
        top.show();
        QVERIFY(QTest::qWaitForWindowExposed(&top));
        HelpWindow help(&top);
        const QSize expected = fittedSize(QSize(900, 700), window, top.screen()->availableGeometry().size());
        QCOMPARE(help.size(), expected);
        // Never as tall as the window it opens over (it was 900x700 whatever the window).
        QVERIFY(help.height() < window.height() && help.width() < window.width());
    }

    void widePicturesAreScaledToThePage()
    {
        HelpWindow help;
        help.showGuide(QStringLiteral("gui.md"));
        HelpBrowser* browser = help.browser();
        int scaled = 0;
        for (QTextBlock b = browser->document()->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it) {
                const QTextImageFormat image = it.fragment().charFormat().toImageFormat();
                if (!image.isValid())
                    continue;
                const QSize picture =
                    QImageReader(QLatin1Char(':') + browser->source().resolved(QUrl(image.name())).path()).size();
                QVERIFY2(picture.isValid(), qPrintable(image.name()));
                if (picture.width() <= 760) {
                    QCOMPARE(image.width(), 0.0); // left at its own size
                    continue;
                }
                // 760 px wide, as tall as the picture's proportions make it.
                QCOMPARE(image.width(), 760.0);
                QCOMPARE(image.height(), double(picture.height()) * 760 / picture.width());
                ++scaled;
            }
        QVERIFY(scaled > 0); // gui.md shows 1600-px screenshots
    }
};

QTEST_MAIN(TstHelpWindow)
#include "tst_help_window.moc"
