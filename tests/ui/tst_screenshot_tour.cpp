// `cohstudio --screenshots`, offscreen: the tour saves every picture it lists, each at the size its name says,
// light and dark really differ, Compare gets the scenario's run and the same scenario under another decode
// protocol, the replay picture's message is a data message with its protocol step, and the user's palette is
// left as it was. Its helpers are checked on small inputs whose answers are worked out by hand.
#include "core/store/run_store.h"
#include "ui/document_files.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/message_roles.h"
#include "ui/replay_message_details.h"
#include "ui/replay_widget.h"
#include "ui/scenario_document.h"
#include "ui/screenshot_scenes.h"
#include "ui/screenshot_tour.h"
#include "ui/tuner_panel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <memory>

using namespace coh;
using coh::ui::ScreenshotTour;

namespace {

core::MessageRecord message(core::SimTime start, core::SimTime end)
{
    core::MessageRecord m;
    m.start = start;
    m.end = end;
    return m;
}

// The mean of the picture's grey levels (0 black .. 255 white), every 8th pixel each way.
double meanGrey(const QImage& image)
{
    double sum = 0;
    int n = 0;
    for (int y = 0; y < image.height(); y += 8)
        for (int x = 0; x < image.width(); x += 8, ++n)
            sum += qGray(image.pixel(x, y));
    return n ? sum / n : 0;
}

} // namespace

