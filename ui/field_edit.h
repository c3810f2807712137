#pragma once
// A line edit bound to one value of the scenario document, used by every form of the editor. Enter or leaving
// the field checks the text the way core's loader reads it (ScenarioDocument::checkField) and stores it as one
// undo step named in words ("Edit link bandwidth"), or refuses it: the text stays, red, with core's words as
// tooltip, and neither the document nor the undo stack changes. Escape puts the stored value back. Problems that
// validation finds with the stored value (how it fits the rest of the scenario) turn it red too.

#include <QLineEdit>
#include <QStringList>

#include <string>

namespace coh::ui {

class ScenarioDocument;

class FieldEdit : public QLineEdit {
    Q_OBJECT
  public:
    enum class Kind {
        Value,        // a number or a quantity: "42" is stored as 42, "2 ms" as text; blank removes the key
        Text,         // stored as typed, "" included
        OptionalText, // stored as typed; blank removes the key
    };

    // `what` names the field in undo texts: "link bandwidth" gives "Edit link bandwidth".
    FieldEdit(ScenarioDocument* document, Kind kind, const QString& what, QWidget* parent = nullptr);

    // The JSON pointer this field edits (the property editor moves it with the selection; a change drops a
    // refused text, which belonged to the old value).
    void setPointer(const std::string& pointer);
    const std::string& pointer() const { return m_pointer; }
    // Clearing the field also removes its parent object when nothing is left in it ("compute": {} is an error).
    void setRemovesEmptyParent(bool on) { m_removesEmptyParent = on; }

    // Shows the stored value, unless a refused text is waiting to be fixed or the user is typing.
    void refresh();
    // Validation's problems at this field (form words); a refusal, while there is one, comes first.
    void showProblems(const QStringList& problems);
    // Checks and stores the text now (what Enter does); false when refused.
    bool commit();
    // Back to the stored value, dropping a refusal (what Escape does).
    void revert();
    bool isRefused() const { return !m_refusal.isEmpty(); }
    QString refusal() const { return m_refusal; }

  protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    // The line edit's menu, and "Vary in a Study…" for the field it edits.
    void contextMenuEvent(QContextMenuEvent* event) override;

  private:
    QString storedText() const;
    // Shows the stored value from its first character unless the field has focus.
    void showStored(const QString& text);
    void updateMark();

    ScenarioDocument* m_document;
    Kind m_kind;
    QString m_what;
    std::string m_pointer;
    bool m_removesEmptyParent = false;
    QString m_refusal;      // core's words for the text shown, which is not stored
    QStringList m_problems; // validation's, for the stored value
};

} // namespace coh::ui
