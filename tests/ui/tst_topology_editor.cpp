// The topology editor driven like a user: palette, canvas mouse drags, keys, property fields, undo/redo.
#include "json_compare.h"
#include "ui/field_edit.h"
#include "ui/link_item.h"
#include "ui/node_item.h"
#include "ui/node_palette.h"
#include "ui/property_editor.h"
#include "ui/scenario_document.h"
#include "ui/theme.h"
#include "ui/topology_defaults.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/topology_view.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGraphicsLineItem>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPainter>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace coh::ui;
using nlohmann::ordered_json;

namespace {

// A scenario with everything but hardware, so the test draws the whole topology.
ordered_json emptyTopologyScenario()
{
    return ordered_json::parse(R"({
      "name": "drawn",
      "topology": { "nodes": [] },
      "model": { "name": "tiny", "layers": 2, "hidden_size": 256, "heads": 4, "kv_heads": 4, "head_dim": 64,
                 "params": 1e8 },
      "workload": { "type": "synthetic", "requests": 10, "arrival": { "process": "poisson", "rate": 2.0 },
                    "prompt": { "dist": "fixed", "value": 128 }, "output": { "dist": "fixed", "value": 16 } }
    })");
}

// Mouse events with explicit buttons held (a drag), sent where QGraphicsView reads them: its viewport.
void sendMouse(QWidget* viewport, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons held)
{
    QMouseEvent event(type, QPointF(pos), QPointF(viewport->mapToGlobal(pos)), button, held, Qt::NoModifier);
    QApplication::sendEvent(viewport, &event);
}

void drag(QWidget* viewport, QPoint from, QPoint to, Qt::MouseButton button = Qt::LeftButton)
{
    sendMouse(viewport, QEvent::MouseButtonPress, from, button, button);
    const int steps = 5;
    for (int i = 1; i <= steps; ++i)
        sendMouse(viewport, QEvent::MouseMove, from + (to - from) * i / steps, Qt::NoButton, button);
    sendMouse(viewport, QEvent::MouseButtonRelease, to, button, Qt::NoButton);
}

// An item view only reports a double-click on the item it saw pressed: click, then double-click, as a hand does.
void doubleClickKind(NodePalette* palette, const QString& kind)
{
    const QPoint at = palette->visualItemRect(palette->item(palette->rowOf(kind))).center();
    QTest::mouseClick(palette->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseDClick(palette->viewport(), Qt::LeftButton, Qt::NoModifier, at);
}

QPoint viewPos(TopologyView* view, QPointF scenePos)
{
    return view->mapFromScene(scenePos);
}

} // namespace

