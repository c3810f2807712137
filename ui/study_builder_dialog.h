#pragma once
// The Tuner's New Study dialog: the fields to vary (added from the scenario by "Vary in a Study…" or typed as JSON
// pointers), the objectives and constraints (metrics of core's catalog), the strategy and its budget. Run and Save
// hand the draft to the Tuner, which writes it as a study file and lets core check it; core's problems come back
// here, naming the study's field and the fix, and the dialog stays open to fix them.
#include "ui/study_draft.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace coh::ui {

class StudyBuilderDialog : public QDialog {
    Q_OBJECT
  public:
    explicit StudyBuilderDialog(QWidget* parent = nullptr);

    void setDraft(const StudyDraft& draft);
    // The draft as the widgets now show it.
    StudyDraft draft() const;
    // Core's problems with the study (empty: none).
    void showProblems(const QString& text);

    // For tests.
    QTableWidget* parameterTable() const { return m_parameters; }
    QComboBox* strategyChoice() const { return m_strategy; }
    QSpinBox* pointsBox() const { return m_points; }
    QLabel* problemsLabel() const { return m_problems; }
    QPushButton* runButton() const { return m_run; }

  signals:
    void runRequested();
    void saveRequested();

  private:
    void addParameterRow(const DraftParameter& p);
    void addObjectiveRow(const DraftObjective& o);
    void addConstraintRow(const DraftConstraint& c);
    void updateSummary();

    QLineEdit* m_name = nullptr;
    QTableWidget* m_parameters = nullptr;
    QTableWidget* m_objectives = nullptr;
    QTableWidget* m_constraints = nullptr;
    QComboBox* m_strategy = nullptr;
    QSpinBox* m_points = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_population = nullptr;
    QSpinBox* m_generations = nullptr;
    QSpinBox* m_screen = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_problems = nullptr;
    QPushButton* m_run = nullptr;
};

} // namespace coh::ui
