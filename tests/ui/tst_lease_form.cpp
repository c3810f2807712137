// The lease fields of the Coherence section (coherence.lease): shown under every protocol but enabled, with core's
// reason, only where the decode protocol grants leases; the time to live and the expiry policy write the JSON of
// docs/scenario-format.md as one undo step each, and a lease left under a protocol without leases is marked at the
// time-to-live field in core's words.
#include "editor_input.h"
#include "json_compare.h"
#include "ui/coherence_form.h"
#include "ui/field_edit.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"

#include <QComboBox>
#include <QLineEdit>
#include <QTest>
#include <QUndoStack>

using namespace coh::ui;
using namespace coh::ui::test;
using nlohmann::ordered_json;

class TestLeaseForm : public QObject {
    Q_OBJECT
  private slots:
    void leaseEditsTheJsonWhereTheProtocolGrantsLeases()
    {
        ScenarioDocument doc;
        openPreset(doc, "edge-cluster.json");
        doc.setValue("/coherence", ordered_json::parse(R"({"decode": "msi-directory"})"), QString());
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        coh::ui::CoherenceForm* form = panel.coherenceForm();
        QCOMPARE(form->leaseTtl(), byPointer<FieldEdit>(&panel, "/coherence/lease/ttl"));
        QCOMPARE(form->leaseExpiry(), byPointer<QComboBox>(&panel, "/coherence/lease/on_expiry"));
        // MSI grants no leases: the fields say why instead of taking a value core would refuse.
        QVERIFY(!form->leaseTtl()->isEnabled());
        QVERIFY(!form->leaseExpiry()->isEnabled());
        QVERIFY(form->leaseTtl()->toolTip().contains(QLatin1String("sealed-lease")));

        doc.setValue("/coherence/decode", "sealed-lease", QString());
        QVERIFY(form->leaseTtl()->isEnabled());
        enter(form->leaseTtl(), QStringLiteral("0 s"));
        QVERIFY(form->leaseTtl()->property("invalid").toBool()); // a lease that never holds is refused
        enter(form->leaseTtl(), QStringLiteral("2 s"));
        COMPARE_JSON(doc.value("/coherence/lease").value(), ordered_json::parse(R"({"ttl": "2 s"})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit lease time to live"));
        const int trust = form->leaseExpiry()->findData(QStringLiteral("trust"));
        QVERIFY(trust >= 0);
        form->leaseExpiry()->setCurrentIndex(trust);
        emit form->leaseExpiry()->activated(trust);
        COMPARE_JSON(doc.value("/coherence/lease").value(),
                     ordered_json::parse(R"({"ttl": "2 s", "on_expiry": "trust"})"));
        panel.showProblems();
        QVERIFY(!form->leaseTtl()->property("invalid").toBool());

        // Back to a protocol without leases: core names the lease, and the set fields stay editable to clear it.
        doc.setValue("/coherence/decode", "msi-directory", QString());
        panel.showProblems();
        QVERIFY(form->leaseTtl()->isEnabled());
        QVERIFY(form->leaseTtl()->property("invalid").toBool());
        QVERIFY(form->leaseTtl()->toolTip().contains(QLatin1String("grants no leases")));
    }
};

QTEST_MAIN(TestLeaseForm)
#include "tst_lease_form.moc"
