// ScenarioDocument: undoable JSON edits, topology helpers, files and validation through core.
#include "json_compare.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using coh::ui::ScenarioDocument;
using nlohmann::ordered_json;

namespace {

QString dataPath(const QString& relative)
{
    return QStringLiteral(COH_TEST_DATA_DIR "/") + relative;
}

QString projectPath(const QString& relative)
{
    return QDir(QStringLiteral(COH_TEST_DATA_DIR "/../..")).absoluteFilePath(relative);
}

void openMinimal(ScenarioDocument& doc)
{
    QString error;
    QVERIFY2(doc.open(dataPath(QStringLiteral("scenarios/minimal.json")), &error), qPrintable(error));
}

} // namespace

class TestScenarioDocument : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void setValueUndoRedo()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        QSignalSpy changed(&doc, &ScenarioDocument::changed);
        QSignalSpy fileState(&doc, &ScenarioDocument::fileStateChanged);
        const ordered_json before = doc.json();
        doc.setValue("/serving/block_tokens", 64, QStringLiteral("block"));
        COMPARE_JSON(doc.value("/serving/block_tokens").value(), ordered_json(64));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().first().toString(), QStringLiteral("/serving/block_tokens"));
        QVERIFY(doc.isModified());
        QCOMPARE(fileState.count(), 1);
        // A missing parent is created; undo removes the key again.
        doc.setValue("/record/max_messages", 10, QStringLiteral("record"));
        COMPARE_JSON(doc.value("/record").value(), (ordered_json{{"max_messages", 10}}));
        doc.undoStack()->undo();
        QVERIFY(!doc.value("/record/max_messages").has_value());
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), before);
        QVERIFY(!doc.isModified());
        doc.undoStack()->redo();
        COMPARE_JSON(doc.value("/serving/block_tokens").value(), ordered_json(64));
    }

    void editUnderAWrongTypedParentReplacesIt()
    {
        // A file being fixed may hold "compute": 5; typing a compute field replaces it (one undo step), not crash.
        ScenarioDocument doc;
        openMinimal(doc);
        doc.setValue("/serving", 5, QStringLiteral("break"));
        const ordered_json broken = doc.json();
        doc.setValue("/serving/block_tokens", 32, QStringLiteral("block"));
        COMPARE_JSON(doc.value("/serving").value(), (ordered_json{{"block_tokens", 32}}));
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), broken);
        // The same through an array: "/topology/nodes/x" names no element, so the edit replaces the array.
        doc.setValue("/topology/nodes/x", 1, QStringLiteral("odd"));
        COMPARE_JSON(doc.value("/topology/nodes").value(), (ordered_json{{"x", 1}}));
    }

    void mergedEditsAreOneStep()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        for (const char* text : {"4", "45", "450", "450 GB/s"})
            doc.setValue("/topology/links/0/bandwidth", text, QStringLiteral("typing"), 7);
        QCOMPARE(doc.undoStack()->count(), 1);
        doc.setValue("/topology/links/0/latency", "2 us", QStringLiteral("other field"), 7);
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        COMPARE_JSON(doc.value("/topology/links/0/bandwidth").value(), ordered_json("400 Gb/s"));
    }

    void removeValueFromArrayUndoesInPlace()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        const ordered_json before = doc.json();
        doc.removeValue("/topology/nodes/0", QStringLiteral("remove"));
        QCOMPARE(doc.nodeIds(), (QStringList{QStringLiteral("gpu1"), QStringLiteral("sw0")}));
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), before);
    }

    void addNodeDefaultsValidate_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("id");
        QTest::newRow("cpu_socket") << QStringLiteral("cpu_socket") << QStringLiteral("cpu0");
        QTest::newRow("gpu") << QStringLiteral("gpu") << QStringLiteral("gpu2");
        QTest::newRow("accelerator") << QStringLiteral("accelerator") << QStringLiteral("acc0");
        QTest::newRow("cxl_memory") << QStringLiteral("cxl_memory") << QStringLiteral("cxl0");
        QTest::newRow("switch") << QStringLiteral("switch") << QStringLiteral("switch0");
        QTest::newRow("storage") << QStringLiteral("storage") << QStringLiteral("storage0");
    }

    void addNodeDefaultsValidate()
    {
        QFETCH(QString, kind);
        QFETCH(QString, id);
        ScenarioDocument doc;
        openMinimal(doc);
        QCOMPARE(doc.addNode(kind, QPointF(200.4, 99.6)), id);
        const ordered_json node = doc.node(id).value();
        COMPARE_JSON(node["kind"], ordered_json(coh::ui::toStdString(kind)));
        COMPARE_JSON(node["position"], (ordered_json{200, 100}));
        QCOMPARE(doc.nodePosition(id), QPointF(200, 100));
        if (kind == QLatin1String("gpu"))
            QVERIFY(node.contains("compute") && node["memory"][0]["tier"] == "hbm");
        if (kind == QLatin1String("cpu_socket"))
            QVERIFY(node["role"] == "host" && node["memory"][0]["tier"] == "dram");
        if (kind == QLatin1String("switch"))
            QVERIFY(!node.contains("memory") && !node.contains("compute"));
        // Linked in, the new node must still leave a valid scenario.
        QVERIFY(!doc.addLink(id, QStringLiteral("sw0"), QStringLiteral("pcie")).isEmpty());
        const auto validation = doc.validate();
        QVERIFY2(validation.scenario.has_value(), qPrintable(validation.error));
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QVERIFY(!doc.node(id).has_value());
    }

    void addLinkRules()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        QVERIFY(doc.addLink(QStringLiteral("gpu0"), QStringLiteral("gpu0")).isEmpty());
        QVERIFY(doc.addLink(QStringLiteral("sw0"), QStringLiteral("gpu0")).isEmpty()); // already linked
        QVERIFY(doc.addLink(QStringLiteral("gpu0"), QStringLiteral("nope")).isEmpty());
        const QString id = doc.addLink(QStringLiteral("gpu0"), QStringLiteral("gpu1"), QStringLiteral("nvlink"));
        QCOMPARE(id, QStringLiteral("gpu0-gpu1"));
        const ordered_json link = doc.link(id).value();
        COMPARE_JSON(link["latency"], ordered_json("0.7 us"));
        COMPARE_JSON(link["bandwidth"], ordered_json("450 GB/s"));
        QVERIFY(doc.validate().scenario.has_value());
        // The default id of an id-less link is "a-b", as in core.
        QVERIFY(doc.linkIds().contains(QStringLiteral("gpu0-sw0")));
    }

    void removeItemsIsOneStep()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        const ordered_json before = doc.json();
        doc.removeItems({QStringLiteral("sw0")}, {});
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.nodeIds(), (QStringList{QStringLiteral("gpu0"), QStringLiteral("gpu1")}));
        QVERIFY(doc.linkIds().isEmpty()); // both links touched sw0
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), before);
        doc.undoStack()->redo();
        QVERIFY(doc.linkIds().isEmpty());
    }

    void renameUpdatesLinks()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        doc.setValue("/coherence/home", "sw0", QStringLiteral("home"));
        const ordered_json before = doc.json();
        QVERIFY(!doc.renameNode(QStringLiteral("sw0"), QStringLiteral("gpu0"))); // taken
        QVERIFY(!doc.renameNode(QStringLiteral("sw0"), QString()));
        COMPARE_JSON(doc.json(), before);
        QVERIFY(doc.renameNode(QStringLiteral("sw0"), QStringLiteral("nvswitch")));
        COMPARE_JSON(doc.value("/topology/links/0/b").value(), ordered_json("nvswitch"));
        COMPARE_JSON(doc.value("/topology/links/1/b").value(), ordered_json("nvswitch"));
        COMPARE_JSON(doc.value("/coherence/home").value(), ordered_json("nvswitch"));
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), before);
    }

    void moveNodeMerges()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        doc.moveNode(QStringLiteral("gpu0"), QPointF(130, 50));
        doc.moveNode(QStringLiteral("gpu0"), QPointF(140, 60));
        doc.moveNode(QStringLiteral("gpu0"), QPointF(150, 70));
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.nodePosition(QStringLiteral("gpu0")), QPointF(150, 70));
        doc.undoStack()->undo();
        QCOMPARE(doc.nodePosition(QStringLiteral("gpu0")), QPointF(120, 40));
    }

    void saveOpenRoundTrip()
    {
        QTemporaryDir dir;
        ScenarioDocument doc;
        openMinimal(doc);
        doc.addNode(QStringLiteral("cpu_socket"), QPointF(0, 0));
        QVERIFY(doc.isModified());
        QSignalSpy fileState(&doc, &ScenarioDocument::fileStateChanged);
        const QString path = dir.filePath(QStringLiteral("saved.json"));
        QString error;
        QVERIFY2(doc.saveAs(path, &error), qPrintable(error));
        QVERIFY(!doc.isModified());
        QVERIFY(fileState.count() >= 1);
        QCOMPARE(doc.filePath(), path);
        QCOMPARE(doc.displayName(), QStringLiteral("saved.json"));
        ScenarioDocument reopened;
        QVERIFY(reopened.open(path, &error));
        COMPARE_JSON(reopened.json(), doc.json());
        QVERIFY(reopened.json().dump() == doc.json().dump()); // key order kept too
        QVERIFY(!reopened.isModified());
    }

    void presetsValidate_data()
    {
        QTest::addColumn<QString>("path");
        const QDir presets(projectPath(QStringLiteral("datasets/presets")));
        const QStringList files = presets.entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY(files.size() >= 5);
        for (const QString& file : files)
            QTest::newRow(qPrintable(file)) << presets.filePath(file);
        QTest::newRow("default") << projectPath(QStringLiteral("datasets/scenarios/default.json"));
    }

    void presetsValidate()
    {
        QFETCH(QString, path);
        ScenarioDocument doc;
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.nodeCount() > 0);
        const auto validation = doc.validate();
        QVERIFY2(validation.scenario.has_value(), qPrintable(validation.error));
        QVERIFY(validation.error.isEmpty());
        QCOMPARE(static_cast<int>(validation.scenario->topology.nodes.size()), doc.nodeCount());
    }

    void malformedFileNamesFileAndLine()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        const ordered_json before = doc.json();
        const QString path = dataPath(QStringLiteral("scenarios/malformed.json"));
        QString error;
        QVERIFY(!doc.open(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("line 4")), qPrintable(error));
        COMPARE_JSON(doc.json(), before); // a failed open leaves the document alone
        QVERIFY(!doc.open(dataPath(QStringLiteral("scenarios/no-such-file.json")), &error));
        QVERIFY(error.contains(QStringLiteral("no-such-file.json")));
    }

    void negativeBandwidthIsReported()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        QVERIFY(doc.validate().scenario.has_value());
        doc.setValue("/topology/links/1/bandwidth", "-64 GB/s", QStringLiteral("bad"));
        const auto validation = doc.validate();
        QVERIFY(!validation.scenario.has_value());
        QVERIFY2(validation.error.contains(QStringLiteral("/topology/links/1/bandwidth")),
                 qPrintable(validation.error));
        QVERIFY(validation.error.contains(QStringLiteral("minimal.json")));
        doc.undoStack()->undo();
        QVERIFY(doc.validate().scenario.has_value());
    }

    void resetClearsUndo()
    {
        ScenarioDocument doc;
        openMinimal(doc);
        doc.addNode(QStringLiteral("gpu"), QPointF());
        QSignalSpy changed(&doc, &ScenarioDocument::changed);
        doc.reset(ordered_json{{"name", "fresh"}});
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(changed.count(), 1);
        QVERIFY(changed.first().first().toString().isEmpty());
        QCOMPARE(doc.displayName(), QStringLiteral("fresh"));
        QCOMPARE(doc.nodeCount(), 0);
        QCOMPARE(doc.addNode(QStringLiteral("gpu"), QPointF(20, 20)), QStringLiteral("gpu0"));
        QCOMPARE(doc.nodeCount(), 1);
    }
};

QTEST_MAIN(TestScenarioDocument)
#include "tst_scenario_document.moc"
