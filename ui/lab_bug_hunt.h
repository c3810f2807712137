#pragma once
// The bug-hunt panel: the learner steps through a broken protocol, presses "I found it", names the invariant
// they think broke, and the panel runs core's exhaustive checker off the GUI thread and shows its shortest
// counterexample in the lab (sequence chart and state table) with a verdict on their answer.
#include "core/coherence/explorer.h"

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

    // Arms the panel for a bug hunt on the lab's current protocol and ops (the ones "Back to my run" restores).
    void start(const QString& protocol, int caches, const QString& ops);
    // Hides the panel and drops any checker result still on its way.
    void stop();

    bool isRunning() const { return m_watcher.isRunning(); }
    QString verdict() const;

  signals:
    // The checker's counterexample is now in the lab; `correct` says whether the learner named its invariant.
    void counterexampleShown(int steps, bool correct);

  private:
    void askInvariant();
    void check();
    void finished();

    LabModel* m_lab;
    QPushButton* m_foundIt;
    QComboBox* m_invariant;
    QPushButton* m_check;
    QPushButton* m_back;
    QLabel* m_verdict;
    QFutureWatcher<core::coherence::ExplorerResult> m_watcher;
    // core's explorer has no cancel hook, so a cancelled search runs out (bounded by maxStates) and is dropped.
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QString m_protocol;
    int m_caches = 3;
    QString m_ops;
};

} // namespace coh::ui
