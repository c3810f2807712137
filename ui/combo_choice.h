#pragma once
// Shows a scenario value in a combo box whose items carry the accepted names as data. A name the box does not
// offer (a typo in the file) is added and shown as it is, so the Problems list's message about it makes sense.
// Signals are blocked: showing the document's value is not an edit of it.

#include <QComboBox>
#include <QSignalBlocker>
#include <QString>

namespace coh::ui {

inline void showChoice(QComboBox* box, const QString& value)
{
    const QSignalBlocker blocker(box);
    int index = box->findData(value);
    if (index < 0) {
        box->addItem(value, value);
        index = box->count() - 1;
    }
    box->setCurrentIndex(index);
}

} // namespace coh::ui
