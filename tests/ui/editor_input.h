#pragma once
// What the editor form tests share: opening a shipped preset in a document, and typing into a field as a user does.
#include "ui/scenario_document.h"

#include <QLineEdit>
#include <QString>
#include <QTest>

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

} // namespace coh::ui::test
