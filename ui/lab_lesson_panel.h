#pragma once
// The lesson browser and the open lesson's text: a list of every lesson and bug hunt (titles), and below it the
// lesson's intro, the note for the current step and, at the last step, its conclusion, all filled from the run.
// With no lesson open it shows an introduction (the walk-through's). The list never changes size or scrolls when a
// lesson opens, so the learner's place in it stays put.
#include "ui/lesson.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QListWidget;
class QScrollArea;
class QVBoxLayout;

namespace coh::ui {

class LabModel;

class LabLessonPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LabLessonPanel(LabModel* lab, QWidget* parent = nullptr);

    const std::vector<Lesson>& lessons() const { return m_lessons; }
    // Lessons that failed to load, one line each naming the file and field.
    const QStringList& loadErrors() const { return m_errors; }
    const Lesson* currentLesson() const { return m_current ? &*m_current : nullptr; }
    QListWidget* list() const { return m_list; }
    // The text shown under the list, as plain text.
    QString text() const;

    // Loads the lesson into the lab at step 0; false (and the error shown) when the id is unknown or bad.
    bool openLesson(const QString& id);
    // Leaves lesson mode (the lab keeps its run).
    void closeLesson();
    // Shown under the list while no lesson is open (rich text).
    void setIntroduction(const QString& html);
    // A bug hunt's conclusion explains the bug: it stays hidden until the hunt is answered.
    void setConclusionHidden(bool hidden);
    // Puts `widget` under the lesson's text, in the same scrolling area (the bug-hunt panel).
    void addBelowText(QWidget* widget);

  signals:
    void lessonOpened(const coh::ui::Lesson& lesson);
    void lessonClosed();

  private:
    void refreshText();

    LabModel* m_lab;
    QListWidget* m_list;
    QScrollArea* m_scroll;
    QVBoxLayout* m_textLayout;
    QLabel* m_text;
    QLabel* m_error;
    std::vector<Lesson> m_lessons;
    QStringList m_errors;
    std::optional<Lesson> m_current;
    LessonRun m_run;
    QString m_lessonOps; // the lab's ops as the lesson set them, to notice when the learner changes them
    QString m_introduction;
    bool m_conclusionHidden = false;
};

} // namespace coh::ui
