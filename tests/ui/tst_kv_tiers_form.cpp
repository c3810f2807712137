// The KV tier rows' capacity fields (serving.kv_tiers.capacity): one per tier below HBM, enabled while the tier is
// checked; a quantity typed there is stored at its pointer as one undo step, clearing the last one drops the
// capacity object, unchecking a tier drops its capacity in the same undo step, and problems at a capacity mark its
// field, not the tier list. Only the JSON edits are asserted: whether core accepts "capacity" is core's concern.
#include "editor_input.h"
#include "json_compare.h"
#include "ui/field_edit.h"
#include "ui/form_layout.h"
#include "ui/kv_tiers_form.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"
#include "ui/scenario_panel.h"
#include "window_fixture.h"

#include <QListWidget>
#include <QTest>
#include <QUndoStack>

using namespace coh::ui;
using coh::ui::test::enter;
using coh::ui::test::openPreset;
using nlohmann::ordered_json;

namespace {

// The list row of a tier (the list shows the checked tiers first, so rows move).
QListWidgetItem* row(QListWidget* tiers, const char* tier)
{
    for (int i = 0; i < tiers->count(); ++i)
        if (tiers->item(i)->data(Qt::UserRole).toString() == QLatin1String(tier))
            return tiers->item(i);
    qWarning("no row for %s", tier);
    return nullptr;
}

} // namespace

class TestKvTiersForm : public QObject, coh::ui::test::WindowFixture {
    Q_OBJECT
  private slots:
    void initTestCase() { isolate("tst_kv_tiers_form"); }

