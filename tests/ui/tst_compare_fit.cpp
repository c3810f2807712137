// The Compare dialog opens at a size that suits the window it is opened from: whole on a 1024x700 screen, roomy
// on a large one, and at that size it cuts no control off and has no text under 4.5:1, in both palettes, on both
// of its tabs. The runs compared are the issue's: the same scenario with two decode protocols.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/store/run_store.h"
#include "core/workload/workload_builder.h"
#include "ui/chart_view.h"
#include "ui/main_actions.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_compare_model.h"
#include "ui/run_history_widget.h"
#include "ui_checks.h"

#include <QGridLayout>
#include <QScreen>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtTest>

#include <fstream>

using namespace coh;

namespace {

// The minimal fixture with `protocol` for 30 requests, stored.
std::int64_t makeRun(core::RunStore& store, const std::string& protocol)
{
    const std::string path = COH_TEST_DATA_DIR "/scenarios/minimal.json";
    std::ifstream in(path);
    nlohmann::json json = nlohmann::json::parse(in);
    json["workload"]["requests"] = 30;
    json["coherence"] = {{"decode", protocol}};
    const core::Scenario scenario = core::parseScenario(json, path);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    const auto id = store.beginRun(protocol, scenario.json, scenario.seed);
    store.completeRun(id, core::runScenario(scenario, workload));
    return id;
}

} // namespace