class TestTopologyEditor : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void iconsExistForEveryKind()
    {
        const QStringList kinds = nodeKindNames();
        QCOMPARE(kinds.size(), 6);
        for (const QString& kind : kinds) {
            QSvgRenderer icon(QStringLiteral(":/icons/%1.svg").arg(kind));
            QVERIFY2(icon.isValid(), qPrintable(kind));
            QCOMPARE(icon.viewBoxF(), QRectF(0, 0, 48, 48));
        }
    }

    void linkModeKeys()
    {
        ScenarioDocument doc;
        doc.reset(emptyTopologyScenario());
        TopologyEditor editor(&doc);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QSignalSpy spy(editor.view(), &TopologyView::linkModeChanged);
        editor.view()->setFocus();
        QTest::keyClick(editor.view(), Qt::Key_L);
        QVERIFY(editor.view()->linkMode());
        QVERIFY(editor.canvasActions().linkMode->isChecked());
        QTest::keyClick(editor.view(), Qt::Key_Escape);
        QVERIFY(!editor.view()->linkMode());
        QCOMPARE(spy.count(), 2);
    }

    void canvasActionsWorkWhileTheEditorIsShown()
    {
        // Zoom, fit and link mode act on the canvas on screen: the editor enables them while it is shown (the
        // window's tab switches show and hide it) and disables them while hidden. Layout and delete stay as they are.
        ScenarioDocument doc;
        doc.reset(emptyTopologyScenario());
        QWidget window;
        auto* editor = new TopologyEditor(&doc, &window);
        auto* other = new QWidget(&window);
        const TopologyView::CanvasActions& a = editor->canvasActions();
        const QList<QAction*> viewActions{a.zoomIn, a.zoomOut, a.fit, a.linkMode};
        const auto enabled = [&](bool on) {
            for (QAction* action : viewActions)
                if (action->isEnabled() != on)
                    return false;
            return a.autoLayout->isEnabled() && a.remove->isEnabled();
        };
        QVERIFY(enabled(false)); // not shown yet
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(enabled(true));
        editor->hide();
        other->show();
        QVERIFY(enabled(false));
        editor->show();
        QVERIFY(enabled(true));
    }

    void oddShapesDoNotCrash()
    {
        // A file that parses but is not a scenario still opens; the canvas draws what it can.
        ScenarioDocument doc;
        TopologyEditor editor(&doc);
        editor.show();
        doc.reset(ordered_json::parse(R"({ "topology": "nope" })"));
        QCOMPARE(doc.nodeCount(), 0);
        QVERIFY(editor.scene()->items().isEmpty());
        doc.reset(ordered_json::parse(R"({ "topology": { "nodes": [ 1, { "id": 5 }, { "id": "a", "position": "x" },
            { "id": "b", "kind": "gpu", "position": [40, 40], "memory": "none" }, { "id": "b" } ],
            "links": [ { "a": "a" }, 3, { "a": "a", "b": "b", "bandwidth": "fast" }, { "a": "b", "b": "b" } ] } })"));
        QCOMPARE(doc.nodeIds(),
                 (QStringList{QString(), QString(), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("b")}));
        QVERIFY(editor.scene()->nodeItem(QStringLiteral("a")));
        QCOMPARE(editor.scene()->nodeItem(QStringLiteral("b"))->pos(), QPointF(40, 40));
        QVERIFY(editor.scene()->linkItem(QStringLiteral("a-b")));
        editor.scene()->selectIds({QStringLiteral("b")}, {});
        QCOMPARE(editor.propertyEditor()->currentNodeId(), QStringLiteral("b"));
        editor.propertyEditor()->validateNow();
        editor.scene()->selectIds({}, {QStringLiteral("a-b")});
        QCOMPARE(editor.propertyEditor()->currentLinkId(), QStringLiteral("a-b"));
        editor.propertyEditor()->validateNow();
        auto* bandwidth = editor.propertyEditor()->findChild<QLineEdit*>(QStringLiteral("linkBandwidth"));
        QVERIFY(bandwidth->property("invalid").toBool());
        editor.view()->autoLayout();
        editor.view()->deleteSelection();
        QVERIFY(!doc.linkIds().contains(QStringLiteral("a-b")));
        QVERIFY(!doc.validate().scenario.has_value());
    }

    void drawTopologyWithMouseAndKeys()
    {
        ScenarioDocument doc;
        doc.reset(emptyTopologyScenario());
        TopologyEditor editor(&doc);
        editor.resize(1200, 800);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        TopologyView* view = editor.view();
        TopologyScene* scene = editor.scene();
        const TopologyView::CanvasActions& canvas = editor.canvasActions();
        QCOMPARE(editor.editActions(), (QList<QAction*>{canvas.zoomIn, canvas.zoomOut, canvas.fit, canvas.linkMode,
                                                        canvas.autoLayout, canvas.remove}));
        std::vector<ordered_json> history{doc.json()};

        // 1. Double-click "GPU" in the palette: a gpu at the view centre, snapped to the grid, selected.
        NodePalette* palette = editor.palette();
        doubleClickKind(palette, QStringLiteral("gpu"));
        QCOMPARE(doc.nodeIds(), QStringList{QStringLiteral("gpu0")});
        QVERIFY(scene->nodeItem(QStringLiteral("gpu0")));
        const QPointF gpu0 = doc.nodePosition(QStringLiteral("gpu0"));
        QCOMPARE(std::fmod(gpu0.x(), 20.0), 0.0);
        QCOMPARE(scene->selectedNodeIds(), QStringList{QStringLiteral("gpu0")});
        QCOMPARE(editor.propertyEditor()->currentNodeId(), QStringLiteral("gpu0"));
        history.push_back(doc.json());

        // 2. Drop a "gpu" from the palette 200 px to the right: second gpu at the snapped drop point.
        const QPoint dropPos = viewPos(view, gpu0 + QPointF(203, 7));
        QMimeData mime;
        mime.setData(TopologyView::nodeKindMimeType(), QByteArrayLiteral("gpu"));
        QDragEnterEvent enter(dropPos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(dropPos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &drop);
        QCOMPARE(doc.nodeIds(), (QStringList{QStringLiteral("gpu0"), QStringLiteral("gpu1")}));
        QCOMPARE(doc.nodePosition(QStringLiteral("gpu1")), TopologyScene::snapToGrid(view->mapToScene(dropPos)));
        history.push_back(doc.json());

        // 3. Link mode: drag from gpu0 to gpu1 creates an nvlink with a rubber line on the way.
        editor.canvasActions().linkMode->trigger();
        QVERIFY(view->linkMode());
        const QPoint from = viewPos(view, doc.nodePosition(QStringLiteral("gpu0")));
        const QPoint to = viewPos(view, doc.nodePosition(QStringLiteral("gpu1")));
        sendMouse(view->viewport(), QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
        sendMouse(view->viewport(), QEvent::MouseMove, (from + to) / 2, Qt::NoButton, Qt::LeftButton);
        int lines = 0;
        for (QGraphicsItem* item : scene->items())
            lines += item->type() == QGraphicsLineItem::Type ? 1 : 0;
        QCOMPARE(lines, 1);
        sendMouse(view->viewport(), QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
        QCOMPARE(doc.linkIds(), QStringList{QStringLiteral("gpu0-gpu1")});
        COMPARE_JSON(doc.link(QStringLiteral("gpu0-gpu1"))->at("kind"), "nvlink");
        QVERIFY(scene->linkItem(QStringLiteral("gpu0-gpu1")));
        QCOMPARE(scene->selectedLinkIds(), QStringList{QStringLiteral("gpu0-gpu1")});
        // A drag that ends on empty canvas links nothing.
        drag(view->viewport(), from, from + QPoint(0, 150));
        QCOMPARE(doc.linkIds().size(), 1);
        editor.canvasActions().linkMode->trigger();
        QVERIFY(!view->linkMode());
        history.push_back(doc.json());

        // 4. Palette double-click a switch, then make gpu0 prefill and gpu1 decode: a valid scenario.
        doubleClickKind(palette, QStringLiteral("switch"));
        QCOMPARE(doc.nodeCount(), 3);
        history.push_back(doc.json());
        doc.setValue(doc.nodePointer(QStringLiteral("gpu0")) + "/role", "prefill", QStringLiteral("role"));
        history.push_back(doc.json());
        doc.setValue(doc.nodePointer(QStringLiteral("gpu1")) + "/role", "decode", QStringLiteral("role"));
        QVERIFY2(doc.validate().scenario.has_value(), qPrintable(doc.validate().error));
        history.push_back(doc.json());

        // 5. Click the link to select it and press Delete: gone, the nodes stay.
        const QPoint linkMid = viewPos(
            view, (doc.nodePosition(QStringLiteral("gpu0")) * 3 + doc.nodePosition(QStringLiteral("gpu1"))) / 4);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, linkMid);
        QCOMPARE(scene->selectedLinkIds(), QStringList{QStringLiteral("gpu0-gpu1")});
        QTest::keyClick(view, Qt::Key_Delete);
        QVERIFY(doc.linkIds().isEmpty());
        QCOMPARE(doc.nodeCount(), 3);
        QVERIFY(!scene->linkItem(QStringLiteral("gpu0-gpu1")));
        history.push_back(doc.json());

        // 6. Click the switch and press Delete.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                          viewPos(view, doc.nodePosition(QStringLiteral("switch0"))));
        QCOMPARE(scene->selectedNodeIds(), QStringList{QStringLiteral("switch0")});
        QTest::keyClick(view, Qt::Key_Delete);
        QCOMPARE(doc.nodeIds(), (QStringList{QStringLiteral("gpu0"), QStringLiteral("gpu1")}));
        QVERIFY(!scene->nodeItem(QStringLiteral("switch0")));
        history.push_back(doc.json());

        // Every step above is exactly one undo step: walk back to the empty topology and forward again.
        QUndoStack* undo = doc.undoStack();
        QCOMPARE(undo->count(), static_cast<int>(history.size()) - 1);
        for (int i = static_cast<int>(history.size()) - 2; i >= 0; --i) {
            undo->undo();
            COMPARE_JSON(doc.json(), history[static_cast<std::size_t>(i)]);
            QCOMPARE(scene->items().isEmpty(), doc.nodeCount() == 0);
        }
        QVERIFY(scene->items().isEmpty());
        for (std::size_t i = 1; i < history.size(); ++i) {
            undo->redo();
            COMPARE_JSON(doc.json(), history[i]);
        }
        QVERIFY(scene->nodeItem(QStringLiteral("gpu0")) && scene->nodeItem(QStringLiteral("gpu1")));
    }

    void dragMovesNodeAsOneUndoStep()
    {
        ScenarioDocument doc;
        QString error;
        QVERIFY2(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"), &error), qPrintable(error));
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        TopologyView* view = editor.view();
        const QPointF start = doc.nodePosition(QStringLiteral("gpu0"));
        const QPoint from = viewPos(view, start);
        const QPoint to = viewPos(view, start + QPointF(97, 62));
        drag(view->viewport(), from, to);
        QCOMPARE(doc.undoStack()->count(), 1);
        const QPointF moved = doc.nodePosition(QStringLiteral("gpu0"));
        QCOMPARE(moved, TopologyScene::snapToGrid(view->mapToScene(to) - view->mapToScene(from) + start));
        QCOMPARE(editor.scene()->nodeItem(QStringLiteral("gpu0"))->pos(), moved);
        // The links at gpu0 follow it.
        LinkItem* link = editor.scene()->linkItem(QStringLiteral("gpu0-sw0"));
        QVERIFY(link->boundingRect().contains(moved));
        // A second drag of the same node is its own undo step.
        drag(view->viewport(), viewPos(view, moved), viewPos(view, moved + QPointF(-40, 0)));
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        QCOMPARE(doc.nodePosition(QStringLiteral("gpu0")), moved);
        doc.undoStack()->undo();
        QCOMPARE(doc.nodePosition(QStringLiteral("gpu0")), start);
        QCOMPARE(editor.scene()->nodeItem(QStringLiteral("gpu0"))->pos(), start);
    }

    void rubberBandSelectsAndAutoLayoutIsOneStep()
    {
        ScenarioDocument doc;
        QString error;
        QVERIFY(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/presets/cxl-pool.json"), &error));
        TopologyEditor editor(&doc);
        editor.resize(1200, 800);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        TopologyView* view = editor.view();
        QSignalSpy selection(&editor, &TopologyEditor::selectionChanged);
        view->fitToView();
        // Rubber band over the whole viewport selects every node and link.
        drag(view->viewport(), QPoint(2, 2), QPoint(view->viewport()->width() - 2, view->viewport()->height() - 2));
        QCOMPARE(editor.scene()->selectedNodeIds().size(), doc.nodeCount());
        QVERIFY(selection.count() >= 1);
        QCOMPARE(selection.last().at(0).toStringList().size(), doc.nodeCount());

        const ordered_json original = doc.json();
        editor.canvasActions().autoLayout->trigger();
        QCOMPARE(doc.undoStack()->count(), 1);
        // Hosts above devices above memory.
        QVERIFY(doc.nodePosition(QStringLiteral("cpu0")).y() < doc.nodePosition(QStringLiteral("gpu0")).y());
        QVERIFY(doc.nodePosition(QStringLiteral("gpu0")).y() < doc.nodePosition(QStringLiteral("cxl0")).y());
        doc.undoStack()->undo();
        COMPARE_JSON(doc.json(), original);

        // Middle-drag pans: the point under the mouse stays under it.
        const QPoint grab(view->viewport()->width() / 2, view->viewport()->height() / 2);
        const QPointF before = view->mapToScene(grab);
        drag(view->viewport(), grab, grab + QPoint(-100, -60), Qt::MiddleButton);
        QVERIFY((view->mapToScene(grab) - (before + QPointF(100, 60) / view->zoom())).manhattanLength() < 2);
        QCOMPARE(doc.undoStack()->index(), 0); // panning edits nothing (the layout above was undone)

        const qreal zoom = view->zoom();
        editor.canvasActions().zoomIn->trigger();
        QVERIFY(view->zoom() > zoom);
        editor.canvasActions().zoomOut->trigger();
        QVERIFY(qAbs(view->zoom() - zoom) < 1e-9);
    }

    void propertyEditorEditsAndReportsProblems()
    {
        ScenarioDocument doc;
        QString error;
        QVERIFY(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"), &error));
        TopologyEditor editor(&doc);
        editor.resize(1200, 800);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.scene()->selectIds({}, {QStringLiteral("gpu1-link")});
        PropertyEditor* properties = editor.propertyEditor();
        QCOMPARE(properties->currentLinkId(), QStringLiteral("gpu1-link"));
        auto* bandwidth = properties->findChild<QLineEdit*>(QStringLiteral("linkBandwidth"));
        QVERIFY(bandwidth && bandwidth->isVisible());
        QCOMPARE(bandwidth->text(), QStringLiteral("64 GB/s"));
        QVERIFY(!bandwidth->property("invalid").toBool());

        // A value the loader accepts but the scenario does not (a link to itself is not the field's: the end is):
        // a bandwidth typed and confirmed is one undo step.
        bandwidth->selectAll();
        QTest::keyClicks(bandwidth, QStringLiteral("100 GB/s"));
        QCOMPARE(doc.undoStack()->count(), 0); // nothing stored while typing
        QTest::keyClick(bandwidth, Qt::Key_Return);
        COMPARE_JSON(doc.value("/topology/links/1/bandwidth").value(), "100 GB/s");
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Edit link bandwidth"));
        // A problem validation finds with the stored value (an end naming no node) turns that field red.
        auto* endB = properties->findChild<QComboBox*>(QStringLiteral("linkB"));
        doc.setValue("/topology/links/1/b", "nowhere", QStringLiteral("typo"));
        properties->validateNow();
        QVERIFY(endB->property("invalid").toBool());
        QVERIFY2(endB->toolTip().startsWith(QStringLiteral("Unknown node 'nowhere' in link")),
                 qPrintable(endB->toolTip()));
        QVERIFY(!bandwidth->property("invalid").toBool());
        doc.undoStack()->undo();
        properties->validateNow();
        QVERIFY(!endB->property("invalid").toBool());

        // Node page: rename through the id field updates the links; the tier table shows the tiers.
        editor.scene()->selectIds({QStringLiteral("sw0")}, {});
        auto* id = properties->findChild<QLineEdit*>(QStringLiteral("nodeId"));
        QVERIFY(id->isVisible());
        id->selectAll();
        QTest::keyClicks(id, QStringLiteral("nvswitch"));
        QTest::keyClick(id, Qt::Key_Return);
        QVERIFY(doc.node(QStringLiteral("nvswitch")).has_value());
        COMPARE_JSON(doc.value("/topology/links/0/b").value(), "nvswitch");
        QVERIFY(editor.scene()->nodeItem(QStringLiteral("nvswitch")));
        QVERIFY(editor.scene()->linkItem(QStringLiteral("gpu1-link")));
        // The renamed node stays selected and in the property editor.
        QCOMPARE(editor.scene()->selectedNodeIds(), QStringList{QStringLiteral("nvswitch")});
        QCOMPARE(properties->currentNodeId(), QStringLiteral("nvswitch"));
        QVERIFY(id->isVisible());
        // Undo of the rename: the old id comes back, still selected.
        doc.undoStack()->undo();
        QCOMPARE(editor.scene()->selectedNodeIds(), QStringList{QStringLiteral("sw0")});
        QCOMPARE(properties->currentNodeId(), QStringLiteral("sw0"));
        COMPARE_JSON(doc.value("/topology/links/0/b").value(), "sw0");
        doc.undoStack()->redo();

        // Role "(none)" on a serving node keeps it valid; clearing peak FLOP/s on a prefill node is reported.
        editor.scene()->selectIds({QStringLiteral("gpu0")}, {});
        auto* flops = properties->findChild<QLineEdit*>(QStringLiteral("peakFlops"));
        QCOMPARE(flops->text(), QStringLiteral("989 TFLOP/s"));
        flops->selectAll();
        QTest::keyClick(flops, Qt::Key_Backspace);
        QTest::keyClick(flops, Qt::Key_Return);
        // The last compute field cleared: compute goes too (an empty one is an error), in the same undo step.
        QVERIFY(!doc.value("/topology/nodes/0/compute").has_value());
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Clear peak FLOP/s"));
        properties->validateNow();
        auto* problems = properties->findChild<QLabel*>(QStringLiteral("nodeProblems"));
        // Under the form, in its words, naming the part of the node (relative to it), not a JSON pointer.
        QVERIFY2(problems->text().startsWith(QStringLiteral("compute: Node 'gpu0' has role 'prefill' but no compute")),
                 qPrintable(problems->text()));
        auto* role = properties->findChild<QComboBox*>(QStringLiteral("nodeRole"));
        role->setCurrentText(QStringLiteral("(none)"));
        QVERIFY(!doc.value("/topology/nodes/0/role").has_value());
        auto* tiers = properties->findChild<QTableWidget*>(QStringLiteral("memoryTiers"));
        QCOMPARE(tiers->rowCount(), 2);
        auto* capacity = qobject_cast<FieldEdit*>(tiers->cellWidget(1, 1));
        QCOMPARE(capacity->text(), QStringLiteral("64 GiB"));
        capacity->setFocus();
        capacity->selectAll();
        QTest::keyClicks(capacity, QStringLiteral("128 GiB"));
        QTest::keyClick(capacity, Qt::Key_Return);
        COMPARE_JSON(doc.value("/topology/nodes/0/memory/1/capacity").value(), "128 GiB");
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Edit memory tier capacity"));
    }

    void danglingLinkIsDrawnSelectedAndDeleted()
    {
        // A link whose end names no node (a typo, a node deleted by hand) is drawn, so it can be dealt with.
        ScenarioDocument doc;
        QString error;
        QVERIFY(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"), &error));
        doc.setValue("/topology/links/1/a", "gpu9", QStringLiteral("typo"));
        doc.undoStack()->clear();
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.view()->fitToView();
        LinkItem* link = editor.scene()->linkItem(QStringLiteral("gpu1-link"));
        QVERIFY(link);
        QVERIFY(link->isDangling());
        QCOMPARE(link->nodeA(), nullptr);
        QCOMPARE(link->nodeB(), editor.scene()->nodeItem(QStringLiteral("sw0")));
        QCOMPARE(link->endA(), QStringLiteral("gpu9"));

        // Drawn dashed in the Error tone: render the canvas and find that colour along the stub.
        const QColor errorTone =
            toneColor(Tone::Error, editor.view()->palette(), editor.view()->palette().color(QPalette::Base));
        const QPointF stubMiddle = link->line().center();
        QImage image(200, 200, QImage::Format_ARGB32);
        image.fill(editor.view()->palette().color(QPalette::Base));
        {
            QPainter painter(&image);
            editor.scene()->render(&painter, QRectF(0, 0, 200, 200),
                                   QRectF(stubMiddle - QPointF(60, 60), QSizeF(120, 120)));
        }
        int errorPixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                errorPixels += image.pixelColor(x, y) == errorTone ? 1 : 0;
        QVERIFY2(errorPixels > 50, qPrintable(QString::number(errorPixels)));

        // Its problem in the Problems dock leads to it: the pointer core names selects it.
        QVERIFY(editor.selectProblem(QStringLiteral("/topology/links/1/a")));
        QCOMPARE(editor.scene()->selectedLinkIds(), QStringList{QStringLiteral("gpu1-link")});
        QCOMPARE(editor.propertyEditor()->currentLinkId(), QStringLiteral("gpu1-link"));
        auto* endA = editor.propertyEditor()->findChild<QComboBox*>(QStringLiteral("linkA"));
        QCOMPARE(endA->currentText(), QStringLiteral("gpu9"));
        QVERIFY(endA->property("invalid").toBool());
        QVERIFY(editor.selectProblem(QStringLiteral("/topology/nodes/0/compute/peak_flops")));
        QCOMPARE(editor.scene()->selectedNodeIds(), QStringList{QStringLiteral("gpu0")});
        QVERIFY(!editor.selectProblem(QStringLiteral("/workload/requests")));
        QVERIFY(!editor.selectProblem(QStringLiteral("/topology/links/7")));

        // Clicked on its stub, it is selected; Delete removes it as one undo step, undo brings it back.
        editor.scene()->clearSelection();
        QCOMPARE(link->line().p2(), link->nodeB()->pos());
        const QPointF onStub = link->line().pointAt(0.3); // nearer the "?" than the switch's icon
        QTest::mouseClick(editor.view()->viewport(), Qt::LeftButton, Qt::NoModifier, viewPos(editor.view(), onStub));
        QCOMPARE(editor.scene()->selectedLinkIds(), QStringList{QStringLiteral("gpu1-link")});
        QTest::keyClick(editor.view(), Qt::Key_Delete);
        QVERIFY(!doc.linkIds().contains(QStringLiteral("gpu1-link")));
        QVERIFY(!editor.scene()->linkItem(QStringLiteral("gpu1-link")));
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Delete link gpu1-link"));
        doc.undoStack()->undo();
        QVERIFY(editor.scene()->linkItem(QStringLiteral("gpu1-link"))->isDangling());

        // Naming a node that exists makes it an ordinary link again, drawn between the two nodes.
        doc.setValue("/topology/links/1/a", "gpu1", QStringLiteral("fix"));
        link = editor.scene()->linkItem(QStringLiteral("gpu1-link"));
        QVERIFY(!link->isDangling());
        QCOMPARE(link->nodeA(), editor.scene()->nodeItem(QStringLiteral("gpu1")));
    }

    void moveSeveralNodesIsNamedInWords()
    {
        ScenarioDocument doc;
        QString error;
        QVERIFY(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"), &error));
        TopologyEditor editor(&doc);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.scene()->selectIds({QStringLiteral("gpu0"), QStringLiteral("gpu1"), QStringLiteral("sw0")}, {});
        const QPointF start = doc.nodePosition(QStringLiteral("gpu0"));
        drag(editor.view()->viewport(), viewPos(editor.view(), start), viewPos(editor.view(), start + QPointF(80, 40)));
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Move 3 nodes"));
        std::unique_ptr<QAction> undoAction(doc.undoStack()->createUndoAction(nullptr));
        QCOMPARE(undoAction->text(), QStringLiteral("Undo Move 3 nodes"));
        editor.canvasActions().autoLayout->trigger();
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Auto layout"));
    }
};

QTEST_MAIN(TestTopologyEditor)
#include "tst_topology_editor.moc"
