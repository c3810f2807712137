// The Charts panel's availability chart for a run with node failures (summary.failures): the serving instances up as
// a staircase exactly as the summary's steps say, held to the run's end, with each failure's failed, detected and
// repaired moments marked on it; axes with units, hover text with exact values; in the grid after the other charts
// only while the run has failures.
#include "core/engine/run_result.h"
#include "ui/chart_builders.h"
#include "ui/charts_panel.h"
#include "ui/time_chart_view.h"

#include <QLayout>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QTest>
#include <QValueAxis>

#include <memory>

using namespace coh;

namespace {

constexpr core::SimTime s = core::kSecond;

// Four instances; gpu2 fails at 20 s (declared dead at 20.5 s) and is back at 80 s; gpu3 fails at 100 s and is not
// back within the run, which ends with the last request at 120 s.
std::shared_ptr<core::RunResult> runWithFailures()
{
    auto run = std::make_shared<core::RunResult>();
    for (core::SimTime finish : {30 * s, 90 * s, 120 * s}) {
        core::RequestMetrics& r = run->requests.emplace_back();
        r.arrival = finish - 10 * s;
        r.firstToken = finish - 5 * s;
        r.finish = finish;
        r.outputTokens = 10;
    }
    core::FailuresSummary& f = run->summary.failures;
    f.enabled = true;
    f.recovery = "replica";
    f.availability = 0.875;
    f.failures = {{.node = "gpu2",
                   .instances = {"decode0"},
                   .failed = 20 * s,
                   .detected = 20 * s + s / 2,
                   .repaired = 80 * s,
                   .requestsLost = 3},
                  {.node = "gpu3",
                   .instances = {"decode1"},
                   .failed = 100 * s,
                   .detected = 100 * s + s / 2,
                   .repaired = -1,
                   .requestsLost = 1}};
    f.instancesUp = {{0, 4}, {20 * s, 3}, {80 * s, 4}, {100 * s, 3}};
    return run;
}

QString exact(double v)
{
    return QLocale().toString(v, 'f', 3);
}

QList<QLineSeries*> dataLines(ui::TimeChartView* view)
{
    QList<QLineSeries*> lines;
    for (QAbstractSeries* series : view->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(series); line && line != view->cursor())
            lines.append(line);
    return lines;
}

QList<QScatterSeries*> marks(ui::TimeChartView* view)
{
    QList<QScatterSeries*> found;
    for (QAbstractSeries* series : view->chart()->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(series))
            found.append(scatter);
    return found;
}

} // namespace

class TestAvailabilityChart : public QObject {
    Q_OBJECT
  private slots:
    void pointsFollowTheSteps()
    {
        const auto run = runWithFailures();
        const ui::charts::Availability a = ui::charts::availability(*run);
        // From the first step, two corners a later step, held to the run's end.
        QCOMPARE(a.up, (QList<QPointF>{{0, 4}, {20, 4}, {20, 3}, {80, 3}, {80, 4}, {100, 4}, {100, 3}, {120, 3}}));
        QCOMPARE(a.availability, 0.875);
        // Each moment on the staircase: a failure at the top of its drop, the others on the count just after them.
        QCOMPARE(a.failed.points, (QList<QPointF>{{20, 4}, {100, 4}}));
        QCOMPARE(a.failed.nodes, (QStringList{QStringLiteral("gpu2"), QStringLiteral("gpu3")}));
        QCOMPARE(a.detected.points, (QList<QPointF>{{20.5, 3}, {100.5, 3}}));
        QCOMPARE(a.repaired.points, (QList<QPointF>{{80, 4}})); // gpu3 is not back within the run
        QCOMPARE(a.repaired.nodes, (QStringList{QStringLiteral("gpu2")}));
        // A repair after the last request stretches the line to it.
        run->summary.failures.failures[1].repaired = 150 * s;
        run->summary.failures.instancesUp.push_back({150 * s, 4});
        const ui::charts::Availability later = ui::charts::availability(*run);
        QCOMPARE(later.up.size(), 9);
        QCOMPARE(later.up.back(), QPointF(150, 4));
        QCOMPARE(later.repaired.points.size(), 2);
        // No failures: nothing.
        run->summary.failures.enabled = false;
        const ui::charts::Availability none = ui::charts::availability(*run);
        QVERIFY(none.up.isEmpty() && none.failed.points.isEmpty() && none.repaired.points.isEmpty());
    }

