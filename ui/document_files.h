#pragma once
// File handling for the open scenario: New (from the shipped default), Open, Save, Save As, and the
// "save unsaved changes?" question before anything replaces the document. Presets open untitled.

#include <QObject>
#include <QString>

class QWidget;

namespace coh::ui {

class ScenarioDocument;

class DocumentFiles : public QObject {
    Q_OBJECT
  public:
    DocumentFiles(ScenarioDocument* document, QWidget* dialogParent);

    static QString defaultScenarioPath(); // <datasets>/scenarios/default.json

    // Asks Save / Discard / Cancel when the document is modified; true when it may be replaced.
    bool maybeSave();
    bool save();
    bool saveAs();
    bool newScenario();
    // Does not ask (call maybeSave first); false with the document's error (file, line, column).
    bool open(const QString& path, QString* error);

  signals:
    void status(const QString& text);

  private:
    ScenarioDocument* m_document;
    QWidget* m_parent;
};

} // namespace coh::ui
