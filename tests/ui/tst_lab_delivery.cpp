// The learner chooses which in-flight message arrives next, through the Lab's widgets: the in-flight list shows
// kind, sender → receiver and value, enables only what core's network model allows, and delivering stages races:
// Data and Inv-Acks arriving either way, and a PutM crossing a Fwd-GetM. The chart numbers and dashes the
// messages in flight until they are delivered.
#include "ui/lab_flight_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_op_panel.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_widget.h"
#include "ui/sequence_chart.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QListWidget>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

using namespace coh::ui;

namespace {

QStringList rows(const LabFlightPanel* panel)
{
    QStringList out;
    for (int i = 0; i < panel->list()->count(); ++i) {
        const QListWidgetItem* item = panel->list()->item(i);
        out << item->text() + ((item->flags() & Qt::ItemIsEnabled) ? QString() : QStringLiteral(" [waits]"));
    }
    return out;
}

// The chart's arrows still in flight, as "#k Kind from->to" in lifeline numbers.
QStringList flying(const SequenceChart* chart)
{
    QStringList out;
    for (const SequenceChart::Arrow& a : chart->arrows())
        if (a.inFlight)
            out << QStringLiteral("#%1 %2 %3->%4").arg(a.flightIndex).arg(a.flow.kind).arg(a.flow.from).arg(a.flow.to);
    return out;
}

QString state(const LabWidget& w, int row, int column = LabStateTableModel::StateColumn)
{
    return w.stateModel()->index(row, column).data().toString();
}

} // namespace

