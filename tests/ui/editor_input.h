#pragma once
// What the editor form tests share: opening a shipped preset in a document, typing into a field as a user does,
// finding a field by the JSON pointer it edits, and the undo step an edit made.
#include "ui/scenario_document.h"

#include <QAction>
#include <QLineEdit>
#include <QString>
#include <QTest>
#include <QUndoStack>
#include <QWidget>

#include <memory>

namespace coh::ui::test {

inline void openPreset(ScenarioDocument& doc, const char* name)
{
    QString error;
    QVERIFY2(doc.open(QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/presets/") + QLatin1String(name), &error),
             qPrintable(error));
}

// Types into a field as a user does, then confirms with Enter; "" clears it.
inline void enter(QLineEdit* field, const QString& text)
{
    field->setFocus();
    field->selectAll();
    if (text.isEmpty())
        QTest::keyClick(field, Qt::Key_Backspace);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
}

// The widget that edits `pointer` (fields are named by their JSON pointer).
template <class W> W* byPointer(QWidget* root, const char* pointer)
{
    W* widget = root->findChild<W*>(QLatin1String(pointer));
    if (!widget)
        qWarning("no field for %s", pointer);
    return widget;
}

// The Edit menu's text for the last undo step ("Undo Edit block tokens").
inline QString undoActionText(ScenarioDocument& doc)
{
    std::unique_ptr<QAction> action(doc.undoStack()->createUndoAction(nullptr));
    return action->text();
}

} // namespace coh::ui::test
