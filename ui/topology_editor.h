#pragma once
// The topology editor as one widget: node palette | canvas | property editor. The main window embeds it and
// puts editActions() into its menus and canvasActions() into its toolbar.

#include "ui/topology_view.h"

#include <QList>
#include <QStringList>
#include <QWidget>

class QAction;

namespace coh::ui {

class NodePalette;
class PropertyEditor;
class ScenarioDocument;
class TopologyScene;

class TopologyEditor : public QWidget {
    Q_OBJECT
  public:
    explicit TopologyEditor(ScenarioDocument* doc, QWidget* parent = nullptr);

    // Zoom in, zoom out, fit to view, link mode (checkable), auto layout, delete.
    QList<QAction*> editActions() const;
    // The same by what they do. Zoom, fit and link mode act on the canvas on screen: enabled while the editor is
    // shown (in the window: while its tab is current), disabled while it is hidden.
    const TopologyView::CanvasActions& canvasActions() const;
    TopologyView* view() const { return m_view; }
    TopologyScene* scene() const { return m_scene; }
    NodePalette* palette() const { return m_palette; }
    PropertyEditor* propertyEditor() const { return m_properties; }

    // Shows where a validation problem is: a problem at or below "/topology/nodes/N" or "/topology/links/N"
    // selects that node or link (a dangling link too) and centres it; false when the pointer names no item drawn.
    bool selectProblem(const QString& pointer);

  signals:
    void selectionChanged(const QStringList& nodeIds, const QStringList& linkIds);

  protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

  private:
    void onSceneSelectionChanged();
    void enableViewActions(bool on);

    ScenarioDocument* m_document;
    TopologyScene* m_scene;
    TopologyView* m_view;
    NodePalette* m_palette;
    PropertyEditor* m_properties;
};

} // namespace coh::ui
