#pragma once
// "Vary in a Study…" on a scenario field: the context menu of every form field bound to a JSON pointer offers it,
// and the request goes through the document to the Tuner, which adds the field to the study being built.
#include <QStringList>

#include <string>

class QComboBox;
class QMenu;

namespace coh::ui {

class ScenarioDocument;

// Appends the action to `menu` (after a separator when the menu has entries).
void addVaryAction(QMenu* menu, ScenarioDocument* document, const std::string& pointer, const QStringList& choices);
// A right click on the combo box offers the action, with the names it offers as the values to try.
void offerVary(QComboBox* combo, ScenarioDocument* document, const std::string& pointer);
// The names a choice offers: its items' data, without the "(default: …)" entry that removes the key.
QStringList choicesOf(const QComboBox* combo);

} // namespace coh::ui
