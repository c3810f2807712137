#pragma once
// The topology editor as one widget: node palette | canvas | property editor. The main window embeds it and
// puts editActions() into its menus and toolbar.

#include <QList>
#include <QStringList>
#include <QWidget>

class QAction;

namespace coh::ui {

class NodePalette;
class PropertyEditor;
class ScenarioDocument;
class TopologyScene;
class TopologyView;

class TopologyEditor : public QWidget {
    Q_OBJECT
  public:
    explicit TopologyEditor(ScenarioDocument* doc, QWidget* parent = nullptr);

    // Zoom in, zoom out, fit to view, link mode (checkable), auto layout, delete.
    QList<QAction*> editActions() const;
    TopologyView* view() const { return m_view; }
    TopologyScene* scene() const { return m_scene; }
    NodePalette* palette() const { return m_palette; }
    PropertyEditor* propertyEditor() const { return m_properties; }

    // Shows where a validation problem is: a problem at or below "/topology/nodes/N" or "/topology/links/N"
    // selects that node or link (a dangling link too) and centres it; false when the pointer names no item drawn.
    bool selectProblem(const QString& pointer);

  signals:
    void selectionChanged(const QStringList& nodeIds, const QStringList& linkIds);

  private:
    void onSceneSelectionChanged();

    ScenarioDocument* m_document;
    TopologyScene* m_scene;
    TopologyView* m_view;
    NodePalette* m_palette;
    PropertyEditor* m_properties;
};

} // namespace coh::ui
