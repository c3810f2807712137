// The shared prefix rows of the Serving section (serving.shared_prefix): the check box adds the empty section (the
// defaults) and removes it, one undo step each; the capacity field writes inside the section and turns sharing on;
// core's refusal of the section under the "direct" copy marks the check box in core's words.
#include "editor_input.h"
#include "json_compare.h"
#include "ui/field_edit.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/shared_prefix_form.h"

#include <QCheckBox>
#include <QTest>
#include <QUndoStack>

using namespace coh::ui;
using namespace coh::ui::test;
using nlohmann::ordered_json;

class TestSharedPrefixForm : public QObject {
    Q_OBJECT
  private slots:
    void theCheckBoxAndTheFieldsEditTheSection()
    {
        ScenarioDocument doc;
        openPreset(doc, "edge-cluster.json");
        doc.setValue("/coherence", ordered_json::parse(R"({"decode": "msi-directory"})"), QString());
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        SharedPrefixForm* form = panel.sharedPrefixForm();
        QCOMPARE(form->shareCheck(), byPointer<QCheckBox>(&panel, "/serving/shared_prefix"));
        QCOMPARE(form->capacityEdit(), byPointer<FieldEdit>(&panel, "/serving/shared_prefix/capacity"));
        QVERIFY(!form->shareCheck()->isChecked());

        QTest::mouseClick(form->shareCheck(), Qt::LeftButton);
        COMPARE_JSON(doc.value("/serving/shared_prefix").value(), ordered_json::object());
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Share prefix blocks"));
        panel.showProblems();
        QVERIFY(!form->shareCheck()->property("invalid").toBool());

        enter(form->capacityEdit(), QStringLiteral("4 GB"));
        COMPARE_JSON(doc.value("/serving/shared_prefix").value(), ordered_json::parse(R"({"capacity": "4 GB"})"));

        QTest::mouseClick(form->shareCheck(), Qt::LeftButton);
        QVERIFY(!doc.value("/serving/shared_prefix").has_value());
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Stop sharing prefix blocks"));
        doc.undoStack()->undo();
        QVERIFY(form->shareCheck()->isChecked()); // the box follows the document
        COMPARE_JSON(doc.value("/serving/shared_prefix").value(), ordered_json::parse(R"({"capacity": "4 GB"})"));

        // Under the plain copy there is no protocol to keep the blocks: core says so at the check box.
        doc.setValue("/coherence/decode", "direct", QString());
        panel.showProblems();
        QVERIFY(form->shareCheck()->property("invalid").toBool());
        QVERIFY(form->shareCheck()->toolTip().contains(QLatin1String("no protocol")));
    }
};

QTEST_MAIN(TestSharedPrefixForm)
#include "tst_shared_prefix_form.moc"