class TstLabDelivery : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void dataAndInvAcksArriveInTheOrderChosen()
    {
        LabWidget w;
        show(w);
        LabModel* lab = w.model();
        QVERIFY(lab->load(QStringLiteral("msi-directory"), 3, QStringLiteral("P0:R,P1:R")));
        LabFlightPanel* flight = w.flightPanel();
        w.findChild<QCheckBox*>(QStringLiteral("labDeliverByHand"))->setChecked(true);
        QVERIFY(lab->deliverByHand());
        QTest::mouseClick(w.opPanel()->button(2, 1), Qt::LeftButton); // P2 writes; its GetM stays in flight
        QVERIFY(lab->isManual());
        QCOMPARE(rows(flight), QStringList{QStringLiteral("#0  GetM  P2 → Dir")});
        QVERIFY(flight->deliverRow(0));
        QCOMPARE(rows(flight), (QStringList{QStringLiteral("#0  Data  Dir → P2  (data 0, acks 2)"),
                                            QStringLiteral("#1  Inv  Dir → P0"), QStringLiteral("#2  Inv  Dir → P1")}));
        QCOMPARE(flying(w.chart()), (QStringList{QStringLiteral("#0 Data 3->2"), QStringLiteral("#1 Inv 3->0"),
                                                 QStringLiteral("#2 Inv 3->1")}));
        const int branch = lab->currentStep();

        // Acks first: both Inv-Acks overtake the data, so P2 counts them in IM^AD and the data completes the write.
        QVERIFY(flight->deliverRow(1)); // Inv to P0
        QCOMPARE(rows(flight).last(), QStringLiteral("#2  Inv-Ack  P0 → P2"));
        QVERIFY(flight->deliverRow(2));
        QCOMPARE(state(w, 2), QStringLiteral("IM^AD"));
        QVERIFY(flight->deliverRow(1)); // Inv to P1
        QVERIFY(flight->deliverRow(1)); // its Inv-Ack
        QCOMPARE(state(w, 2), QStringLiteral("IM^AD"));
        QCOMPARE(flying(w.chart()), QStringList{QStringLiteral("#0 Data 3->2")});
        QVERIFY(flight->deliverRow(0));
        QCOMPARE(state(w, 2), QStringLiteral("M"));
        QCOMPARE(state(w, 2, LabStateTableModel::DataColumn), QStringLiteral("1"));
        QCOMPARE(flight->list()->count(), 0);
        QCOMPARE(flying(w.chart()), QStringList());

        // Back to the branch point, the data first this time: the later steps are replaced.
        lab->setCurrentStep(branch);
        QCOMPARE(flight->list()->count(), 3);
        QVERIFY(flight->deliverRow(0));
        QCOMPARE(lab->stepCount(), branch + 1);
        QCOMPARE(state(w, 2), QStringLiteral("IM^A")); // has the data, owes two acks
        QTest::mouseClick(w.findChild<QAbstractButton*>(QStringLiteral("labDeliverAll")), Qt::LeftButton);
        QCOMPARE(state(w, 2), QStringLiteral("M"));
        QCOMPARE(lab->current().event, std::string("Last-Inv-Ack"));
    }

    void aPutMCrossesAFwdGetM()
    {
        LabWidget w;
        show(w);
        LabModel* lab = w.model();
        QVERIFY(lab->load(QStringLiteral("msi-directory"), 2, QStringLiteral("P0:W")));
        lab->setDeliverByHand(true);
        QTest::mouseClick(w.opPanel()->button(1, 1), Qt::LeftButton); // P1 writes
        QVERIFY(w.flightPanel()->deliverRow(0));                      // the directory forwards to the owner P0
        QAbstractButton* evict = w.opPanel()->button(0, 2);
        QVERIFY(evict->isEnabled());
        QTest::mouseClick(evict, Qt::LeftButton); // P0 evicts before the Fwd-GetM reaches it
        QCOMPARE(rows(w.flightPanel()), (QStringList{QStringLiteral("#0  Fwd-GetM  Dir → P0"),
                                                     QStringLiteral("#1  PutM  P0 → Dir  (data 1)")}));
        // The two dashed arrows cross: one from the directory to P0, one from P0 to the directory.
        QCOMPARE(flying(w.chart()), (QStringList{QStringLiteral("#0 Fwd-GetM 2->0"), QStringLiteral("#1 PutM 0->2")}));
        QCOMPARE(state(w, 0), QStringLiteral("MI^A"));

        QVERIFY(w.flightPanel()->deliverRow(0)); // the Fwd-GetM wins the race
        QCOMPARE(state(w, 0), QStringLiteral("II^A"));
        QCOMPARE(rows(w.flightPanel()), (QStringList{QStringLiteral("#0  PutM  P0 → Dir  (data 1)"),
                                                     QStringLiteral("#1  Data  P0 → P1  (data 1)")}));
        QVERIFY(w.flightPanel()->deliverRow(0)); // the stale PutM: acked, its data ignored
        QCOMPARE(lab->current().event, std::string("PutM-NonOwner"));
        QVERIFY(w.explanation().contains(QStringLiteral("no longer the owner")));
        QVERIFY(lab->deliverAll());
        QCOMPARE(state(w, 1), QStringLiteral("M"));
        QCOMPARE(state(w, 1, LabStateTableModel::DataColumn), QStringLiteral("2"));
        QCOMPARE(state(w, 2, LabStateTableModel::MemoryColumn), QStringLiteral("0"));
        QCOMPARE(state(w, 0), QStringLiteral("I"));
    }

    void onlyLegalDeliveriesAreOffered()
    {
        LabWidget w;
        show(w);
        LabModel* lab = w.model();
        // P0 waits for its data, so P1's Fwd-GetS would stall at P0.
        QVERIFY(lab->load(QStringLiteral("msi-directory"), 2, QStringLiteral("P0:W,D:0,P1:R,D:1")));
        QVERIFY(lab->isManual());
        lab->last();
        QCOMPARE(rows(w.flightPanel()), (QStringList{QStringLiteral("#0  Data  Dir → P0  (data 0)"),
                                                     QStringLiteral("#1  Fwd-GetS  Dir → P0 [waits]")}));
        QVERIFY(w.flightPanel()->list()->item(1)->toolTip().contains(QStringLiteral("would wait")));
        const int steps = lab->stepCount();
        QVERIFY(!w.flightPanel()->deliverRow(1));
        QCOMPARE(lab->stepCount(), steps);
        // The forward network is FIFO: a Put-Ack behind an Inv on the same channel waits its turn.
        QVERIFY(lab->load(QStringLiteral("msi-directory"), 2, QStringLiteral("P0:R,D:*,P1:W,D:0,P0:E,D:2")));
        lab->last();
        QCOMPARE(rows(w.flightPanel()).last(), QStringLiteral("#2  Put-Ack  Dir → P0 [waits]"));
        QVERIFY(w.flightPanel()->list()->item(2)->toolTip().contains(QStringLiteral("ordered channel")));
        // Op buttons are off while the cache is mid-transaction.
        QVERIFY(!w.opPanel()->button(0, 0)->isEnabled());
    }

    void autoDeliveryStillCompletesOps()
    {
        LabWidget w;
        show(w);
        LabModel* lab = w.model();
        QVERIFY(lab->load(QStringLiteral("msi-directory"), 3, QString()));
        QVERIFY(!lab->deliverByHand());
        QTest::mouseClick(w.opPanel()->button(0, 0), Qt::LeftButton);
        QCOMPARE(lab->opsText(), QStringLiteral("P0:R"));
        QCOMPARE(w.flightPanel()->list()->count(), 0);
        QCOMPARE(state(w, 0), QStringLiteral("S"));
        // After choosing one delivery the run is explicit, but a later op (by-hand off) still runs to the end.
        lab->setCurrentStep(1);
        QVERIFY(lab->deliver(0));
        QTest::mouseClick(w.opPanel()->button(1, 1), Qt::LeftButton);
        QCOMPARE(lab->opsText(), QStringLiteral("P0:R,D:0,P1:W,D:*"));
        QCOMPARE(w.flightPanel()->list()->count(), 0);
        QCOMPARE(state(w, 1), QStringLiteral("M"));
        // Fewer caches drop the delivery order along with the vanished cache's ops.
        lab->setCaches(2);
        QVERIFY(!lab->isManual());
        QCOMPARE(lab->opsText(), QStringLiteral("P0:R,P1:W"));
    }

  private:
    static void show(LabWidget& w)
    {
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
    }
};

QTEST_MAIN(TstLabDelivery)
#include "tst_lab_delivery.moc"