class TstCompareFit : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("runs.db"));
        core::RunStore store(m_db.toStdString());
        m_runs = {makeRun(store, "msi-directory"), makeRun(store, "lazy-causal")};
    }
    void cleanup() { ui::MainActions::applyPalette(false); }

    void initialSizeIsBoundedByWindowAndScreen()
    {
        using ui::RunCompareDialog;
        // Room on a large screen: the roomy size.
        QCOMPARE(RunCompareDialog::initialSize(QSize(1600, 1000), QSize(1920, 1200)), QSize(1000, 760));
        // A 1024x700 window filling a 1024x700 screen: 0.9 x 1024 = 921.6 -> 922, 0.9 x 700 = 630; the title bar
        // (about 30 px) still fits above it.
        QCOMPARE(RunCompareDialog::initialSize(QSize(1024, 700), QSize(1024, 700)), QSize(922, 630));
        // A small window on a large screen: the window bounds it; a large window on a small screen: the screen.
        QCOMPARE(RunCompareDialog::initialSize(QSize(800, 600), QSize(1920, 1200)), QSize(720, 540));
        QCOMPARE(RunCompareDialog::initialSize(QSize(1600, 1000), QSize(1024, 700)), QSize(922, 630));
        // No window (opened on its own): the screen alone; neither known: the roomy size.
        QCOMPARE(RunCompareDialog::initialSize(QSize(), QSize(1024, 700)), QSize(922, 630));
        QCOMPARE(RunCompareDialog::initialSize(QSize(), QSize()), QSize(1000, 760));
    }

    void opensFittedToTheWindowItIsOpenedFrom_data()
    {
        QTest::addColumn<QSize>("window");
        QTest::newRow("1024x700") << QSize(1024, 700);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
    }
    void opensFittedToTheWindowItIsOpenedFrom()
    {
        QFETCH(QSize, window);
        // History inside a window of that size, as in the app; Compare's dialog is the history widget's child.
        QWidget top;
        auto* history = new ui::RunHistoryWidget(&top);
        (new QVBoxLayout(&top))->addWidget(history);
        history->setDatabasePath(m_db);
        top.resize(window);
        top.show();
        QVERIFY(QTest::qWaitForWindowExposed(&top));
        ui::RunCompareDialog dialog(ui::RunCompareDialog::loadRuns(m_db, m_runs), history);
        QVERIFY(dialog.errorText().isEmpty());
        const QSize expected = ui::RunCompareDialog::initialSize(window, top.screen()->availableGeometry().size());
        QCOMPARE(dialog.size(), expected);
        QVERIFY(dialog.width() < window.width() && dialog.height() < window.height());
        QVERIFY(dialog.minimumSizeHint().width() <= expected.width() &&
                dialog.minimumSizeHint().height() <= expected.height());
    }

    void theChartsStandSideBySideFrom900PxWide()
    {
        ui::RunCompareDialog dialog(ui::RunCompareDialog::loadRuns(m_db, m_runs));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const auto cellOf = [](QWidget* chart) {
            auto* grid = qobject_cast<QGridLayout*>(chart->parentWidget()->layout());
            int row = -1, column = -1, rows = 0, columns = 0;
            grid->getItemPosition(grid->indexOf(chart), &row, &column, &rows, &columns);
            return QPoint(column, row);
        };
        // Back and forth across the threshold, and resizes that do not cross it.
        for (const int width : {1000, 950, 899, 700, 900, 1000, 880}) {
            dialog.resize(width, 600);
            QCoreApplication::processEvents();
            const bool sideBySide = width >= 900;
            QCOMPARE(dialog.chartsSideBySide(), sideBySide);
            QCOMPARE(cellOf(dialog.ttftChart()), QPoint(0, 0));
            QCOMPARE(cellOf(dialog.tpotChart()), sideBySide ? QPoint(1, 0) : QPoint(0, 1));
        }
    }

    void readsAtTheSizeA1024x700ScreenGivesIt()
    {
        ui::RunCompareDialog dialog(ui::RunCompareDialog::loadRuns(m_db, m_runs));
        QCOMPARE(dialog.model()->runCount(), 2);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.resize(ui::RunCompareDialog::initialSize(QSize(1024, 700), QSize(1024, 700)));
        for (const bool dark : {false, true}) {
            ui::MainActions::applyPalette(dark);
            for (const int tab : {0, 1}) {
                dialog.tabs()->setCurrentIndex(tab); // the summary and the deltas, then the CDFs
                QCoreApplication::processEvents();
                QCoreApplication::processEvents();
                QCOMPARE(dialog.size(), QSize(922, 630));
                const QString where = QStringLiteral("%1, %2").arg(
                    dialog.tabs()->tabText(tab), dark ? QStringLiteral("dark") : QStringLiteral("light"));
                const QStringList cut = ui::test::clippedControls(&dialog);
                QVERIFY2(cut.isEmpty(), qPrintable(where + QStringLiteral(": ") + cut.join(QStringLiteral("; "))));
                const QStringList faint = ui::test::lowContrastTexts(&dialog);
                QVERIFY2(faint.isEmpty(), qPrintable(where + QStringLiteral(": ") + faint.join(QStringLiteral("; "))));
            }
        }
    }

    void aRealRunsLongSummaryLeavesTheTableTwoThirdsOfTheHeight()
    {
        // A real run and its model whose every latency is off, with the run's own costs kept: five sentences and the
        // note. In the dialog an 800x600 window opens (720x540) they took more than half of it; now they take at most
        // a third (scrolling the rest), the table the remainder; where there is room they read whole.
        const auto summaryWith = [](double scale, std::uint64_t flows) {
            core::RunSummary s;
            s.requests = s.completed = 20;
            s.protocol = "msi-directory";
            s.messagesByKind = {{"Data", true, 100, 1e6, "data"}, {"Ack", false, 50, 5e3, "control"}};
            s.ttftMs = {.count = 20, .mean = 90 * scale, .p50 = 80 * scale, .p90 = 150 * scale, .p99 = 270 * scale};
            s.tpotMs = {.count = 20, .mean = 40 * scale, .p50 = 37 * scale, .p90 = 70 * scale, .p99 = 98 * scale};
            s.transferMs = {.count = 20, .mean = 20 * scale, .p50 = 15 * scale, .p90 = 50 * scale, .p99 = 77 * scale};
            s.flows = flows;
            return s;
        };
        const auto runOf = [](std::int64_t id, const char* backend, std::int64_t models, core::RunSummary summary,
                              std::vector<core::CostVariant> variants) {
            ui::RunCompareDialog::Run r;
            r.info.id = id;
            r.info.name = r.info.scenarioName = "default";
            r.info.seed = 1;
            r.info.backend = backend;
            r.info.modelsRun = models;
            r.result.summary = std::move(summary);
            r.costVariants = std::move(variants);
            return r;
        };
        std::vector<ui::RunCompareDialog::Run> runs;
        runs.push_back(runOf(7, "real-cpu", 0, summaryWith(1, 470),
                             {{core::CostVariant::Kind::OwnCosts, 1, summaryWith(0.93, 448)}}));
        runs.push_back(runOf(8, "simulated", 7, summaryWith(0.8, 466), {}));
        ui::RunCompareDialog dialog(std::move(runs));
        QVERIFY(dialog.model()->comparison().simulatorError);
        QVERIFY(dialog.summaryLabel()->text().count(QLatin1Char('\n')) >= 3);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.resize(ui::RunCompareDialog::initialSize(QSize(800, 600), QSize(1920, 1200)));
        QCoreApplication::processEvents();
        const QList<int> small = dialog.split()->sizes();
        QCOMPARE(small.size(), 2);
        const int total = small[0] + small[1];
        QVERIFY2(small[0] <= total / 3 + 1, qPrintable(QStringLiteral("%1 of %2").arg(small[0]).arg(total)));
        QVERIFY(dialog.headerScrolls());
        QVERIFY(ui::test::clippedControls(&dialog).isEmpty());
        // Roomy: the text reads whole, the pane no taller than it.
        dialog.resize(1600, 1000);
        QCoreApplication::processEvents();
        QVERIFY(!dialog.headerScrolls());
        QVERIFY(dialog.split()->sizes()[0] < dialog.split()->sizes()[1]);
        // Dragged, the split stays where the user put it through later resizes.
        dialog.split()->setSizes({400, 400});
        emit dialog.split()->splitterMoved(400, 1);
        const int dragged = dialog.split()->sizes()[0];
        dialog.resize(1500, 950);
        QCoreApplication::processEvents();
        QCOMPARE(dialog.split()->sizes()[0], dragged);
    }

  private:
    QTemporaryDir m_dir;
    QString m_db;
    QList<qint64> m_runs;
};

QTEST_MAIN(TstCompareFit)
#include "tst_compare_fit.moc"
