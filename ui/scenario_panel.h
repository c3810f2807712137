#pragma once
// The "Scenario" dock: every section of the scenario except the topology (which the Topology tab edits).
// Each field edit is one undo step on the document; the panel refreshes whenever the document changes.

#include "core/scenario/model_catalog.h"

#include <QString>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QScrollArea;
class QTimer;

namespace coh::ui {

class CoherenceForm;
class FailuresForm;
class InstancesEditor;
class KvTiersForm;
class ReplicationForm;
class SharedPrefixForm;
class RouterForm;
class ScenarioDocument;
class ScenarioFields;
class WorkloadForm;

class ScenarioPanel : public QWidget {
    Q_OBJECT
  public:
    // The narrowest the form is laid out for (labels above fields); the dock cannot be made narrower.
    static constexpr int kMinimumWidth = 280;

    explicit ScenarioPanel(ScenarioDocument* document, QWidget* parent = nullptr);
    QSize sizeHint() const override;

    QLineEdit* nameEdit() const { return m_name; }
    QComboBox* modelCombo() const { return m_model; }
    WorkloadForm* workloadForm() const { return m_workload; }
    CoherenceForm* coherenceForm() const { return m_coherence; }
    InstancesEditor* instancesEditor() const { return m_instances; }
    RouterForm* routerForm() const { return m_router; }
    ReplicationForm* replicationForm() const { return m_replication; }
    SharedPrefixForm* sharedPrefixForm() const { return m_sharedPrefix; }
    KvTiersForm* kvTiersForm() const { return m_kvTiers; }
    FailuresForm* failuresForm() const { return m_failures; }

  public slots:
    void refresh();
    // Marks every field that core's validation names (red, with the problem as tooltip). Runs by itself after
    // each edit settles; tests call it to skip the wait.
    void showProblems();
    // Scrolls to the field that edits `pointer` (or the nearest value above it that has one) and focuses it:
    // where a problem in the Problems dock leads. False when the form has no field for it.
    bool showField(const QString& pointer);

  signals:
    void openInLab(const QString& protocol);

  private:
    QWidget* buildGeneral();
    QWidget* buildModel();
    QWidget* buildServing();
    QWidget* buildLimits();
    void setModel();
    void updateModelInfo();
    void onChanged(const QString& pointer);

    ScenarioDocument* m_document;
    ScenarioFields* m_fields;
    QLineEdit* m_name = nullptr;
    QComboBox* m_model = nullptr;
    QLabel* m_modelInfo = nullptr;
    RouterForm* m_router = nullptr;
    ReplicationForm* m_replication = nullptr;
    SharedPrefixForm* m_sharedPrefix = nullptr;
    KvTiersForm* m_kvTiers = nullptr;
    WorkloadForm* m_workload = nullptr;
    CoherenceForm* m_coherence = nullptr;
    InstancesEditor* m_instances = nullptr;
    FailuresForm* m_failures = nullptr;
    QTimer* m_topologyRefresh = nullptr;
    QTimer* m_validateTimer = nullptr;
    QScrollArea* m_scroll = nullptr;
    std::optional<core::ModelCatalog> m_catalog; // read once: the catalog file does not change under us
    QString m_catalogError;
};

} // namespace coh::ui
