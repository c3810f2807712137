#pragma once
// The scenario's "coherence" section: the decode protocol (or the plain copy) with its trade-off in a
// paragraph and a way into the Lab, the home policy, message size and lazy-causal's reader-side staleness bound.
// What the engine does not support yet (a separate prefill protocol, tiers) is shown disabled with the reason
// core gives when a scenario asks for it.

#include <QString>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace coh::ui {

class ScenarioDocument;
class ScenarioFields;

class CoherenceForm : public QWidget {
    Q_OBJECT
  public:
    CoherenceForm(ScenarioDocument* document, QWidget* parent = nullptr);

    void refresh();
    QComboBox* protocolCombo() const { return m_decode; }
    QLabel* explanation() const { return m_explanation; }
    QComboBox* prefillCombo() const { return m_prefill; }
    // The protocol pickers of the dram, cxl and storage tiers.
    const std::vector<QComboBox*>& tierCombos() const { return m_tierCombos; }

    // Core's validation message for a scenario asking for `key` (/coherence/prefill or /coherence/tiers):
    // the reason the form cannot offer it yet. Empty once core accepts it.
    QString unsupportedReason(const std::string& key) const;

  signals:
    void openInLab(const QString& protocol);

  private:
    void setDecode(const QString& protocol);
    void setHome();
    QString currentProtocol() const;

    ScenarioDocument* m_document;
    ScenarioFields* m_fields;
    QComboBox* m_decode = nullptr;
    QLabel* m_explanation = nullptr;
    QPushButton* m_openInLab = nullptr;
    QComboBox* m_home = nullptr;
    QComboBox* m_prefill = nullptr;
    std::vector<QComboBox*> m_tierCombos; // dram, cxl, storage
    QLineEdit* m_maxVersions = nullptr;
    QLineEdit* m_maxAge = nullptr;
    QLabel* m_unsupported = nullptr; // core's reasons for the disabled pickers
};

} // namespace coh::ui
