// Palette-derived colours: WCAG contrast arithmetic, tones readable in both palettes, tones and charts that follow
// a palette change, and the shared checks (ui_checks.h) finding what they are meant to find.
#include "ui/main_actions.h"
#include "ui/theme.h"
#include "ui_checks.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QTest>
#include <QVBoxLayout>
#include <QValueAxis>

using namespace coh::ui;

class TestTheme : public QObject {
    Q_OBJECT
  private slots:
    void cleanup() { MainActions::applyPalette(false); }

    void contrastRatioMatchesWcag()
    {
        // Black on white is the maximum, 21:1; a colour against itself is 1:1.
        QCOMPARE(qRound(contrastRatio(Qt::black, Qt::white) * 100), 2100);
        QCOMPARE(contrastRatio(QColor(0x77, 0x77, 0x77), QColor(0x77, 0x77, 0x77)), 1.0);
        // WCAG's worked example: #767676 on white is the lightest grey that passes AA, 4.54:1.
        QCOMPARE(qRound(contrastRatio(QColor(0x76, 0x76, 0x76), Qt::white) * 100), 454);
    }

    void readableOnReachesTheRatio()
    {
        // Pale yellow on white and dark blue on near-black both start far below 4.5:1.
        const QColor paleOnWhite = readableOn(QColor(255, 224, 130), Qt::white);
        QVERIFY(contrastRatio(paleOnWhite, Qt::white) >= 4.5);
        const QColor blueOnDark = readableOn(QColor(0x10, 0x20, 0x60), QColor(30, 30, 32));
        QVERIFY(contrastRatio(blueOnDark, QColor(30, 30, 32)) >= 4.5);
        // A colour that already reads is returned as it is.
        QCOMPARE(readableOn(Qt::black, Qt::white), QColor(Qt::black));
        QCOMPARE(textOn(QColor(0x00, 0x72, 0xB2)), QColor(Qt::white));
        QCOMPARE(textOn(QColor(0xE6, 0x9F, 0x00)), QColor(Qt::black));
    }

    void tonesReadInBothPalettes_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void tonesReadInBothPalettes()
    {
        QFETCH(bool, dark);
        MainActions::applyPalette(dark);
        const QPalette p = QApplication::palette();
        QCOMPARE(isDark(p), dark);
        for (Tone tone : {Tone::Normal, Tone::Muted, Tone::Error, Tone::Warning, Tone::Good, Tone::Accent}) {
            QVERIFY2(contrastRatio(toneColor(tone, p), p.color(QPalette::Window)) >= 4.5,
                     qPrintable(QStringLiteral("tone %1 on window").arg(int(tone))));
            QVERIFY2(contrastRatio(toneColor(tone, p, p.color(QPalette::Base)), p.color(QPalette::Base)) >= 4.5,
                     qPrintable(QStringLiteral("tone %1 on base").arg(int(tone))));
            const QColor fill = toneFill(tone, p);
            QVERIFY2(contrastRatio(p.color(QPalette::Text), fill) >= 4.5,
                     qPrintable(QStringLiteral("text on tone %1 fill").arg(int(tone))));
        }
        // The fills are visibly tinted, not the plain base.
        QVERIFY(toneFill(Tone::Good, p) != p.color(QPalette::Base));
        QVERIFY(toneFill(Tone::Error, p) != p.color(QPalette::Base));
    }

    void toneFollowsPaletteChanges()
    {
        QWidget window;
        auto* label = new QLabel(QStringLiteral("3 problems"), &window);
        setTone(label, Tone::Error);
        window.show(); // only shown windows hear of a new application palette
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QColor light = label->palette().color(QPalette::WindowText);
        QVERIFY(contrastRatio(light, QApplication::palette().color(QPalette::Window)) >= 4.5);
        MainActions::applyPalette(true);
        const QColor dark = label->palette().color(QPalette::WindowText);
        QVERIFY(dark != light);
        QVERIFY(contrastRatio(dark, QApplication::palette().color(QPalette::Window)) >= 4.5);
        // The label still has the dark window behind it, not the explicit light one.
        QCOMPARE(label->palette().color(QPalette::Window), QApplication::palette().color(QPalette::Window));
    }

    void chartsFollowThePalette()
    {
        QChartView view;
        auto* series = new QLineSeries;
        series->append(0, 1);
        series->append(1, 2);
        view.chart()->addSeries(series);
        view.chart()->setTitle(QStringLiteral("TTFT"));
        view.chart()->createDefaultAxes();
        keepChartStyled(view.chart());
        QCOMPARE(view.chart()->backgroundBrush().color(), QApplication::palette().color(QPalette::Base));
        MainActions::applyPalette(true);
        QCOMPARE(view.chart()->backgroundBrush().color(), QApplication::palette().color(QPalette::Base));
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(test::lowContrastTexts(&view), QStringList());
    }

    void checksFindWhatTheyAreFor()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* faint = new QLabel(QStringLiteral("nearly invisible"));
        QPalette p = faint->palette();
        p.setColor(QPalette::WindowText, QColor(0xdd, 0xdd, 0xdd));
        faint->setPalette(p);
        layout->addWidget(faint);
        auto* rich = new QLabel(QStringLiteral("<span style='color:#ffffff;background:#fff3c0'>highlight</span>"));
        layout->addWidget(rich);
        auto* fine = new QLabel(QStringLiteral("readable"));
        layout->addWidget(fine);
        auto* squeezed = new QPushButton(QStringLiteral("A button with a long caption"));
        layout->addWidget(squeezed);
        window.resize(400, 200);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QStringList low = test::lowContrastTexts(&window);
        QCOMPARE(low.size(), 2);
        QVERIFY(low[0].contains(QStringLiteral("nearly invisible")));
        QVERIFY(low[1].contains(QStringLiteral("highlight")));
        QCOMPARE(test::clippedControls(&window), QStringList());
        // Squeezed below its text: the layout cannot honour the button's minimum, so the check reports it.
        squeezed->setParent(nullptr);
        squeezed->setParent(&window);
        squeezed->setGeometry(380, 150, 60, 20);
        squeezed->show();
        const QStringList cut = test::clippedControls(&window);
        QCOMPARE(cut.size(), 2); // leaves the window, and narrower than its caption
    }
};

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
