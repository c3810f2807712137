#pragma once
// The Serving section's router rows: the policy, and cache_aware's overlap weight and max imbalance. The router
// is a name ("least_loaded") or an object ({"policy": "cache_aware", "overlap_weight": 2}), so its rows edit one
// JSON value together: a weight turns the name into the object, clearing the last weight turns it back, and a
// policy other than cache_aware drops the weights (core refuses them there). Each change is one undo step.

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QComboBox;
class QFormLayout;
class QLineEdit;
class QWidget;

namespace coh::ui {

class ScenarioDocument;
class ScenarioFields;

class RouterForm : public QObject {
    Q_OBJECT
  public:
    // Adds the rows to `form`; `fields` marks them with validation's problems.
    RouterForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page);

    QComboBox* policyCombo() const { return m_policy; }
    QLineEdit* weightEdit() const { return m_weight; }
    QLineEdit* imbalanceEdit() const { return m_imbalance; }

    // Reads the rows back from the document (signals blocked).
    void refresh();

  private:
    void setPolicy();
    void setNumber(const char* key, QLineEdit* edit);
    QString policy() const; // the document's, "" when it names none

    ScenarioDocument* m_document;
    QComboBox* m_policy;
    QLineEdit* m_weight;
    QLineEdit* m_imbalance;
};

} // namespace coh::ui
