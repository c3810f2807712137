// The editor as a user sees it: the Topology tab and the Scenario dock's form fit the sizes a 1024x700 window
// leaves them and larger, in both palettes, with nothing cut off and every text readable (ui_checks.h); node ids
// stay readable when the largest preset is fitted into the view.
#include "ui/field_edit.h"
#include "ui/main_actions.h"
#include "ui/node_item.h"
#include "ui/property_editor.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/topology_view.h"
#include "ui_checks.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTest>

using namespace coh::ui;

namespace {

QString presetPath(const char* name)
{
    return QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/presets/") + QLatin1String(name);
}

void open(ScenarioDocument& doc, const QString& path)
{
    QString error;
    QVERIFY2(doc.open(path, &error), qPrintable(error));
}

// Lets queued refreshes, validations and layouts run.
void settle()
{
    for (int i = 0; i < 3; ++i)
        QApplication::processEvents();
}

QString joined(const QStringList& lines)
{
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestEditorLayout : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { MainActions::applyPalette(false); }

    void topologyTabFitsAndReads_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        QTest::addColumn<QString>("selection");
        for (const QSize size : {QSize(680, 440), QSize(1600, 1000)})
            for (bool dark : {false, true})
                for (const char* selection : {"gpu0", "cpu0-gpu0", "cxl0"})
                    QTest::addRow("%dx%d %s %s", size.width(), size.height(), dark ? "dark" : "light", selection)
                        << size << dark << QString::fromLatin1(selection);
    }

    void topologyTabFitsAndReads()
    {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        QFETCH(QString, selection);
        ScenarioDocument doc;
        open(doc, presetPath("cxl-pool.json"));
        TopologyEditor editor(&doc);
        editor.resize(size);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        MainActions::applyPalette(dark);
        // The node's page (the tallest), a link's page, and a node without compute.
        if (doc.nodeIds().contains(selection))
            editor.scene()->selectIds({selection}, {});
        else
            editor.scene()->selectIds({}, {selection});
        QCOMPARE(editor.propertyEditor()->currentNodeId() + editor.propertyEditor()->currentLinkId(), selection);
        settle();
        QCOMPARE(editor.size(), size); // the tab's minimum fits what the window leaves it
        QVERIFY2(test::clippedControls(&editor).isEmpty(), qPrintable(joined(test::clippedControls(&editor))));
        QVERIFY2(test::lowContrastTexts(&editor).isEmpty(), qPrintable(joined(test::lowContrastTexts(&editor))));
        // The canvas keeps most of the width.
        QVERIFY2(editor.view()->width() >= size.width() / 3, qPrintable(QString::number(editor.view()->width())));
    }

