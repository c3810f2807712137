// The editor's forms as a user meets them: the property editor shows the fields the node's kind has (core's
// table); a value core's loader would refuse is refused at the field in a form's words, the document and the undo
// stack untouched, Escape restores; fields with validation problems turn red in every section of the Scenario
// dock; every undo step is named in words; a problem in the Problems dock leads to its item on the canvas.
#include "editor_input.h"
#include "json_compare.h"
#include "ui/coherence_form.h"
#include "ui/field_edit.h"
#include "ui/instances_editor.h"
#include "ui/kv_tiers_form.h"
#include "ui/link_item.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/property_editor.h"
#include "ui/qt_text.h"
#include "ui/replication_form.h"
#include "ui/router_form.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/theme.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/topology_view.h"
#include "window_fixture.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QListWidget>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace coh::ui;
using coh::ui::test::byPointer;
using coh::ui::test::enter;
using coh::ui::test::openPreset;
using coh::ui::test::undoActionText;
using nlohmann::ordered_json;

namespace {

// The colour a marked field's text is drawn in, and the Error tone on its background.
bool inErrorTone(const QWidget* field)
{
    const QPalette app = QApplication::palette();
    return field->palette().color(QPalette::Text) == toneColor(Tone::Error, app, app.color(QPalette::Base));
}

} // namespace

class TestEditorForms : public QObject, coh::ui::test::WindowFixture {
    Q_OBJECT
  private slots:
    void initTestCase() { isolate("tst_editor_forms"); }

    void propertiesFollowTheNodeKind()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        PropertyEditor* properties = editor.propertyEditor();
        auto* flops = properties->findChild<FieldEdit*>(QStringLiteral("peakFlops"));
        auto* tiers = properties->findChild<QTableWidget*>(QStringLiteral("memoryTiers"));

        // A GPU computes: Peak FLOP/s is there. A CXL memory node does not: no such field, but its tiers.
        editor.scene()->selectIds({QStringLiteral("gpu0")}, {});
        QVERIFY(flops->isVisibleTo(properties));
        const ordered_json peak = doc.value("/topology/nodes/2/compute/peak_flops").value();
        QCOMPARE(flops->text(), QString::fromStdString(peak.get<std::string>()));
        editor.scene()->selectIds({QStringLiteral("cxl0")}, {});
        QVERIFY(!flops->isVisibleTo(properties));
        QVERIFY(tiers->isVisibleTo(properties));
        // A switch only forwards: neither.
        const QString sw = doc.addNode(QStringLiteral("switch"), QPointF(0, 400));
        editor.scene()->selectIds({sw}, {});
        QVERIFY(!flops->isVisibleTo(properties));
        QVERIFY(!tiers->isVisibleTo(properties));

