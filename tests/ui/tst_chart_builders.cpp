// The chart builders' own arithmetic, apart from any chart (ui/chart_builders.h): thinning a series keeps its
// extremes, a CDF thinned ends at the largest value, and a CDF is drawn as the staircase it is.
#include "ui/chart_builders.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace coh;

class TestChartBuilders : public QObject {
    Q_OBJECT
  private slots:
    void downsampleKeepsExtremes();
    void aCdfIsTheStaircaseOfItsPoints();
};

void TestChartBuilders::downsampleKeepsExtremes()
{
    QList<QPointF> many;
    for (int i = 0; i < 100000; ++i)
        many.append(QPointF(i, i == 77777 ? 1e6 : (i % 7)));
    const QList<QPointF> few = ui::charts::downsample(many);
    QVERIFY(few.size() <= ui::charts::kMaxPoints);
    QVERIFY(std::any_of(few.begin(), few.end(), [](const QPointF& p) { return p.y() == 1e6; }));
    QVERIFY(std::is_sorted(few.begin(), few.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); }));
    std::vector<double> values(50000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<double>(values.size() - i);
    const QList<QPointF> curve = ui::charts::cdf(values);
    QCOMPARE(curve.size(), ui::charts::kMaxPoints);
    QCOMPARE(curve.back(), QPointF(50000, 1.0));
}

void TestChartBuilders::aCdfIsTheStaircaseOfItsPoints()
{
    // Four requests of 1, 2, 2 and 3 ms: nobody between 1 and 2 ms, so the curve stays at a quarter until 2 ms and
    // rises there (a line through the points would claim requests of 1.5 ms).
    const QList<QPointF> points = ui::charts::cdf({2, 1, 3, 2});
    const QList<QPointF> expected = {{1, 0}, {1, 0.25}, {2, 0.25}, {2, 0.5}, {2, 0.75}, {3, 0.75}, {3, 1.0}};
    QCOMPARE(ui::charts::cdfSteps(points), expected);
    QVERIFY(ui::charts::cdfSteps({}).isEmpty());
    // Thinned to its ranks, it still rises only at them and ends at (max, 1).
    std::vector<double> many(5000);
    for (std::size_t i = 0; i < many.size(); ++i)
        many[i] = static_cast<double>(i);
    const QList<QPointF> steps = ui::charts::cdfSteps(ui::charts::cdf(many, 999));
    QVERIFY(steps.size() <= 2 * 999 + 1);
    QCOMPARE(steps.back(), QPointF(4999, 1.0));
    for (qsizetype i = 1; i < steps.size(); ++i)
        QVERIFY(steps[i].x() == steps[i - 1].x() || steps[i].y() == steps[i - 1].y());
}

QTEST_MAIN(TestChartBuilders)
#include "tst_chart_builders.moc"
