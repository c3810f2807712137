// Parallel coordinates: lines go through their values on each axis (a minimised objective's best at the top),
// dragging along an axis keeps the lines inside the range, a click on the axis clears it, and a click on a line asks
// for its run, preferring the front's lines where lines cross.
#include "ui/parallel_coordinates.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <limits>

using coh::ui::ParallelAxis;
using coh::ui::ParallelCoordinatesView;
using coh::ui::ParallelLine;

namespace {

// protocol (categorical) × block tokens (numeric) → TPOT (minimised).
void fill(ParallelCoordinatesView& view)
{
    std::vector<ParallelAxis> axes(3);
    axes[0].title = QStringLiteral("decode");
    axes[0].categories = {QStringLiteral("msi"), QStringLiteral("lazy")};
    axes[1].title = QStringLiteral("block_tokens");
    axes[2].title = QStringLiteral("tpot ↓");
    axes[2].smallerAtTop = true;
    const double none = std::numeric_limits<double>::quiet_NaN();
    std::vector<ParallelLine> lines = {
        {{0, 16, 30}, ParallelLine::Kind::Other, 11},
        {{0, 32, 20}, ParallelLine::Kind::Feasible, 12},
        {{1, 16, 10}, ParallelLine::Kind::Front, 13},
        {{1, 32, none}, ParallelLine::Kind::Other, 0}, // failed: no metrics, no run
    };
    view.setData(std::move(axes), std::move(lines));
}

} // namespace

class ParallelCoordinatesTest : public QObject {
    Q_OBJECT
  private slots:
    void linesGoThroughTheirValues()
    {
        ParallelCoordinatesView view;
        view.resize(600, 300);
        fill(view);
        // Categories sit at the middle of their shares; numbers span the axis from the smallest to the largest.
        QCOMPARE(view.pointOf(0, 0).y(), view.pointOf(1, 0).y());
        QVERIFY(view.pointOf(2, 0).y() < view.pointOf(0, 0).y()); // lazy above msi
        QVERIFY(view.pointOf(1, 1).y() < view.pointOf(0, 1).y()); // 32 above 16
        // TPOT minimised: 10 ms is at the top, 30 ms at the bottom.
        QVERIFY(view.pointOf(2, 2).y() < view.pointOf(1, 2).y());
        QVERIFY(view.pointOf(1, 2).y() < view.pointOf(0, 2).y());
        QVERIFY(std::isnan(view.pointOf(3, 2).y()));
        QCOMPARE(view.axisX(0) < view.axisX(1), true);
        QCOMPARE(view.passingCount(), 4);
    }

    void draggingAlongAnAxisKeepsTheLinesInsideAndAClickClearsIt()
    {
        ParallelCoordinatesView view;
        view.resize(600, 300);
        fill(view);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy changed(&view, &ParallelCoordinatesView::brushesChanged);
        // Drag on the TPOT axis from above the best point to just below the middle one: 10 and 20 ms stay.
        const double x = view.axisX(2);
        const QPoint from(static_cast<int>(x), static_cast<int>(view.pointOf(2, 2).y()) - 2);
        const QPoint to(static_cast<int>(x), static_cast<int>(view.pointOf(1, 2).y()) + 4);
        QTest::mousePress(&view, Qt::LeftButton, {}, from);
        QTest::mouseMove(&view, to);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, to);
        QVERIFY(view.brush(2).has_value());
        QCOMPARE(view.passingCount(), 2); // the line without a TPOT never passes a TPOT range
        QVERIFY(view.passes(1) && view.passes(2) && !view.passes(0) && !view.passes(3));
        QCOMPARE(changed.last().front().toInt(), 2);
        // A second range on another axis: both must hold.
        view.setBrush(0, std::pair{0.5, 1.0}); // lazy
        QCOMPARE(view.passingCount(), 1);
        // A click on the TPOT axis clears its range.
        QTest::mouseClick(&view, Qt::LeftButton, {}, from);
        QVERIFY(!view.brush(2).has_value());
        QCOMPARE(view.passingCount(), 2); // lazy's two lines
        view.clearBrushes();
        QCOMPARE(view.passingCount(), 4);
    }

    void clickingALineAsksForItsRunAndTheFrontWinsWhereLinesCross()
    {
        ParallelCoordinatesView view;
        view.resize(600, 300);
        fill(view);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy clicked(&view, &ParallelCoordinatesView::lineClicked);
        // Halfway between the first two axes on line 1 (feasible, run 12).
        const QPointF a = view.pointOf(1, 0), b = view.pointOf(1, 1);
        const QPointF mid = (a + b) / 2;
        QCOMPARE(view.lineAt(mid), 1);
        QTest::mouseClick(&view, Qt::LeftButton, {}, mid.toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.front().front().toLongLong(), 12);
        // Lines 2 (front) and 3 start at the same point (lazy): the front's is picked there.
        QCOMPARE(view.lineAt(view.pointOf(2, 0)), 2);
        // Far from every line: nothing.
        QCOMPARE(view.lineAt(QPointF(view.axisX(1) + 3, 5)), -1);
        // A line outside the ranges cannot be picked.
        view.setBrush(0, std::pair{0.0, 0.5});
        QCOMPARE(view.lineAt(view.pointOf(2, 0)), -1);
    }

    void aLogScaleAxisPlacesValuesByTheirLogarithm()
    {
        ParallelCoordinatesView view;
        view.resize(600, 300);
        std::vector<ParallelAxis> axes(2);
        axes[0].title = QStringLiteral("time_scale");
        axes[0].logScale = true;
        axes[1].title = QStringLiteral("linear");
        view.setData(std::move(axes), {{{0.01, 0.01}, ParallelLine::Kind::Other, 1},
                                       {{0.1, 0.1}, ParallelLine::Kind::Other, 2},
                                       {{1.0, 1.0}, ParallelLine::Kind::Other, 3}});
        // 0.1 is halfway between 0.01 and 1 on the log axis, near the bottom on the linear one.
        const double bottom = view.pointOf(0, 0).y(), top = view.pointOf(2, 0).y();
        QVERIFY(std::abs(view.pointOf(1, 0).y() - (bottom + top) / 2) < 0.5);
        const double linearMid = view.pointOf(1, 1).y();
        QVERIFY(linearMid > (bottom + top) / 2 + 10);
    }

    void brushesFollowTheirAxisAcrossNewData()
    {
        ParallelCoordinatesView view;
        view.resize(600, 300);
        fill(view);
        view.setBrush(1, std::pair{0.6, 1.0}); // block_tokens 32
        QCOMPARE(view.passingCount(), 2);
        fill(view); // the same axes again (a study's points re-read): the range stays
        QCOMPARE(view.passingCount(), 2);
        view.setData({}, {});
        QCOMPARE(view.passingCount(), 0);
    }
};

QTEST_MAIN(ParallelCoordinatesTest)
#include "tst_parallel_coordinates.moc"