    void theChartShowsTheStaircaseAndTheMarks()
    {
        const auto run = runWithFailures();
        ui::ChartsPanel panel;
        panel.resize(1200, 900);
        panel.setRun(run);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ui::TimeChartView* view = panel.availabilityChart();
        QVERIFY(view->isVisible() && !view->isEmptyStateShown());
        QCOMPARE(view->chart()->title(), QStringLiteral("Availability"));
        QCOMPARE(view->parentWidget()->layout()->indexOf(view), 6); // after the six charts of every run
        QCOMPARE(view->axisY()->titleText(), QStringLiteral("serving instances up"));
        QCOMPARE(view->axisX()->titleText(), panel.ttftChart()->axisX()->titleText()); // simulated time (s)
        QVERIFY(view->axisY()->min() == 0 && view->axisY()->max() > 4); // the full count below the plot's edge
        QVERIFY(view->axisX()->max() >= 120);

        const QList<QLineSeries*> lines = dataLines(view);
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0]->count(), 8);
        QCOMPARE(lines[0]->points(), ui::charts::availability(*run).up);
        QCOMPARE(lines[0]->name(),
                 QStringLiteral("instances up (%1% available)").arg(QLocale().toString(87.5, 'f', 1)));
        const QList<QScatterSeries*> moments = marks(view);
        QCOMPARE(moments.size(), 3);
        QCOMPARE(moments[0]->name(), QStringLiteral("failed"));
        QCOMPARE(moments[0]->count(), 2);
        QCOMPARE(moments[1]->name(), QStringLiteral("failure detected"));
        QCOMPARE(moments[1]->count(), 2);
        QCOMPARE(moments[2]->name(), QStringLiteral("repaired"));
        QCOMPARE(moments[2]->count(), 1);
        QVERIFY(moments[0]->color() != moments[2]->color());

        // Hover: the count at the mouse's time; a mark names its node.
        emit lines[0]->hovered(QPointF(50, 3.2), true);
        QCOMPARE(view->hoverText(), QStringLiteral("3 serving instances up at %1 s").arg(exact(50)));
        emit moments[0]->hovered(QPointF(100, 4), true);
        QCOMPARE(view->hoverText(), QStringLiteral("gpu3 failed at %1 s").arg(exact(100)));
        emit moments[2]->hovered(QPointF(80, 4), true);
        QCOMPARE(view->hoverText(), QStringLiteral("gpu2 repaired at %1 s").arg(exact(80)));

        // The replay's cursor, as on the other time charts.
        panel.setCursorTime(20 * s);
        QCOMPARE(view->cursor()->at(0).x(), 20.0);

        // With KV tiers too, it comes after the tiers' chart.
        auto tiered = std::make_shared<core::RunResult>(*run);
        tiered->summary.kvTiers.enabled = true;
        tiered->summary.kvTiers.tiers = {
            {.tier = "dram", .protocol = "direct", .capacityBlocks = 10, .peakBlocks = 5, .occupancy = {{s, 5}}}};
        panel.setRun(tiered);
        QCOMPARE(view->parentWidget()->layout()->indexOf(view), 7);
    }

    void noChartWithoutFailures()
    {
        const auto run = runWithFailures();
        ui::ChartsPanel panel;
        panel.resize(1200, 900);
        panel.setRun(run);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ui::TimeChartView* view = panel.availabilityChart();
        QLayout* grid = view->parentWidget()->layout();
        QVERIFY(!view->isHidden() && grid->indexOf(view) >= 0);
        auto plain = std::make_shared<core::RunResult>(*run);
        plain->summary.failures = {};
        panel.setRun(plain);
        QVERIFY(view->isHidden() && grid->indexOf(view) == -1);
        QCOMPARE(grid->count(), 6);
        QVERIFY(dataLines(view).isEmpty() || dataLines(view).front()->count() == 0);
        QVERIFY(marks(view).isEmpty());
        panel.setRun(nullptr);
        QVERIFY(view->isHidden());
    }
};

QTEST_MAIN(TestAvailabilityChart)
#include "tst_availability_chart.moc"