class TstScreenshotTour : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Never the user's settings or run database.
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("CoherenceStudioTests"));
        QApplication::setApplicationName(QStringLiteral("tst_screenshot_tour"));
    }

    void busiestInstantCountsEndsBeforeStarts()
    {
        core::RunResult run;
        // [0,10) [5,15) [12,20): two in flight over [5,10) and [12,15); the first such instant is 5.
        run.messages = {message(0, 10), message(5, 15), message(12, 20)};
        QCOMPARE(ui::busiestInstant(run), qint64(5));
        // [0,5) [5,10) [5,8): at 5 the first has arrived as two start, so 5 holds two, 0 only one.
        run.messages = {message(0, 5), message(5, 10), message(5, 8)};
        QCOMPARE(ui::busiestInstant(run), qint64(5));
        run.messages.clear();
        QCOMPARE(ui::busiestInstant(run), qint64(0));
    }

    void comparedProtocolIsTheOtherOne()
    {
        using nlohmann::ordered_json;
        QCOMPARE(ui::comparedDecodeProtocol(ordered_json::parse(R"({"coherence": {"decode": "msi-directory"}})")),
                 QStringLiteral("lazy-causal"));
        QCOMPARE(ui::comparedDecodeProtocol(ordered_json::parse(R"({"coherence": {"decode": "lazy-causal"}})")),
                 QStringLiteral("msi-directory"));
        QCOMPARE(ui::comparedDecodeProtocol(ordered_json::parse(R"({"name": "no coherence section"})")),
                 QStringLiteral("lazy-causal"));
    }

    void grabOverCentresTheWindowWithAFrame()
    {
        QWidget main, over;
        main.setAutoFillBackground(true);
        over.setAutoFillBackground(true);
        QPalette red = main.palette(), blue = over.palette();
        red.setColor(QPalette::Window, Qt::red);
        red.setColor(QPalette::Shadow, Qt::black);
        blue.setColor(QPalette::Window, Qt::blue);
        main.setPalette(red);
        over.setPalette(blue);
        main.resize(200, 100);
        over.resize(100, 50);
        const QImage picture = ui::grabOver(&main, &over).toImage();
        QCOMPARE(picture.size(), QSize(200, 100));
        // Centred: (200 - 100) / 2 = 50, (100 - 50) / 2 = 25; the frame runs one pixel outside it.
        QCOMPARE(picture.pixelColor(50, 25), QColor(Qt::blue));
        QCOMPARE(picture.pixelColor(149, 74), QColor(Qt::blue));
        QCOMPARE(picture.pixelColor(49, 40), QColor(Qt::black));
        QCOMPARE(picture.pixelColor(150, 40), QColor(Qt::black));
        QCOMPARE(picture.pixelColor(10, 10), QColor(Qt::red));
        QCOMPARE(picture.pixelColor(100, 90), QColor(Qt::red));
    }

    void theTourSavesEveryPictureItLists()
    {
        const QString db = m_dir.filePath(QStringLiteral("runs.db"));
        const QString out = m_dir.filePath(QStringLiteral("pictures"));
        auto window = std::make_unique<ui::MainWindow>(db);
        QVERIFY(window->openScenario(ui::DocumentFiles::defaultScenarioPath()));
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(!window->actions().darkPalette->isChecked());

        ScreenshotTour tour(window.get(), out);
        // Seven tabs and, per palette, replay-message, compare, compare-cdf, help, lab-bughunt, lab-delivery,
        // tuner-parallel, study-builder, compare-real, history-real, execute-on and costs-profile at 1600x1000, with
        // compare, lab-delivery, tuner-parallel, compare-real and history-real at 1024x700 too: 2 x (7 x 2 + 12 + 5) =
        // 62.
        QCOMPARE(tour.expectedCount(), 62);
        QSignalSpy finished(&tour, &ScreenshotTour::finished);
        tour.start();
        QVERIFY(finished.count() == 1 || finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(tour.saved().size(), 62);
        // The Tuner has the study's points: its table lists them, and parallel coordinates is another picture.
        QCOMPARE(window->tunerPanel()->table()->rowCount(), 20);

        // Every file the tour says it saved, and nothing else, each at the size its name says.
        QStringList expected;
        const QStringList tabs{QStringLiteral("start"),  QStringLiteral("topology"), QStringLiteral("replay"),
                               QStringLiteral("charts"), QStringLiteral("lab"),      QStringLiteral("history"),
                               QStringLiteral("tuner")};
        for (const bool dark : {false, true})
            for (const QSize& size : ScreenshotTour::sizes()) {
                for (const QString& tab : tabs)
                    expected << ScreenshotTour::fileName(tab, dark, size);
                for (const ScreenshotTour::Extra& extra : ScreenshotTour::extras())
                    if (extra.small || size == QSize(1600, 1000))
                        expected << ScreenshotTour::fileName(extra.view, dark, size);
            }
        QStringList files = QDir(out).entryList({QStringLiteral("*.png")}, QDir::Files);
        files.sort();
        expected.sort();
        QCOMPARE(files, expected);
        const QRegularExpression sizeInName(QStringLiteral("-(\\d+)x(\\d+)\\.png$"));
        for (const QString& file : files) {
            const QImage image(QDir(out).filePath(file));
            const auto match = sizeInName.match(file);
            QVERIFY2(match.hasMatch() && !image.isNull(), qPrintable(file));
            QCOMPARE(image.size(), QSize(match.captured(1).toInt(), match.captured(2).toInt()));
        }

        // The palettes are applied: each dark picture is darker overall than its light twin.
        for (const QString& file : files)
            if (file.contains(QStringLiteral("-light-"))) {
                const QString twin = QString(file).replace(QStringLiteral("-light-"), QStringLiteral("-dark-"));
                const double light = meanGrey(QImage(QDir(out).filePath(file)));
                const double dark = meanGrey(QImage(QDir(out).filePath(twin)));
                QVERIFY2(dark + 40 < light,
                         qPrintable(QStringLiteral("%1 %2, %3 %4").arg(file).arg(light).arg(twin).arg(dark)));
            }
        const QImage tuner(QDir(out).filePath(QStringLiteral("tuner-light-1600x1000.png")));
        const QImage parallel(QDir(out).filePath(QStringLiteral("tuner-parallel-light-1600x1000.png")));
        QVERIFY(tuner.copy(400, 700, 1000, 200) != parallel.copy(400, 700, 1000, 200));
        // Compare is drawn over History: the two pictures differ where the dialog sits.
        const QImage history(QDir(out).filePath(QStringLiteral("history-light-1600x1000.png")));
        const QImage compare(QDir(out).filePath(QStringLiteral("compare-light-1600x1000.png")));
        QVERIFY(history.copy(500, 300, 600, 400) != compare.copy(500, 300, 600, 400));

        // compare-real is Compare on a real-cpu run and the simulator's model of it, another dialog than Compare's.
        const QImage compareReal(QDir(out).filePath(QStringLiteral("compare-real-light-1600x1000.png")));
        QVERIFY(compare.copy(500, 300, 600, 400) != compareReal.copy(500, 300, 600, 400));
        // history-real selects the real run: its details below the list are not the scenario's run's.
        const QImage historyReal(QDir(out).filePath(QStringLiteral("history-real-light-1600x1000.png")));
        QVERIFY(history.copy(400, 650, 1100, 150) != historyReal.copy(400, 650, 1100, 150));
        // costs-profile draws the box Export > Profile of Its Costs... ends with over that History.
        const QImage costs(QDir(out).filePath(QStringLiteral("costs-profile-light-1600x1000.png")));
        QVERIFY(historyReal.copy(500, 400, 600, 200) != costs.copy(500, 400, 600, 200));
        core::RunStore store(db.toStdString());
        const auto real = store.runInfo(tour.realRunId());
        const auto model = store.runInfo(tour.modelRunId());
        QVERIFY(real && model);
        QCOMPARE(real->backend, std::string("real-cpu"));
        QCOMPARE(model->backend, std::string("simulated"));
        QCOMPARE(model->modelsRun, tour.realRunId());
        QCOMPARE(real->requests, std::uint64_t{ScreenshotTour::kSimVsRealRequests});
        // Every pair is in the picture, each simulated run modelling its own real run.
        const QList<qint64> paired = tour.pairedRunIds();
        QCOMPARE(paired.size(), 2 * ScreenshotTour::kSimVsRealPairs);
        for (qsizetype p = 0; p < paired.size(); p += 2)
            QCOMPARE(store.runInfo(paired.at(p + 1))->modelsRun, paired.at(p));

        // Compare's runs: the scenario's own (msi-directory) and the same scenario under lazy-causal.
        const auto own = store.runInfo(tour.runId());
        const auto other = store.runInfo(tour.comparedRunId());
        QVERIFY(own && other);
        QCOMPARE(own->decodeProtocol, std::string("msi-directory"));
        QCOMPARE(other->decodeProtocol, std::string("lazy-causal"));
        QCOMPARE(other->scenarioName, own->scenarioName);
        QCOMPARE(other->status, core::RunStatus::Completed);

        // The selected message is a data message whose protocol step the inspector can show.
        auto* replay = window->findChild<ui::ReplayWidget*>();
        QVERIFY(replay && replay->model());
        QVERIFY(tour.selectedMessage() >= 0);
        const auto message = static_cast<std::uint32_t>(tour.selectedMessage());
        QCOMPARE(replay->model()->role(message), ui::MessageRole::Data);
        QVERIFY(ui::messageTransition(*replay->model(), message).known);

        // The user's palette is left as it was, and the open document untouched.
        QVERIFY(!window->actions().darkPalette->isChecked());
        QVERIFY(window->document()->undoStack()->isClean());
        window->document()->undoStack()->setClean();
    }

  private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TstScreenshotTour)
#include "tst_screenshot_tour.moc"