        // gpu0 -> cxl_memory: the kind and the loss of compute are one undo step; the tiers (which a CXL memory
        // node also has) stay.
        editor.scene()->selectIds({QStringLiteral("gpu0")}, {});
        const ordered_json memory = doc.value("/topology/nodes/2/memory").value();
        const int steps = doc.undoStack()->count();
        properties->findChild<QComboBox*>(QStringLiteral("nodeKind"))->setCurrentText(QStringLiteral("cxl_memory"));
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Edit node kind"));
        COMPARE_JSON(doc.value("/topology/nodes/2/kind").value(), "cxl_memory");
        QVERIFY(!doc.value("/topology/nodes/2/compute").has_value());
        COMPARE_JSON(doc.value("/topology/nodes/2/memory").value(), memory);
        QVERIFY(!flops->isVisibleTo(properties));
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/topology/nodes/2/compute/peak_flops").value(), peak);
        QVERIFY(flops->isVisibleTo(properties));
    }

    void propertyFieldRefusesWhatCoreRefuses()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.scene()->selectIds({}, {QStringLiteral("cpu0-gpu0")});
        auto* bandwidth = editor.propertyEditor()->findChild<FieldEdit*>(QStringLiteral("linkBandwidth"));
        const QString stored = bandwidth->text();
        const ordered_json before = doc.json();

        // "fast" is no bandwidth: refused at the field in core's words, red, nothing stored, nothing to undo.
        enter(bandwidth, QStringLiteral("fast"));
        COMPARE_JSON(doc.json(), before);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(bandwidth->isRefused());
        QVERIFY(bandwidth->property("invalid").toBool());
        QVERIFY(inErrorTone(bandwidth));
        QCOMPARE(bandwidth->text(), QStringLiteral("fast")); // kept, to be fixed
        QCOMPARE(bandwidth->toolTip(),
                 QStringLiteral("'fast' does not start with a number. Enter a bandwidth such as 64 GB/s"));
        // Validation of the (unchanged) document does not clear the refusal.
        editor.propertyEditor()->validateNow();
        QVERIFY(bandwidth->property("invalid").toBool());
        // Escape: the stored value back, the mark gone.
        QTest::keyClick(bandwidth, Qt::Key_Escape);
        QCOMPARE(bandwidth->text(), stored);
        QVERIFY(!bandwidth->property("invalid").toBool());
        QVERIFY(!inErrorTone(bandwidth));

        // A size where a bandwidth goes, a negative count of anything, a number beyond any double.
        enter(bandwidth, QStringLiteral("450 GB"));
        QCOMPARE(bandwidth->toolTip(),
                 QStringLiteral("'450 GB' is a size, not a bandwidth (add /s). Enter a bandwidth such as 64 GB/s"));
        editor.scene()->selectIds({QStringLiteral("gpu0")}, {});
        QVERIFY(!bandwidth->isRefused()); // another item: the refused text went with the old selection
        auto* flops = editor.propertyEditor()->findChild<FieldEdit*>(QStringLiteral("peakFlops"));
        enter(flops, QStringLiteral("-3"));
        QCOMPARE(flops->toolTip(), QStringLiteral("Enter a compute rate above zero, such as 989 TFLOP/s"));
        auto* tiers = editor.propertyEditor()->findChild<QTableWidget*>(QStringLiteral("memoryTiers"));
        auto* capacity = qobject_cast<FieldEdit*>(tiers->cellWidget(0, 1));
        enter(capacity, QStringLiteral("1e400"));
        QCOMPARE(capacity->toolTip(), QStringLiteral("Enter a realistic size such as 80 GB"));
        QVERIFY(inErrorTone(capacity));
        COMPARE_JSON(doc.json(), before);
        QCOMPARE(doc.undoStack()->count(), 0);

        // A good value is stored, as one step named in words.
        enter(flops, QStringLiteral("500 TFLOP/s"));
        COMPARE_JSON(doc.value("/topology/nodes/2/compute/peak_flops").value(), "500 TFLOP/s");
        QVERIFY(!flops->property("invalid").toBool());
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit peak FLOP/s"));
    }

    void scenarioDockMarksEveryFieldWithAProblem()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        // One mistake per section, as a hand-edited file might have them.
        doc.setValue("/workload/arrival/rate", "fast", QString());
        doc.setValue("/model", "Llama-9", QString());
        doc.setValue("/serving/router", "fastest", QString());
        doc.setValue("/serving/block_tokens", 0, QString());
        doc.setValue("/coherence/decode", "msi2", QString());
        doc.setValue("/slo/ttft", "-1 s", QString());
        doc.setValue("/serving/instances", ordered_json::parse(R"([ { "id": "p", "role": "prefill", "nodes": ["gpu0"] },
                                              { "id": "d", "role": "decode", "nodes": ["gpu9"] } ])"),
                     QString());
        doc.undoStack()->clear();
        ScenarioPanel panel(&doc);
        panel.resize(420, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showProblems();

        auto* rate = byPointer<FieldEdit>(&panel, "/workload/arrival/rate");
        QVERIFY(rate->property("invalid").toBool());
        QVERIFY(inErrorTone(rate));
        // Core's words for the form, then the field's own help.
        QCOMPARE(rate->toolTip(), QStringLiteral("Enter a number such as 4.0\nRequests per second"));
        QVERIFY(!rate->isRefused()); // it came from the file: validation marks it, nothing refused it
        for (QWidget* field : std::initializer_list<QWidget*>{
                 panel.modelCombo(), byPointer<QComboBox>(&panel, "/serving/router"),
                 byPointer<FieldEdit>(&panel, "/serving/block_tokens"), panel.coherenceForm()->protocolCombo(),
                 byPointer<FieldEdit>(&panel, "/slo/ttft")}) {
            QVERIFY2(field && field->property("invalid").toBool(), qPrintable(field ? field->objectName() : QString()));
            QVERIFY2(inErrorTone(field), qPrintable(field->objectName()));
            QVERIFY2(!field->toolTip().isEmpty(), qPrintable(field->objectName()));
        }
        QCOMPARE(byPointer<FieldEdit>(&panel, "/serving/block_tokens")->toolTip(),
                 QStringLiteral("Enter a whole number from 1 to 4294967295"));
        QVERIFY(panel.modelCombo()->toolTip().startsWith(QStringLiteral("Unknown model 'Llama-9'")));
        // The instance naming a node that does not exist: its nodes cell, in the Error tone.
        QTableWidget* instances = panel.instancesEditor()->table();
        QTableWidgetItem* nodes = instances->item(1, InstancesEditor::Nodes);
        const QPalette table = instances->palette();
        QCOMPARE(nodes->foreground().color(), toneColor(Tone::Error, table, table.color(QPalette::Base)));
        QVERIFY2(nodes->toolTip().contains(QStringLiteral("gpu9")), qPrintable(nodes->toolTip()));
        QCOMPARE(instances->item(0, InstancesEditor::Nodes)->foreground().style(), Qt::NoBrush);
        // Fields without problems are not marked.
        QVERIFY(!byPointer<FieldEdit>(&panel, "/workload/requests")->property("invalid").toBool());

        // The tone follows the palette: in the dark palette the same fields read in its Error tone.
        MainActions::applyPalette(true);
        QVERIFY(inErrorTone(rate));
        QCOMPARE(nodes->foreground().color(),
                 toneColor(Tone::Error, instances->palette(), instances->palette().color(QPalette::Base)));
        MainActions::applyPalette(false);

        // Fixing the rate clears its mark once validation has run.
        enter(rate, QStringLiteral("5"));
        panel.showProblems();
        QVERIFY(!rate->property("invalid").toBool());
        QVERIFY(!inErrorTone(rate));
    }

    void scenarioDockRefusesWhatCoreRefuses()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const ordered_json before = doc.json();
        auto* requests = byPointer<FieldEdit>(&panel, "/workload/requests");
        enter(requests, QStringLiteral("-3"));
        QCOMPARE(requests->toolTip(), QStringLiteral("Enter a whole number from 1 to 10000000"));
        enter(requests, QStringLiteral("2.5"));
        QCOMPARE(requests->toolTip(), QStringLiteral("Enter a whole number such as 1"));
        QVERIFY(inErrorTone(requests));
        auto* tpot = byPointer<FieldEdit>(&panel, "/slo/tpot");
        enter(tpot, QStringLiteral("fast"));
        QCOMPARE(tpot->toolTip(), QStringLiteral("'fast' does not start with a number. Enter a time such as 1.5 us"));
        COMPARE_JSON(doc.json(), before);
        QCOMPARE(doc.undoStack()->count(), 0);
        // No JSON talk in any of it.
        for (const FieldEdit* field : {requests, tpot})
            QVERIFY2(!field->toolTip().contains(QLatin1Char('"')) && !field->toolTip().contains(QStringLiteral("quot")),
                     qPrintable(field->toolTip()));
        QTest::keyClick(requests, Qt::Key_Escape);
        QCOMPARE(requests->text(), QStringLiteral("1500"));
        QVERIFY(!requests->property("invalid").toBool());
        // Blank is no refusal: the key goes, core's default applies.
        enter(tpot, QString());
        QVERIFY(!tpot->isRefused());
    }

    void routerAndDecodeAffinityEditTheJson()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        RouterForm* router = panel.routerForm();
        QComboBox* policy = router->policyCombo();
        QCOMPARE(policy, byPointer<QComboBox>(&panel, "/serving/router"));
        QVERIFY(!router->weightEdit()->isEnabled()); // least_loaded has no weights
        const auto choose = [](QComboBox* combo, const char* value) {
            const int index = combo->findData(QLatin1String(value));
            QVERIFY2(index >= 0, value);
            combo->setCurrentIndex(index);
            emit combo->activated(index);
        };
        choose(policy, "cache_aware");
        COMPARE_JSON(doc.value("/serving/router").value(), "cache_aware");
        QVERIFY(router->weightEdit()->isEnabled());
        // A weight turns the name into the object form; each edit is one named undo step.
        enter(router->weightEdit(), QStringLiteral("3"));
        COMPARE_JSON(doc.value("/serving/router").value(),
                     ordered_json::parse(R"({"policy": "cache_aware", "overlap_weight": 3})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit overlap weight"));
        enter(router->imbalanceEdit(), QStringLiteral("1.5"));
        COMPARE_JSON(doc.value("/serving/router").value(),
                     ordered_json::parse(R"({"policy": "cache_aware", "overlap_weight": 3, "max_imbalance": 1.5})"));
        enter(router->imbalanceEdit(), QStringLiteral("lots"));
        QVERIFY(router->imbalanceEdit()->property("invalid").toBool()); // refused; the document keeps 1.5
        COMPARE_JSON(doc.value("/serving/router/max_imbalance").value(), 1.5);
        enter(router->imbalanceEdit(), QString());
        enter(router->weightEdit(), QString());
        COMPARE_JSON(doc.value("/serving/router").value(), "cache_aware"); // no weight left: the plain name
        enter(router->weightEdit(), QStringLiteral("2"));
        choose(policy, "round_robin"); // the weights belong to cache_aware alone
        COMPARE_JSON(doc.value("/serving/router").value(), "round_robin");
        QVERIFY(!router->weightEdit()->isEnabled());
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit router"));
        // Validation marks a bad value the file brought.
        doc.setValue("/serving/router", ordered_json::parse(R"({"policy": "cache_aware", "max_imbalance": 0.5})"),
                     QString());
        panel.showProblems();
        QVERIFY(router->imbalanceEdit()->property("invalid").toBool());
        QCOMPARE(router->imbalanceEdit()->text(), QStringLiteral("0.5"));

        auto* affinity = byPointer<QComboBox>(&panel, "/serving/decode_affinity");
        QVERIFY(affinity);
        choose(affinity, "same_node");
        COMPARE_JSON(doc.value("/serving/decode_affinity").value(), "same_node");
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit decode affinity"));
    }

    void replicationEditsTheJson()
    {
        ScenarioDocument doc;
        openPreset(doc, "edge-cluster.json"); // orin0..3 hold HBM; decode runs on orin2 and orin3
        doc.setValue("/coherence", ordered_json::parse(R"({"decode": "msi-directory"})"), QString());
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ReplicationForm* replication = panel.replicationForm();
        QCOMPARE(replication->factorEdit(), byPointer<FieldEdit>(&panel, "/serving/replication/factor"));
        QComboBox* placement = replication->placementCombo();
        QListWidget* nodes = replication->nodeList();
        QCOMPARE(placement, byPointer<QComboBox>(&panel, "/serving/replication/placement"));
        // Core's rule picks the nodes: the switch has no memory that can hold KV.
        QStringList offered;
        for (int i = 0; i < nodes->count(); ++i)
            offered << nodes->item(i)->text();
        QCOMPARE(offered.join(QLatin1Char(' ')), QStringLiteral("orin0 orin1 orin2 orin3"));
        QVERIFY(!nodes->isEnabled()); // the nodes belong to the fixed placement

        enter(replication->factorEdit(), QStringLiteral("0"));
        QVERIFY(replication->factorEdit()->property("invalid").toBool()); // refused at the field, in core's words
        QVERIFY(!doc.value("/serving/replication"));
        enter(replication->factorEdit(), QStringLiteral("2"));
        COMPARE_JSON(doc.value("/serving/replication").value(), ordered_json::parse(R"({"factor": 2})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit replication factor"));
        QVERIFY(!replication->factorEdit()->property("invalid").toBool());

        const auto choose = [](QComboBox* combo, const char* value) {
            const int index = combo->findData(QLatin1String(value));
            QVERIFY2(index >= 0, value);
            combo->setCurrentIndex(index);
            emit combo->activated(index);
        };
        choose(placement, "fixed");
        COMPARE_JSON(doc.value("/serving/replication").value(),
                     ordered_json::parse(R"({"factor": 2, "placement": "fixed"})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit replica placement"));
        QVERIFY(nodes->isEnabled());
        panel.showProblems();
        QVERIFY(nodes->property("invalid").toBool()); // fixed needs its list of nodes

        // Checking appends (the order is the order nodes are tried), one undo step each.
        nodes->item(3)->setCheckState(Qt::Checked);
        nodes->item(0)->setCheckState(Qt::Checked);
        COMPARE_JSON(doc.value("/serving/replication").value(),
                     ordered_json::parse(R"({"factor": 2, "placement": "fixed", "nodes": ["orin3", "orin0"]})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit replica nodes"));
        panel.showProblems();
        QVERIFY(!nodes->property("invalid").toBool());
        QVERIFY(!placement->property("invalid").toBool());
        // A decode node listed is skipped for its own instance: orin3 alone is too few for factor 2.
        nodes->item(0)->setCheckState(Qt::Unchecked);
        COMPARE_JSON(doc.value("/serving/replication/nodes").value(), ordered_json::parse(R"(["orin3"])"));
        panel.showProblems();
        QVERIFY(nodes->property("invalid").toBool());
        QVERIFY(inErrorTone(nodes));
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/serving/replication/nodes").value(), ordered_json::parse(R"(["orin3", "orin0"])"));
        QCOMPARE(nodes->item(0)->checkState(), Qt::Checked);

        // Another placement drops the nodes (core refuses them there); the default with no factor drops the section.
        choose(placement, "nearest");
        COMPARE_JSON(doc.value("/serving/replication").value(),
                     ordered_json::parse(R"({"factor": 2, "placement": "nearest"})"));
        QVERIFY(!nodes->isEnabled());
        QCOMPARE(nodes->item(0)->checkState(), Qt::Unchecked);
        enter(replication->factorEdit(), QString());
        choose(placement, "");
        QVERIFY(!doc.value("/serving/replication"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit replica placement"));

        // A listed node that cannot hold KV stays visible, checked and marked, until it is unchecked.
        doc.setValue("/serving/replication",
                     ordered_json::parse(R"({"factor": 2, "placement": "fixed", "nodes": ["orin0", "eth-switch"]})"),
                     QString());
        QCOMPARE(nodes->count(), 5);
        QCOMPARE(nodes->item(4)->text(), QStringLiteral("eth-switch"));
        QCOMPARE(nodes->item(4)->checkState(), Qt::Checked);
        panel.showProblems();
        QVERIFY(nodes->property("invalid").toBool());
        nodes->item(4)->setCheckState(Qt::Unchecked);
        COMPARE_JSON(doc.value("/serving/replication/nodes").value(), ordered_json::parse(R"(["orin0"])"));
        QTRY_COMPARE(nodes->count(), 4);
        panel.showProblems();
        QVERIFY(!nodes->property("invalid").toBool());
        doc.removeValue("/serving/replication", QString());

        // A factor the topology cannot place is validation's problem, marked at the field.
        enter(replication->factorEdit(), QStringLiteral("5"));
        panel.showProblems();
        QVERIFY(replication->factorEdit()->property("invalid").toBool());
    }

    void kvTiersEditTheJson()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json"); // cpu0 has DRAM, cxl0 CXL memory; no node has storage
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        KvTiersForm* form = panel.kvTiersForm();
        QListWidget* tiers = form->tierList();
        QComboBox* eviction = form->evictionCombo();
        QComboBox* write = form->writeCombo();
        QCOMPARE(tiers, byPointer<QListWidget>(&panel, "/serving/kv_tiers/tiers"));
        QCOMPARE(eviction, byPointer<QComboBox>(&panel, "/serving/kv_tiers/eviction"));
        QCOMPARE(write, byPointer<QComboBox>(&panel, "/serving/kv_tiers/write"));
        const auto shown = [tiers] {
            QStringList rows;
            for (int i = 0; i < tiers->count(); ++i)
                rows << tiers->item(i)->text() + (tiers->item(i)->checkState() == Qt::Checked ? u'+' : u'-');
            return rows.join(QLatin1Char(' '));
        };
        const auto choose = [](QComboBox* combo, const char* value) {
            const int index = combo->findData(QLatin1String(value));
            QVERIFY2(index >= 0, value);
            combo->setCurrentIndex(index);
            emit combo->activated(index);
        };
        QCOMPARE(shown(), QStringLiteral("dram- cxl- storage-"));
        QVERIFY(tiers->toolTip().contains(QLatin1String("Coherence section")));
        QCOMPARE(eviction->currentText(), QStringLiteral("(default: lru)"));
        QCOMPARE(write->currentText(), QStringLiteral("(default: write_back)"));
        QVERIFY(!eviction->isEnabled()); // the policies mean nothing without tiers
        QVERIFY(!write->isEnabled());

        // Checking appends to the spill order, one undo step each; the list shows that order.
        tiers->item(0)->setCheckState(Qt::Checked);
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(), ordered_json::parse(R"({"tiers": ["dram"]})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit KV tiers"));
        tiers->item(1)->setCheckState(Qt::Checked);
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(), ordered_json::parse(R"({"tiers": ["dram", "cxl"]})"));
        QCOMPARE(shown(), QStringLiteral("1. dram+ 2. cxl+ storage-"));
        QVERIFY(eviction->isEnabled());
        panel.showProblems();
        QVERIFY(!tiers->property("invalid").toBool());

        choose(eviction, "largest");
        choose(write, "write_through");
        COMPARE_JSON(
            doc.value("/serving/kv_tiers").value(),
            ordered_json::parse(R"({"tiers": ["dram", "cxl"], "eviction": "largest", "write": "write_through"})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit KV tier write policy"));
        choose(eviction, "");
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["dram", "cxl"], "write": "write_through"})"));
        QCOMPARE(undoActionText(doc), QStringLiteral("Undo Edit KV tier eviction"));

        // Unchecking both removes the whole section, the write policy with it; undo brings it back.
        tiers->item(0)->setCheckState(Qt::Unchecked);
        QCOMPARE(shown(), QStringLiteral("1. cxl+ dram- storage-"));
        tiers->item(0)->setCheckState(Qt::Unchecked);
        QVERIFY(!doc.value("/serving/kv_tiers"));
        QCOMPARE(shown(), QStringLiteral("dram- cxl- storage-"));
        QCOMPARE(write->currentIndex(), 0);
        QVERIFY(!write->isEnabled());
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["cxl"], "write": "write_through"})"));
        QCOMPARE(shown(), QStringLiteral("1. cxl+ dram- storage-"));
        QCOMPARE(write->currentData().toString(), QStringLiteral("write_through"));

        // A scenario that lists tiers shows them checked, in its order.
        ordered_json opened = doc.json();
        opened["serving"]["kv_tiers"] = ordered_json::parse(R"({"tiers": ["cxl", "dram"], "eviction": "largest"})");
        doc.reset(opened);
        QCOMPARE(shown(), QStringLiteral("1. cxl+ 2. dram+ storage-"));
        QCOMPARE(eviction->currentData().toString(), QStringLiteral("largest"));

        // A tier no node has is validation's problem, marked on the list.
        tiers->item(2)->setCheckState(Qt::Checked);
        COMPARE_JSON(doc.value("/serving/kv_tiers/tiers").value(),
                     ordered_json::parse(R"(["cxl", "dram", "storage"])"));
        panel.showProblems();
        QVERIFY(tiers->property("invalid").toBool());
        QVERIFY(inErrorTone(tiers));
        QVERIFY(tiers->toolTip().contains(QLatin1String("storage memory")));
        tiers->item(2)->setCheckState(Qt::Unchecked);
        panel.showProblems();
        QVERIFY(!tiers->property("invalid").toBool());

        // A listed name that is no tier below HBM stays checked and marked until it is unchecked.
        doc.setValue("/serving/kv_tiers/tiers", ordered_json::parse(R"(["hbm", "dram"])"), QString());
        QCOMPARE(shown(), QStringLiteral("1. hbm+ 2. dram+ cxl- storage-"));
        panel.showProblems();
        QVERIFY(tiers->property("invalid").toBool());
        tiers->item(0)->setCheckState(Qt::Unchecked);
        COMPARE_JSON(doc.value("/serving/kv_tiers/tiers").value(), ordered_json::parse(R"(["dram"])"));
        QTRY_COMPARE(shown(), QStringLiteral("1. dram+ cxl- storage-"));
        // An unknown policy is shown as written and marked on its box, not on the list.
        doc.setValue("/serving/kv_tiers/eviction", "fifo", QString());
        QCOMPARE(eviction->currentText(), QStringLiteral("fifo"));
        panel.showProblems();
        QVERIFY(eviction->property("invalid").toBool());
        QVERIFY(!tiers->property("invalid").toBool());
    }

    void aFieldNotBeingEditedReadsFromItsStart()
    {
        // The Scenario dock's Description showed the end of its text ("...under a second."): setText leaves the
        // cursor at the end. Opened, changed by undo or by another field, or left after typing, it shows the start.
        ScenarioDocument doc;
        QString error;
        QVERIFY2(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/scenarios/default.json"), &error),
                 qPrintable(error));
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        auto* description = byPointer<FieldEdit>(&panel, "/description");
        auto* name = byPointer<FieldEdit>(&panel, "/name");
        QVERIFY(description->fontMetrics().horizontalAdvance(description->text()) > description->width());
        QCOMPARE(description->cursorPosition(), 0);

        const QString longer = description->text() + QStringLiteral(" And a second sentence that is long too.");
        doc.setValue("/description", toStdString(longer), QStringLiteral("Edit scenario description"));
        QCOMPARE(description->text(), longer);
        QCOMPARE(description->cursorPosition(), 0);
        doc.undoStack()->undo();
        QCOMPARE(description->cursorPosition(), 0);

        // Typed into, the cursor is where the typing left it; once focus moves on, the start shows again.
        enter(description, longer);
        QCOMPARE(description->cursorPosition(), longer.size());
        name->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(name->hasFocus());
        QCOMPARE(description->cursorPosition(), 0);
        QCOMPARE(doc.value("/description"), std::optional<ordered_json>(toStdString(longer)));
        // Escape puts the stored text back from its start too.
        description->setFocus();
        description->setText(QStringLiteral("half-typed"));
        QTest::keyClick(description, Qt::Key_Escape);
        QCOMPARE(description->text(), longer);
        name->setFocus(Qt::TabFocusReason);
        QCOMPARE(description->cursorPosition(), 0);
    }

    void undoStepsAreNamedInWords()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        ScenarioPanel panel(&doc);
        panel.resize(420, 900);
        panel.show();
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        const auto check = [&](const QString& expected) {
            QCOMPARE(doc.undoStack()->undoText(), expected);
            QCOMPARE(undoActionText(doc), QStringLiteral("Undo ") + expected);
        };
        // Scenario dock, section by section.
        enter(panel.nameEdit(), QStringLiteral("renamed"));
        check(QStringLiteral("Edit scenario name"));
        enter(byPointer<FieldEdit>(&panel, "/workload/arrival/rate"), QStringLiteral("8"));
        check(QStringLiteral("Edit workload rate"));
        enter(byPointer<FieldEdit>(&panel, "/workload/prompt/median"), QStringLiteral("1000"));
        check(QStringLiteral("Edit prompt length median"));
        enter(byPointer<FieldEdit>(&panel, "/serving/block_tokens"), QStringLiteral("32"));
        check(QStringLiteral("Edit block tokens"));
        auto* router = byPointer<QComboBox>(&panel, "/serving/router");
        router->setCurrentIndex(router->findData(QStringLiteral("round_robin")));
        emit router->activated(router->currentIndex());
        check(QStringLiteral("Edit router"));
        panel.instancesEditor()->explicitCheck()->setChecked(true);
        check(QStringLiteral("List serving instances"));
        auto* decode = panel.coherenceForm()->protocolCombo();
        decode->setCurrentIndex(decode->findData(QStringLiteral("msi")));
        emit decode->activated(decode->currentIndex());
        check(QStringLiteral("Edit decode protocol"));
        enter(byPointer<FieldEdit>(&panel, "/coherence/control_bytes"), QStringLiteral("128"));
        check(QStringLiteral("Edit control bytes"));
        enter(byPointer<FieldEdit>(&panel, "/slo/ttft"), QStringLiteral("2 s"));
        check(QStringLiteral("Edit TTFT SLO"));
        enter(byPointer<FieldEdit>(&panel, "/record/max_messages"), QStringLiteral("1000"));
        check(QStringLiteral("Edit recorded messages"));

        // Property editor: link, node, tier, role.
        PropertyEditor* properties = editor.propertyEditor();
        editor.scene()->selectIds({}, {QStringLiteral("cpu0-gpu0")});
        enter(properties->findChild<FieldEdit*>(QStringLiteral("linkBandwidth")), QStringLiteral("128 GB/s"));
        check(QStringLiteral("Edit link bandwidth"));
        enter(properties->findChild<FieldEdit*>(QStringLiteral("linkLatency")), QStringLiteral("2 us"));
        check(QStringLiteral("Edit link latency"));
        properties->findChild<QComboBox*>(QStringLiteral("linkKind"))->setCurrentText(QStringLiteral("cxl"));
        check(QStringLiteral("Edit link kind"));
        editor.scene()->selectIds({QStringLiteral("gpu1")}, {});
        enter(properties->findChild<FieldEdit*>(QStringLiteral("memoryBandwidth")), QStringLiteral("3 TB/s"));
        check(QStringLiteral("Edit memory bandwidth"));
        auto* tiers = properties->findChild<QTableWidget*>(QStringLiteral("memoryTiers"));
        enter(qobject_cast<FieldEdit*>(tiers->cellWidget(0, 2)), QStringLiteral("3 TB/s"));
        check(QStringLiteral("Edit memory tier bandwidth"));
        properties->findChild<QComboBox*>(QStringLiteral("nodeRole"))->setCurrentText(QStringLiteral("decode"));
        check(QStringLiteral("Edit node role"));
        editor.scene()->selectIds({QStringLiteral("gpu1")}, {});
        editor.scene()->selectIds({}, {});
        QTest::keyClick(editor.view(), Qt::Key_Delete); // nothing selected: nothing to name
        check(QStringLiteral("Edit node role"));
    }

    void problemLeadsToADanglingLink()
    {
        // Double-clicking the Problems entry of a link to an unknown node selects that link on the canvas.
        MainWindow window(m_db);
        QVERIFY(window.openScenario(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.document()->setValue("/topology/links/1/a", "gpu9", QStringLiteral("typo"));
        window.validateNow();
        QListWidget* problems = window.problemsList();
        QListWidgetItem* entry = nullptr;
        for (int i = 0; i < problems->count(); ++i)
            if (problems->item(i)->data(Qt::UserRole).toString() == QLatin1String("/topology/links/1/a"))
                entry = problems->item(i);
        QVERIFY(entry);
        window.tabs()->setCurrentIndex(0);
        const QPoint at = problems->visualItemRect(entry).center();
        QTest::mouseClick(problems->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTest::mouseDClick(problems->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        auto* editor = window.findChild<TopologyEditor*>();
        QCOMPARE(window.tabs()->currentWidget(), editor);
        QCOMPARE(editor->scene()->selectedLinkIds(), QStringList{QStringLiteral("gpu1-link")});
        QVERIFY(editor->scene()->linkItem(QStringLiteral("gpu1-link"))->isDangling());
        window.document()->undoStack()->undo();

        // A problem outside the topology leads to its field in the Scenario dock, scrolled to and focused.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.document()->setValue("/slo/tpot", "-5 ms", QStringLiteral("typo"));
        window.validateNow();
        entry = nullptr;
        for (int i = 0; i < problems->count(); ++i)
            if (problems->item(i)->data(Qt::UserRole).toString() == QLatin1String("/slo/tpot"))
                entry = problems->item(i);
        QVERIFY(entry);
        emit problems->itemActivated(entry);
        auto* tpot = byPointer<FieldEdit>(window.scenarioPanel(), "/slo/tpot");
        QCOMPARE(QApplication::focusWidget(), tpot);
        QVERIFY(!tpot->visibleRegion().isEmpty());
        window.document()->undoStack()->setClean(); // no "save changes?" on the way out
    }
};

QTEST_MAIN(TestEditorForms)
#include "tst_editor_forms.moc"
