#pragma once
// What a bug hunt asks and how it checks the learner: the planted bug (the invariant it breaks and the
// transition that is wrong, authored in the lesson's "answer"), the transitions a run took (the answer's
// choices), hints, and the neutral wording of a step used until the learner has answered, so nothing on screen
// gives the bug away.
#include "core/coherence/lab_session.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace coh::ui {

struct Lesson;

// One transition of a controller's table: (state, event) in the cache's or the directory's table.
struct TransitionKey {
    bool atDirectory = false;
    QString state;
    QString event;
    bool operator==(const TransitionKey&) const = default;
};

struct BugAnswer {
    core::coherence::Violation violation = core::coherence::Violation::None;
    TransitionKey transition;
};

// A transition the run took, as the learner picks it: "Directory: S on GetM (step 5)".
struct TransitionChoice {
    TransitionKey key;
    QString label;
};

// The invariants a learner can name, in the order the answer box lists them.
const std::vector<core::coherence::Violation>& answerViolations();
QString violationLabel(core::coherence::Violation v);

// Reads "answer": {"violation": "swmr", "controller": "directory", "state": "S", "event": "GetM"}. False with
// `error` naming the file, the field and the fix.
bool parseBugAnswer(const QJsonObject& o, const QString& file, BugAnswer& answer, QString& error);
// The answer must fit the protocol and the lesson's run: the transition exists, the run takes it, and the run stops
// on the answer's invariant. Empty when it does; else one line naming the file, the field and the fix.
QString checkBugAnswer(const Lesson& lesson, const core::coherence::Protocol& protocol,
                       const core::coherence::LabRun& run);

// Every distinct transition the steps took, in the order first taken.
std::vector<TransitionChoice> transitionsTaken(const core::coherence::Protocol& protocol,
                                               const std::vector<core::coherence::StepRecord>& steps);
// The lesson's hints, or general ones that end by naming the controller whose table holds the bug.
QStringList huntHints(const Lesson& lesson);
// What a step observably did (messages sent, value loaded or stored), without the protocol's own explanation,
// which for the planted transition names the bug.
QString observedStep(const core::coherence::StepRecord& step);

} // namespace coh::ui
