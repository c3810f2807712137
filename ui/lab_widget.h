#pragma once
// The Protocol Lab: pick a protocol and 2-4 caches, issue ops per cache, and step through every message of the
// resulting run in a sequence chart, a state table, the step's explanation and the protocol's transition table.
// Lessons and bug hunts (resources/lessons) drive the same views.
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTableView;

namespace coh::ui {

class LabBugHunt;
class LabLessonPanel;
class LabModel;
class LabOpPanel;
class LabStateTableModel;
class LabTransitionTable;
class SequenceChart;

class LabWidget : public QWidget {
    Q_OBJECT
  public:
    explicit LabWidget(QWidget* parent = nullptr);

    LabModel* model() const { return m_lab; }
    LabStateTableModel* stateModel() const { return m_stateModel; }
    QTableView* stateView() const { return m_stateView; }
    SequenceChart* chart() const { return m_chart; }
    LabOpPanel* opPanel() const { return m_ops; }
    LabTransitionTable* transitionTable() const { return m_transitions; }
    LabLessonPanel* lessonPanel() const { return m_lessons; }
    LabBugHunt* bugHunt() const { return m_bugHunt; }
    QString explanation() const;

  public slots:
    // Shows the protocol with core's default tour of its transactions, at step 0.
    void openProtocol(const QString& protocolName);
    // Opens a lesson or bug hunt by id (its file name without .json); an unknown id shows an error.
    void openLesson(const QString& lessonId);

  private:
    QWidget* buildControls();
    QWidget* buildStepBar();
    void syncControls();
    void showStep();

    LabModel* m_lab;
    LabStateTableModel* m_stateModel;
    QComboBox* m_protocol = nullptr;
    QSpinBox* m_caches = nullptr;
    QPushButton* m_reset = nullptr;
    LabOpPanel* m_ops = nullptr;
    QPushButton* m_first = nullptr;
    QPushButton* m_back = nullptr;
    QPushButton* m_forward = nullptr;
    QPushButton* m_last = nullptr;
    QLabel* m_position = nullptr;
    SequenceChart* m_chart = nullptr;
    QScrollArea* m_chartScroll = nullptr;
    QTableView* m_stateView = nullptr;
    QLabel* m_explanation = nullptr;
    QLabel* m_error = nullptr;
    LabTransitionTable* m_transitions = nullptr;
    LabLessonPanel* m_lessons = nullptr;
    LabBugHunt* m_bugHunt = nullptr;
};

} // namespace coh::ui
