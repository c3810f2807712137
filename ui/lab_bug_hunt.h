#pragma once
// The bug-hunt panel, a puzzle: the learner steps through a broken protocol shown under a neutral name, then
// answers what goes wrong (an invariant) and which transition is to blame. A wrong answer can be retried; hints
// come one at a time. A right answer, or "Show me", reveals the variant's name and the verdict and runs core's
// exhaustive checker off the GUI thread, whose shortest counterexample the lab then steps through.
#include "core/coherence/explorer.h"
#include "ui/lesson.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;

namespace coh::ui {

class LabModel;

class LabBugHunt : public QWidget {
    Q_OBJECT
  public:
    explicit LabBugHunt(LabModel* lab, QWidget* parent = nullptr);
    ~LabBugHunt() override;

    // Arms the panel for a bug hunt (the lab already runs its ops, which "Back to my run" restores), hidden answer.
    void start(const Lesson& lesson);
    // Hides the panel and drops any checker result still on its way.
    void stop();

    bool isActive() const { return m_active; }
    // True while a hunt is open and unanswered: the lab must not show the variant, the verdict or core's
    // explanations, which name the bug.
    bool hidesAnswer() const { return m_active && !m_revealed; }
    const Lesson& lesson() const { return m_lesson; }
    int attempts() const { return m_attempts; }
    int hintsShown() const { return m_hintsShown; }
    // A checker search is running, or waiting for a cancelled one to finish before it starts.
    bool isRunning() const { return m_searching || m_searchPending; }
    QString verdict() const;

    // The learner's answer: an index into answerViolations() and a transition the run took.
    void setAnswer(core::coherence::Violation violation, const TransitionKey& transition);
    // Checks the answer in the boxes; true when it is right (which reveals the bug).
    bool checkAnswer();
    void showHint();
    // Reveals the bug without an answer.
    void showMe();

  signals:
    // The answer was revealed (right answer or "Show me"): the lab may show everything again.
    void revealed(bool correct);
    // The checker's counterexample is now in the lab.
    void counterexampleShown(int steps);

  private:
    void refreshTransitions();
    void reveal(bool correct);
    void runChecker();
    void startSearch();
    void checkerFinished();

    LabModel* m_lab;
    QLabel* m_prompt;
    QComboBox* m_violation;
    QComboBox* m_transition;
    QPushButton* m_check;
    QPushButton* m_hint;
    QPushButton* m_showMe;
    QPushButton* m_back;
    QLabel* m_verdict;
    QLabel* m_hints;
    QFutureWatcher<core::coherence::ExplorerResult> m_watcher;
    // Polled by the explorer: a search the panel no longer needs stops within one state.
    std::shared_ptr<std::atomic<bool>> m_cancel;
    // Each checker request (a reveal) and each stop is a generation; only the search of the latest request shows
    // its result. A request made while a cancelled search is still finishing waits for it (m_searchPending).
    quint64 m_generation = 0;
    quint64 m_searchGeneration = 0;
    bool m_searchPending = false;
    // From a search's start until its finished() is handled here: the worker may be done while its result is still
    // on its way, and a new search must not start under it.
    bool m_searching = false;
    Lesson m_lesson;
    bool m_active = false;
    bool m_revealed = false;
    int m_attempts = 0;
    int m_hintsShown = 0;
};

} // namespace coh::ui
