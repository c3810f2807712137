#pragma once
// Protocol Lab lessons and bug hunts: JSON files under resources/lessons (":/lessons/<id>.json"). A lesson names a
// protocol, a cache count and the ops to step through; its texts quote numbers only through {placeholders} filled
// from the live run (ui/lab_counts.h), so they can never disagree with what the lab shows.
#include "core/coherence/lab_session.h"
#include "ui/lab_puzzle.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <vector>

namespace coh::ui {

struct Lesson {
    QString file; // where it was loaded from, for error messages
    QString id;
    QString title;
    QString protocol;
    int caches = 3;
    QString ops;
    QString intro;
    QMap<int, QString> stepNotes; // step index (0 = before the first step) -> note
    QString conclusion;
    QString compare; // optional: a protocol to run the same ops under, for compare_* placeholders
    bool bugHunt = false;
    // Bug hunts only: what the protocol box shows until the learner answers (never the variant's name), hints
    // given one at a time, and the planted bug. A bug hunt's conclusion is shown once the bug is revealed.
    QString shownAs;
    QStringList hints;
    BugAnswer answer;
};

// The lesson's runs and its filled-in texts.
struct LessonRun {
    core::coherence::LabRun run;
    core::coherence::LabRun compareRun; // empty unless the lesson compares
    QMap<QString, QString> values;
    QString intro;
    QMap<int, QString> stepNotes;
    QString conclusion;
};

// Parses and validates one lesson. On failure returns false and sets `error` to one line naming the file, the
// field and the fix. Validation runs the lesson: unknown placeholders, notes past the last step, and (except in a
// bug hunt) a run that breaks an invariant are errors.
bool parseLesson(const QByteArray& json, const QString& file, Lesson& lesson, QString& error);

// One line naming a problem in a lesson file: "<file>: field "<field>": <message>; <fix>" (the lesson's and the
// bug hunt's parsers both say it so).
QString lessonProblem(const QString& file, const QString& field, const QString& message, const QString& fix);

// Runs a lesson and fills its texts. False with `error` set when the lesson does not hold up (see parseLesson).
bool runLesson(const Lesson& lesson, LessonRun& out, QString& error);

// {name} -> values[name]; names not in `values` are appended to `unknown` and left as they are.
QString fillPlaceholders(const QString& text, const QMap<QString, QString>& values, QStringList* unknown = nullptr);

// How a list names a lesson (the Start page's, the Lab's): its title, a bug hunt's after "Bug hunt: ".
QString lessonListTitle(const Lesson& lesson);
// Its tooltip in a list: protocol, caches and ops; a bug hunt's leaves the protocol out, whose name gives the bug
// away.
QString lessonListToolTip(const Lesson& lesson);

// Every lesson under `directory` (default ":/lessons"), sorted: lessons first, then bug hunts, each by title.
// Bad files are skipped with their error appended to `errors`.
std::vector<Lesson> loadLessons(QStringList& errors, const QString& directory = QStringLiteral(":/lessons"));

} // namespace coh::ui
