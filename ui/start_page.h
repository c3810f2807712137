#pragma once
// The first tab a user sees: what the open scenario is and how to run it, every shipped scenario and preset
// with its description, the recent files, and the lab's lessons, each one click away.

#include <QString>
#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace coh::ui {

class StartPage : public QWidget {
    Q_OBJECT
  public:
    explicit StartPage(QWidget* parent = nullptr);

    // Refills the lists; refreshRecent() only the recent files, which change as files are opened and saved.
    void refresh();
    void refreshRecent();
    // Shows which scenario is open, beside the Run button.
    void setCurrentScenario(const QString& name);
    // Run follows the window's Run action: disabled while the scenario has problems, `tip` saying which.
    void setRunState(bool enabled, const QString& tip);
    // What Run does with the backend chosen (Run > Execute On): the button's words ("Run it on the CPU") and the
    // sentence's ("run it on this machine's CPU, timed"), so the page never says "simulate" for a real run.
    void setRunWords(const QString& button, const QString& verb);
    QPushButton* runButton() const { return m_run; }

    QListWidget* scenarioList() const { return m_scenarios; }
    QListWidget* recentList() const { return m_recent; }
    QListWidget* lessonList() const { return m_lessons; }

  signals:
    void openRequested(const QString& path);
    void runRequested();
    void lessonRequested(const QString& lessonId);

  private:
    void fillScenarios();
    void fillLessons();
    void colourDescriptions();

    void showCurrent();

    QString m_currentName, m_verb;
    QLabel* m_current = nullptr;
    QPushButton* m_run = nullptr;
    QListWidget* m_scenarios = nullptr;
    QListWidget* m_recent = nullptr;
    QListWidget* m_lessons = nullptr;
};

} // namespace coh::ui
