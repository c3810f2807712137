// Compare's columns for what compare-real kept beside a real run and its model (core/store/cost_variant.h): On own
// costs and At costs ±5% after the simulator's error, either alone where only one was kept, none where neither was,
// their cells, tints and tooltips, and bold only where a latency beyond the goal is reached by the moved costs.
#include "core/compare/run_comparison.h"
#include "ui/run_compare_model.h"

#include "../core/compared_run_fixtures.h"

#include <QFont>
#include <QtTest>

using namespace coh;

namespace {

core::RunSummary summaryWith(double ttftP50, double tpotP99, std::uint64_t flows)
{
    core::RunSummary s;
    s.requests = s.completed = 30;
    s.protocol = "msi-directory";
    s.messagesByKind = {{"Data", true, 100, 1e6, "data"}, {"Ack", false, 50, 5e3, "control"}};
    s.ttftMs.p50 = ttftP50;
    s.tpotMs.p50 = 10;
    s.tpotMs.p99 = tpotP99;
    s.flows = flows;
    return s;
}

const auto run = test::comparedRun;

} // namespace

class TstCompareCostColumns : public QObject {
    Q_OBJECT

  private slots:
    void bothColumnsFollowTheErrorWithTheirOwnCells()
    {
        // TTFT p50 +12% (beyond), +3% on own costs; TPOT p99 +15% (beyond) whose moved range -4%..+25% takes in 0;
        // flows 700 against 703 (beyond: they raced), 700 with the costs 5% shorter and 701 on own costs.
        const core::RunSummary real = summaryWith(100, 20, 700), sim = summaryWith(112, 23, 703);
        const std::vector<core::CostVariant> own{{core::CostVariant::Kind::OwnCosts, 1, summaryWith(103, 21, 701)}};
        const std::vector<core::CostVariant> moved{
            {core::CostVariant::Kind::MovedCosts, 0.95, summaryWith(108, 19.2, 700)},
            {core::CostVariant::Kind::MovedCosts, 1.05, summaryWith(114, 25, 703)}};
        ui::RunCompareModel model(
            core::compareRuns({run(7, real, "real-cpu", 0, &own), run(8, sim, "simulated", 7, &moved)}));
        QCOMPARE(model.runCount(), 2);
        QCOMPARE(model.ownCostsColumn(), 4);
        QCOMPARE(model.movedCostsColumn(), 5);
        QCOMPARE(model.columnCount(), 6);
        QCOMPARE(model.headerData(4, Qt::Horizontal).toString(), QStringLiteral("On own costs"));
        QCOMPARE(model.headerData(5, Qt::Horizontal).toString(), QStringLiteral("At costs ±5%"));
        QVERIFY(model.headerData(4, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QStringLiteral("drift")));

        const int ttft = model.rowOf(QStringLiteral("TTFT p50"));
        // The error itself to a tenth of a percent, as it is judged against ±10% ("+12%" would hide a +10.4%).
        QVERIFY2(model.index(ttft, model.deltaColumn(1)).data().toString().endsWith(QStringLiteral("(+12.0%)")),
                 qPrintable(model.index(ttft, model.deltaColumn(1)).data().toString()));
        QCOMPARE(model.index(ttft, 4).data().toString(), QStringLiteral("+3.0%"));
        QCOMPARE(model.index(ttft, 4).data(ui::RunCompareModel::VerdictRole).toInt(), int(core::Verdict::Within));
        QVERIFY(model.index(ttft, 4).data(Qt::BackgroundRole).isValid());
        QVERIFY(model.index(ttft, 4).data(Qt::ToolTipRole).toString().contains(QStringLiteral("103")));
        QCOMPARE(model.index(ttft, 5).data().toString(), QStringLiteral("+8.0% to +14.0%"));
        // TPOT p99: beyond, and reached with the costs moved: bold, and the tooltip says why.
        const int tpot = model.rowOf(QStringLiteral("TPOT p99"));
        QCOMPARE(model.index(tpot, 5).data().toString(), QStringLiteral("−4.0% to +25.0%"));
        QVERIFY(model.index(tpot, 5).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(model.index(tpot, 5).data(Qt::ToolTipRole).toString().contains(QStringLiteral("not told apart")));
        QVERIFY(!model.index(ttft, 5).data(Qt::FontRole).isValid()); // TTFT p50's range stays beyond
        // A count: its own-cost figure where it differs; its moved range may take in 0, but a count must be equal
        // whatever the costs, so it is not excused.
        const int flows = model.rowOf(QStringLiteral("Network flows"));
        QCOMPARE(model.index(flows, 4).data().toString(), QStringLiteral("701"));
        QCOMPARE(model.index(flows, 4).data(ui::RunCompareModel::VerdictRole).toInt(), int(core::Verdict::Beyond));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("Messages")), 4).data().toString(), QStringLiteral("equal"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("Messages")), 5).data().toString(), QStringLiteral("none"));
        QCOMPARE(model.index(flows, model.deltaColumn(1)).data(ui::RunCompareModel::VerdictRole).toInt(),
                 int(core::Verdict::Beyond));
        QCOMPARE(model.index(flows, 5).data().toString(), QStringLiteral("+0.0% to +0.4%")); // it takes in 0
        QVERIFY(!model.index(flows, 5).data(Qt::FontRole).isValid());
        // What ran has nothing in these columns.
        const int backend = model.rowOf(QStringLiteral("Backend"));
        QVERIFY(backend > 0);
        QVERIFY(!model.index(backend, 4).data().isValid());
        QCOMPARE(model.index(backend, 5).data(ui::RunCompareModel::VerdictRole).toInt(), -1);
    }

    void eachColumnShowsOnlyWhereItWasKept()
    {
        const core::RunSummary real = summaryWith(100, 20, 700), sim = summaryWith(112, 23, 700);
        const std::vector<core::CostVariant> own{{core::CostVariant::Kind::OwnCosts, 1, summaryWith(103, 21, 700)}};
        const std::vector<core::CostVariant> moved{
            {core::CostVariant::Kind::MovedCosts, 0.9, summaryWith(108, 19.2, 700)},
            {core::CostVariant::Kind::MovedCosts, 1.1, summaryWith(114, 25, 700)}};
        // Own costs alone (compare-real --sensitivity 0): one column, where the moved one would be.
        ui::RunCompareModel ownOnly(
            core::compareRuns({run(7, real, "real-cpu", 0, &own), run(8, sim, "simulated", 7, nullptr)}));
        QCOMPARE(ownOnly.ownCostsColumn(), 4);
        QCOMPARE(ownOnly.movedCostsColumn(), -1);
        QCOMPARE(ownOnly.columnCount(), 5);
        // Moved costs alone (a real run that fitted no costs of its own): its column comes right after the error.
        ui::RunCompareModel movedOnly(
            core::compareRuns({run(7, real, "real-cpu", 0, nullptr), run(8, sim, "simulated", 7, &moved)}));
        QCOMPARE(movedOnly.ownCostsColumn(), -1);
        QCOMPARE(movedOnly.movedCostsColumn(), 4);
        QCOMPARE(movedOnly.columnCount(), 5);
        QCOMPARE(movedOnly.headerData(4, Qt::Horizontal).toString(), QStringLiteral("At costs ±10%"));
        QCOMPARE(movedOnly.index(movedOnly.rowOf(QStringLiteral("TTFT p50")), 4).data().toString(),
                 QStringLiteral("+8.0% to +14.0%"));
        // Neither: the error's columns alone, as before compare-real kept anything.
        ui::RunCompareModel neither(
            core::compareRuns({run(7, real, "real-cpu", 0, nullptr), run(8, sim, "simulated", 7, nullptr)}));
        QCOMPARE(neither.columnCount(), 4);
        QCOMPARE(neither.ownCostsColumn(), -1);
        QCOMPARE(neither.movedCostsColumn(), -1);
    }
};

QTEST_MAIN(TstCompareCostColumns)
#include "tst_compare_cost_columns.moc"
