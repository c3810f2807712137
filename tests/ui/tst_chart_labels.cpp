// The kinds' names on the messages-by-kind chart read in full when a run has many kinds with long names (a run with
// KV tiers: "dram PutM to home", "Data to home", ...), at 1024x700 and 1600x1000 in both palettes; a name too long
// for any chart is cut at its end while the others still read in full.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/chart_view.h"
#include "ui/charts_panel.h"
#include "ui/main_actions.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QStandardPaths>
#include <QTest>

#include <fstream>

using namespace coh;

namespace {

const std::string kScenarioPath = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";

// The default scenario's first requests with the kinds of a tiered MSI run, and more: sixteen long names.
std::shared_ptr<core::RunResult> runWithManyKinds()
{
    std::ifstream in(kScenarioPath);
    core::Scenario scenario = core::parseScenario(nlohmann::json::parse(in), kScenarioPath);
    core::limitRequests(scenario.workload, 20);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    auto run = std::make_shared<core::RunResult>(core::runScenario(scenario, workload));
    const char* names[] = {"dram PutM to home",
                           "dram GetS to home",
                           "dram GetM to home",
                           "dram Data to requester",
                           "dram Inv to sharer",
                           "dram Inv-Ack to requester",
                           "Data to home",
                           "Fwd-GetS",
                           "Fwd-GetM",
                           "cxl PutM to home",
                           "cxl GetM to home",
                           "cxl Data to requester",
                           "KV block write-back",
                           "KV block migration out",
                           "lease renewal to home",
                           "bias flip to host"};
    // The roles of such a run: six bar sets, six legend entries.
    const char* roles[] = {"request", "forward", "invalidation", "ack", "data", "writeback"};
    run->summary.messagesByKind.clear();
    for (std::size_t i = 0; i < std::size(names); ++i)
        run->summary.messagesByKind.push_back({.name = names[i],
                                               .data = false,
                                               .count = 100 + 37 * i,
                                               .bytes = 64.0 * (100 + 37 * i),
                                               .role = roles[i % std::size(roles)]});
    return run;
}

// The visible text of the kinds' chart: its title, axis labels and titles, legend entries.
QStringList visibleTexts(ui::ChartView* view)
{
    QStringList out;
    for (QGraphicsItem* item : view->scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
            out << text->toPlainText();
    return out;
}

bool elided(const QString& text)
{
    return text.endsWith(QChar(0x2026)) || text.endsWith(QStringLiteral("..."));
}

// What an elided text kept of its name.
QString head(const QString& text)
{
    return text.chopped(text.endsWith(QChar(0x2026)) ? 1 : 3).trimmed();
}

// Every category of the chart's name axis that is not drawn, in full, as a visible label.
QStringList unreadNames(ui::ChartView* view, const QString& except = {})
{
    auto* axis = qobject_cast<QBarCategoryAxis*>(view->chart()->axes(Qt::Vertical).front());
    const QStringList texts = visibleTexts(view);
    QStringList out;
    for (const QString& name : axis->categories())
        if (name != except && !texts.contains(name))
            out << name;
    for (const QString& text : texts)
        if (elided(text) && (except.isEmpty() || head(text).isEmpty() || !except.startsWith(head(text))))
            out << QStringLiteral("cut: \"%1\"").arg(text);
    return out;
}

void settle()
{
    // The grid's columns and the chart's height follow the resize over a few layout passes.
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
}

} // namespace

class TestChartLabels : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void everyKindNameReadsInFull();
    void aNameTooLongIsCutAtItsEndAlone();
};

void TestChartLabels::everyKindNameReadsInFull()
{
    ui::ChartsPanel panel;
    panel.resize(1024, 700);
    panel.setRun(runWithManyKinds());
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ui::ChartView* view = panel.kindChart();
    QVERIFY(!view->isEmptyStateShown());
    QCOMPARE(qobject_cast<QBarCategoryAxis*>(view->chart()->axes(Qt::Vertical).front())->count(), 16);
    for (const bool dark : {false, true}) {
        ui::MainActions::applyPalette(dark);
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            panel.resize(size);
            settle();
            const QString where = QStringLiteral("%1x%2 %3")
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"));
            const QStringList unread = unreadNames(view);
            QVERIFY2(unread.isEmpty(), qPrintable(where + QStringLiteral(": ") + unread.join(QStringLiteral(", "))));
        }
    }
    ui::MainActions::applyPalette(false);
    // A run with few kinds after one with many: the chart is no taller than its plain height needs.
    auto few = runWithManyKinds();
    few->summary.messagesByKind.resize(3);
    panel.setRun(few);
    settle();
    QVERIFY(unreadNames(view).isEmpty());
    QCOMPARE(view->minimumHeight(), 300);
}

void TestChartLabels::aNameTooLongIsCutAtItsEndAlone()
{
    auto run = runWithManyKinds();
    const QString tooLong = QStringLiteral("dram PutM to home ") + QString(QStringLiteral("and further ")).repeated(30);
    run->summary.messagesByKind[3].name = tooLong.toStdString();
    ui::ChartsPanel panel;
    panel.resize(1024, 700);
    panel.setRun(run);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    settle();
    ui::ChartView* view = panel.kindChart();
    const QStringList unread = unreadNames(view, tooLong);
    QVERIFY2(unread.isEmpty(), qPrintable(unread.join(QStringLiteral(", "))));
    // Its own label: the name's beginning, then the ellipsis.
    bool found = false;
    for (const QString& text : visibleTexts(view))
        if (elided(text) && head(text).size() > 8 && tooLong.startsWith(head(text)))
            found = true;
    QVERIFY2(found, qPrintable(visibleTexts(view).join(QStringLiteral(" | "))));
}

QTEST_MAIN(TestChartLabels)
#include "tst_chart_labels.moc"
