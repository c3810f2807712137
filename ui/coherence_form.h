#pragma once
// The scenario's "coherence" section: the decode protocol (or the plain copy) with its trade-off in a
// paragraph and a way into the Lab, the home policy, message size, lazy-causal's reader-side staleness bound and
// the lease time to live of a protocol that grants leases (sealed-lease).
// Prefill's protocol (the blocks prefill instances share) and each tier's are pickers too; a choice the
// scenario cannot use (no prefix pool) is explained in Problems by core's validation, like every other problem.

#include "core/base/input_error.h"

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
    // Marks the fields core's validation names.
    void showProblems(const std::vector<core::InputProblem>& problems);
    QComboBox* protocolCombo() const { return m_decode; }
    QLabel* explanation() const { return m_explanation; }
    QComboBox* prefillCombo() const { return m_prefill; }
    // The protocol pickers of the dram, cxl and storage tiers.
    const std::vector<QComboBox*>& tierCombos() const { return m_tierCombos; }
    QLineEdit* leaseTtl() const { return m_leaseTtl; }
    QComboBox* leaseExpiry() const { return m_leaseExpiry; }

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
    QLineEdit* m_leaseTtl = nullptr;
    QComboBox* m_leaseExpiry = nullptr;
};

} // namespace coh::ui
