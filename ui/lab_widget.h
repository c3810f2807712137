#pragma once
// The Protocol Lab: pick a protocol and 2-4 caches, issue ops per cache (delivering their messages yourself if you
// like), and step through every message of the resulting run in a sequence chart, a state table, the step's
// explanation and the protocol's transition table. Lessons and bug hunts (resources/lessons) drive the same views.
// The chart and the tables sit side by side when the Lab is wide and one above the other when it is narrow.
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;

namespace coh::ui {

class LabBugHunt;
class LabFlightPanel;
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
    QScrollArea* chartScroll() const { return m_chartScroll; }
    LabOpPanel* opPanel() const { return m_ops; }
    LabFlightPanel* flightPanel() const { return m_flight; }
    LabTransitionTable* transitionTable() const { return m_transitions; }
    LabLessonPanel* lessonPanel() const { return m_lessons; }
    LabBugHunt* bugHunt() const { return m_bugHunt; }
    QTabWidget* sideTabs() const { return m_side; }
    QString explanation() const;

    // Below this width the state table moves under the chart and the transition tables to a side tab.
    static constexpr int kWideLayout = 1000;

  public slots:
    // Shows the protocol's walk-through (core's default tour of its transactions) at its first step, with an
    // introduction beside it.
    void openProtocol(const QString& protocolName);
    // Opens a lesson or bug hunt by id (its file name without .json); an unknown id shows an error.
    void openLesson(const QString& lessonId);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    QWidget* buildPlayTab();
    QWidget* buildStepBar();
    QWidget* buildDetails();
    void arrange(bool wide, QSize size);
    // Leaves a lesson or bug hunt because the learner changed the run's setup.
    void leaveLesson();
    // Hides or shows what would give a bug hunt's answer away.
    void applyHunt();
    void fitStateTable();
    void syncControls();
    void showStep();

    LabModel* m_lab;
    LabStateTableModel* m_stateModel;
    QComboBox* m_protocol = nullptr;
    QSpinBox* m_caches = nullptr;
    QPushButton* m_reset = nullptr;
    LabOpPanel* m_ops = nullptr;
    LabFlightPanel* m_flight = nullptr;
    QTabWidget* m_side = nullptr;
    QSplitter* m_split = nullptr;
    QSplitter* m_body = nullptr;
    QSplitter* m_details = nullptr;
    QSplitter* m_stateBox = nullptr;
    QToolButton* m_first = nullptr;
    QToolButton* m_back = nullptr;
    QToolButton* m_forward = nullptr;
    QToolButton* m_last = nullptr;
    QLabel* m_position = nullptr;
    SequenceChart* m_chart = nullptr;
    QScrollArea* m_chartScroll = nullptr;
    QTableView* m_stateView = nullptr;
    QLabel* m_explanation = nullptr;
    QLabel* m_error = nullptr;
    LabTransitionTable* m_transitions = nullptr;
    LabLessonPanel* m_lessons = nullptr;
    LabBugHunt* m_bugHunt = nullptr;
    bool m_wide = true;
    bool m_sized = false;
};

} // namespace coh::ui
