#pragma once
// The scenario's "workload" section: synthetic (arrival process, rate, prompt/output length distributions) or
// trace replay (format, file, time scale, request limit). Switching kind keeps the other kind's settings for
// switching back within the session.

#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

#include <QWidget>

#include <vector>

class QComboBox;
class QFormLayout;
class QLineEdit;

namespace coh::ui {

class ScenarioDocument;
class ScenarioFields;

class WorkloadForm : public QWidget {
    Q_OBJECT
  public:
    WorkloadForm(ScenarioDocument* document, QWidget* parent = nullptr);

    void refresh();
    // Marks the fields core's validation names.
    void showProblems(const std::vector<core::InputProblem>& problems);
    QComboBox* typeCombo() const { return m_type; }

  private:
    QWidget* buildSynthetic();
    QWidget* buildTrace();
    QWidget* buildLength(const std::string& key, const QString& title, QComboBox** distOut,
                         QList<QLineEdit*>* fieldsOut, QFormLayout** formOut);
    void setType(const QString& type);
    void setDistribution(const std::string& key, const QString& dist);
    void browseTrace();
    void updateEnabled();

    ScenarioDocument* m_document;
    ScenarioFields* m_fields;
    QComboBox* m_type = nullptr;
    QWidget* m_synthetic = nullptr; // one of the two pages is shown; hidden pages take no space
    QWidget* m_trace = nullptr;
    QComboBox* m_process = nullptr;
    QLineEdit* m_cv = nullptr;
    QComboBox* m_promptDist = nullptr;
    QComboBox* m_outputDist = nullptr;
    QList<QLineEdit*> m_promptFields; // value, min, max, median, sigma, exponent
    QList<QLineEdit*> m_outputFields;
    QFormLayout* m_promptForm = nullptr;
    QFormLayout* m_outputForm = nullptr;
    QLineEdit* m_tracePath = nullptr;
    nlohmann::ordered_json m_otherKind; // the workload of the kind not shown, for switching back
};

} // namespace coh::ui
