#pragma once
// The Serving section's shared prefix rows (serving.shared_prefix): a check box that turns sharing on (an empty
// section: the defaults) or off (the section removed), each one undo step, and the idle capacity and the prefix
// block size as plain fields (a value creates the section). Core's problems with the section as a whole (a decode
// protocol that is "direct", failures) mark the check box.

#include <QObject>

class QCheckBox;
class QFormLayout;
class QWidget;

namespace coh::ui {

class FieldEdit;
class ScenarioDocument;
class ScenarioFields;

class SharedPrefixForm : public QObject {
    Q_OBJECT
  public:
    SharedPrefixForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page);

    QCheckBox* shareCheck() const { return m_share; }
    FieldEdit* capacityEdit() const { return m_capacity; }
    FieldEdit* blockTokensEdit() const { return m_blockTokens; }

    // Reads whether the section is there back from the document (signals blocked).
    void refresh();

  private:
    void setShared(bool on);

    ScenarioDocument* m_document;
    QCheckBox* m_share;
    FieldEdit* m_capacity;
    FieldEdit* m_blockTokens;
};

} // namespace coh::ui