    void scenarioFormFitsNarrowDock_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<bool>("dark");
        for (int width : {ScenarioPanel::kMinimumWidth, 300, 420})
            for (bool dark : {false, true})
                QTest::addRow("%d %s", width, dark ? "dark" : "light") << width << dark;
    }

    void scenarioFormFitsNarrowDock()
    {
        QFETCH(int, width);
        QFETCH(bool, dark);
        ScenarioDocument doc;
        open(doc, QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/scenarios/prefix-pool-cxl.json"));
        ScenarioPanel panel(&doc);
        panel.resize(width, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        MainActions::applyPalette(dark);
        panel.refresh();
        panel.showProblems();
        settle();
        QCOMPARE(panel.width(), width);
        QVERIFY2(test::clippedControls(&panel).isEmpty(), qPrintable(joined(test::clippedControls(&panel))));
        QVERIFY2(test::lowContrastTexts(&panel).isEmpty(), qPrintable(joined(test::lowContrastTexts(&panel))));
        // No horizontal clipping: the form is as wide as the scroll area shows, and every field ends inside it.
        auto* scroll = panel.findChild<QScrollArea*>(QStringLiteral("scenarioFormScroll"));
        QWidget* viewport = scroll->viewport();
        QVERIFY2(scroll->widget()->width() <= viewport->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(scroll->widget()->width()).arg(viewport->width())));
        const auto fields = panel.findChildren<QWidget*>();
        for (QWidget* field : fields) {
            if (!field->isVisible() || !test::isControl(field) || !viewport->isAncestorOf(field))
                continue;
            const QRect inViewport(field->mapTo(viewport, QPoint(0, 0)), field->size());
            QVERIFY2(inViewport.right() <= viewport->width(), qPrintable(QStringLiteral("%1 ends at %2 of %3")
                                                                             .arg(test::describe(field))
                                                                             .arg(inViewport.right())
                                                                             .arg(viewport->width())));
        }
    }

    void scenarioDockKeepsItsWidthWhenShownAgain()
    {
        // The dock can never be squeezed below the width the form is laid out for, so hiding it and showing it
        // again (or dragging its edge) cannot leave fields cut off.
        ScenarioDocument doc;
        open(doc, QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"));
        QMainWindow window;
        window.setCentralWidget(new QWidget);
        auto* dock = new QDockWidget(QStringLiteral("Scenario"), &window);
        auto* panel = new ScenarioPanel(&doc);
        dock->setWidget(panel);
        window.addDockWidget(Qt::LeftDockWidgetArea, dock);
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resizeDocks({dock}, {120}, Qt::Horizontal);
        settle();
        QVERIFY2(panel->width() >= ScenarioPanel::kMinimumWidth, qPrintable(QString::number(panel->width())));
        dock->hide();
        settle();
        dock->show();
        settle();
        QVERIFY2(panel->width() >= ScenarioPanel::kMinimumWidth, qPrintable(QString::number(panel->width())));
        QVERIFY2(test::clippedControls(panel).isEmpty(), qPrintable(joined(test::clippedControls(panel))));
    }

    void fitLeavesNoScrollBars_data()
    {
        QTest::addColumn<QString>("path");
        const QDir datasets(QStringLiteral(COH_TEST_DATA_DIR "/../../datasets"));
        for (const char* folder : {"presets", "scenarios"})
            for (const QFileInfo& file : QDir(datasets.filePath(QLatin1String(folder)))
                                             .entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
                QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(QLatin1String(folder), file.fileName())))
                    << file.absoluteFilePath();
    }
    void fitLeavesNoScrollBars()
    {
        // Fit left both scroll bars showing: the scene keeps 1000 units of pan room around the drawing.
        QFETCH(QString, path);
        ScenarioDocument doc;
        open(doc, path);
        TopologyEditor editor(&doc);
        editor.resize(680, 440);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        TopologyView* view = editor.view();
        const auto fit = [&] {
            editor.canvasActions().fit->trigger();
            settle();
            QVERIFY(!view->horizontalScrollBar()->isVisible());
            QVERIFY(!view->verticalScrollBar()->isVisible());
            // The whole drawing is on screen.
            const QRect drawing = view->mapFromScene(editor.scene()->itemsBoundingRect()).boundingRect();
            QVERIFY2(view->viewport()->rect().contains(drawing), qPrintable(path));
        };
        fit();
        if (QTest::currentTestFailed())
            return;
        // Zooming in gives the room to pan back (scroll bars and all); Fit takes it away again.
        editor.canvasActions().zoomIn->trigger();
        editor.canvasActions().zoomIn->trigger();
        settle();
        QVERIFY(view->horizontalScrollBar()->isVisible() || view->verticalScrollBar()->isVisible());
        QVERIFY(view->sceneRect().contains(editor.scene()->sceneRect()));
        fit();
    }

    void nodeIdsReadableAtFitZoom()
    {
        // The largest preset (11 nodes, 17 links) fitted into the canvas a 1024x700 window leaves.
        ScenarioDocument doc;
        open(doc, presetPath("dgx-h100-8gpu.json"));
        TopologyEditor editor(&doc);
        editor.resize(680, 440);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.view()->fitToView();
        settle();
        TopologyView* view = editor.view();
        QVERIFY2(view->zoom() < 0.5, qPrintable(QString::number(view->zoom()))); // well below 1: the case in point
        const qreal fontPixels = QFontMetricsF(QFont()).height();
        for (const QString& id : doc.nodeIds()) {
            QGraphicsItem* label = editor.scene()->nodeItem(id)->label();
            const QRectF onScreen = label->deviceTransform(view->viewportTransform()).mapRect(label->boundingRect());
            // The id is drawn at the application font's size on screen (a scene-sized one would be zoom times it).
            QVERIFY2(
                onScreen.height() >= fontPixels,
                qPrintable(QStringLiteral("%1: %2 px, font %3 px").arg(id).arg(onScreen.height()).arg(fontPixels)));
            QVERIFY2(view->viewport()->rect().contains(onScreen.toAlignedRect()), qPrintable(id));
        }
    }
};

QTEST_MAIN(TestEditorLayout)
#include "tst_editor_layout.moc"