    void capacitiesEditTheJson()
    {
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json"); // no kv_tiers
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        KvTiersForm* form = panel.kvTiersForm();
        QListWidget* tiers = form->tierList();
        FieldEdit* dram = form->capacityEdit(QStringLiteral("dram"));
        FieldEdit* cxl = form->capacityEdit(QStringLiteral("cxl"));
        QVERIFY(dram && cxl && form->capacityEdit(QStringLiteral("storage")));
        QVERIFY(!form->capacityEdit(QStringLiteral("hbm")));
        QCOMPARE(dram, panel.findChild<FieldEdit*>(QStringLiteral("/serving/kv_tiers/capacity/dram")));
        QCOMPARE(dram->placeholderText(), QStringLiteral("(even share of the node)"));
        QVERIFY(dram->toolTip().contains(QLatin1String("each decode instance")));

        // Disabled while its tier is unchecked; checking enables it.
        QVERIFY(!dram->isEnabled());
        QVERIFY(!cxl->isEnabled());
        row(tiers, "dram")->setCheckState(Qt::Checked);
        QVERIFY(dram->isEnabled());
        QVERIFY(!cxl->isEnabled());
        row(tiers, "cxl")->setCheckState(Qt::Checked);
        QVERIFY(cxl->isEnabled());

        // A quantity is stored as typed, one undo step each.
        int steps = doc.undoStack()->index();
        enter(dram, QStringLiteral("512 MiB"));
        COMPARE_JSON(doc.value("/serving/kv_tiers/capacity/dram").value(), "512 MiB");
        QCOMPARE(doc.undoStack()->index(), steps + 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Edit dram capacity per decode GPU"));
        enter(cxl, QStringLiteral("64 GiB"));
        COMPARE_JSON(
            doc.value("/serving/kv_tiers").value(),
            ordered_json::parse(R"({"tiers": ["dram", "cxl"], "capacity": {"dram": "512 MiB", "cxl": "64 GiB"}})"));
        // A plain number of bytes is a number.
        enter(cxl, QStringLiteral("1073741824"));
        COMPARE_JSON(doc.value("/serving/kv_tiers/capacity/cxl").value(), 1073741824);
        doc.undoStack()->undo();
        QCOMPARE(cxl->text(), QStringLiteral("64 GiB"));

        // Clearing one keeps the others; clearing the last drops the capacity object, undo brings it back.
        steps = doc.undoStack()->index();
        enter(cxl, QString());
        COMPARE_JSON(doc.value("/serving/kv_tiers/capacity").value(), ordered_json::parse(R"({"dram": "512 MiB"})"));
        enter(dram, QString());
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(), ordered_json::parse(R"({"tiers": ["dram", "cxl"]})"));
        QCOMPARE(doc.undoStack()->index(), steps + 2);
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/serving/kv_tiers/capacity").value(), ordered_json::parse(R"({"dram": "512 MiB"})"));
        QCOMPARE(dram->text(), QStringLiteral("512 MiB"));

        // Unchecking dram drops its capacity (and the emptied object) in the same step; one undo restores both.
        steps = doc.undoStack()->index();
        row(tiers, "dram")->setCheckState(Qt::Unchecked);
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(), ordered_json::parse(R"({"tiers": ["cxl"]})"));
        QCOMPARE(doc.undoStack()->index(), steps + 1);
        QVERIFY(!dram->isEnabled());
        QVERIFY(dram->text().isEmpty());
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["dram", "cxl"], "capacity": {"dram": "512 MiB"}})"));
        QVERIFY(dram->isEnabled());
        QCOMPARE(dram->text(), QStringLiteral("512 MiB"));

        // Unchecking a tier keeps the other tiers' capacities.
        enter(cxl, QStringLiteral("64 GiB"));
        row(tiers, "cxl")->setCheckState(Qt::Unchecked);
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["dram"], "capacity": {"dram": "512 MiB"}})"));
        // Unchecking the last tier removes the whole section, as before.
        row(tiers, "dram")->setCheckState(Qt::Unchecked);
        QVERIFY(!doc.value("/serving/kv_tiers"));
        QVERIFY(!dram->isEnabled());
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["dram"], "capacity": {"dram": "512 MiB"}})"));
    }

    void aCapacityForAnUnlistedTierCanBeCleared()
    {
        // A file may give a capacity for a tier it does not list (core refuses it): the field stays enabled so the
        // value can be cleared, and is disabled once it is gone.
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        ordered_json opened = doc.json();
        opened["serving"]["kv_tiers"] =
            ordered_json::parse(R"({"tiers": ["dram"], "capacity": {"dram": "1 GiB", "storage": "2 GiB"}})");
        doc.reset(opened);
        ScenarioPanel panel(&doc);
        panel.resize(380, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        FieldEdit* storage = panel.kvTiersForm()->capacityEdit(QStringLiteral("storage"));
        QVERIFY(storage->isEnabled());
        QCOMPARE(storage->text(), QStringLiteral("2 GiB"));
        QVERIFY(!panel.kvTiersForm()->capacityEdit(QStringLiteral("cxl"))->isEnabled());
        enter(storage, QString());
        COMPARE_JSON(doc.value("/serving/kv_tiers").value(),
                     ordered_json::parse(R"({"tiers": ["dram"], "capacity": {"dram": "1 GiB"}})"));
        QVERIFY(!storage->isEnabled());
    }

    void problemsAtACapacityMarkItsField()
    {
        // Marked through the form's own ScenarioFields, with a problem as core words it: no dependence on what
        // validation says about "capacity" today.
        ScenarioDocument doc;
        openPreset(doc, "cxl-pool.json");
        doc.setValue("/serving/kv_tiers", ordered_json::parse(R"({"tiers": ["dram"], "capacity": {"dram": "x"}})"),
                     QString());
        QWidget page;
        ScenarioFields fields(&doc, nullptr);
        KvTiersForm form(&doc, &fields, newFormLayout(&page), &page);
        fields.refresh();
        FieldEdit* dram = form.capacityEdit(QStringLiteral("dram"));
        const std::vector<coh::core::InputProblem> problems{
            {{}, "/serving/kv_tiers/capacity/dram", "not a quantity", "write a size such as 512 MiB", {}}};
        fields.showProblems(problems);
        form.showProblems(problems);
        QVERIFY(dram->property("invalid").toBool());
        QVERIFY(dram->toolTip().contains(QLatin1String("not a quantity"), Qt::CaseInsensitive));
        QVERIFY(!form.tierList()->property("invalid").toBool());
        QVERIFY(!form.capacityEdit(QStringLiteral("cxl"))->property("invalid").toBool());
        // A problem with the capacity object itself is the section's, on the list.
        const std::vector<coh::core::InputProblem> section{{{}, "/serving/kv_tiers/capacity", "not an object", "", {}}};
        fields.showProblems(section);
        form.showProblems(section);
        QVERIFY(!dram->property("invalid").toBool());
        QVERIFY(form.tierList()->property("invalid").toBool());
    }
};

QTEST_MAIN(TestKvTiersForm)
#include "tst_kv_tiers_form.moc"
