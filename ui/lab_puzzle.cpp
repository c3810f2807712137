#include "ui/lab_puzzle.h"

#include "core/coherence/step_record.h"
#include "ui/lesson.h"
#include "ui/qt_text.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <algorithm>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("LabPuzzle", text);
}

TransitionKey keyOf(const co::Protocol& protocol, const co::StepRecord& step)
{
    return {step.actor == co::homeName(protocol.home), toQString(step.fromState), toQString(step.event)};
}

} // namespace

const std::vector<co::Violation>& answerViolations()
{
    static const std::vector<co::Violation> all = {co::Violation::Swmr,          co::Violation::DataValue,
                                                   co::Violation::LostWrite,     co::Violation::AckCounter,
                                                   co::Violation::ProtocolError, co::Violation::Deadlock};
    return all;
}

QString violationLabel(co::Violation v)
{
    switch (v) {
    case co::Violation::Swmr:
        return tr("Single writer / multiple readers (SWMR) breaks");
    case co::Violation::DataValue:
        return tr("A load returns an old value");
    case co::Violation::LostWrite:
        return tr("The latest written value is lost");
    case co::Violation::AckCounter:
        return tr("An ack counter is left unsettled");
    case co::Violation::ProtocolError:
        return tr("A message arrives that the table does not define");
    case co::Violation::Deadlock:
        return tr("Nothing can move any more: a controller waits for ever");
    case co::Violation::None:
        break;
    }
    return tr("Nothing goes wrong");
}

bool parseBugAnswer(const QJsonObject& o, const QString& file, BugAnswer& answer, QString& error)
{
    const QJsonValue value = o.value(QStringLiteral("answer"));
    const QString example = tr("write \"answer\": {\"violation\": \"swmr\", \"controller\": \"directory\", "
                               "\"state\": \"S\", \"event\": \"GetM\"}");
    if (!value.isObject()) {
        error =
            lessonProblem(file, QStringLiteral("answer"),
                          value.isUndefined() ? tr("a bug hunt needs the answer") : tr("must be an object"), example);
        return false;
    }
    const QJsonObject a = value.toObject();
    const QString violation = a.value(QStringLiteral("violation")).toString();
    QStringList names;
    for (co::Violation v : answerViolations()) {
        names << QLatin1String(co::violationName(v));
        if (violation == names.back())
            answer.violation = v;
    }
    if (answer.violation == co::Violation::None) {
        error = lessonProblem(file, QStringLiteral("answer/violation"), tr("\"%1\" is not an invariant").arg(violation),
                              tr("use one of %1").arg(names.join(QStringLiteral(", "))));
        return false;
    }
    const QString controller = a.value(QStringLiteral("controller")).toString();
    if (controller != QLatin1String("cache") && controller != QLatin1String("directory")) {
        error = lessonProblem(file, QStringLiteral("answer/controller"),
                              tr("\"%1\" is not a controller").arg(controller), tr("use \"cache\" or \"directory\""));
        return false;
    }
    answer.transition.atDirectory = controller == QLatin1String("directory");
    answer.transition.state = a.value(QStringLiteral("state")).toString();
    answer.transition.event = a.value(QStringLiteral("event")).toString();
    if (answer.transition.state.isEmpty() || answer.transition.event.isEmpty()) {
        error =
            lessonProblem(file, QStringLiteral("answer"), tr("needs the wrong transition's state and event"), example);
        return false;
    }
    return true;
}

QString checkBugAnswer(const Lesson& lesson, const co::Protocol& protocol, const co::LabRun& run)
{
    const BugAnswer& a = lesson.answer;
    const co::ControllerTable& table = a.transition.atDirectory ? protocol.directory : protocol.cache;
    if (table.findState(toStdString(a.transition.state)) < 0 || table.findEvent(toStdString(a.transition.event)) < 0)
        return lessonProblem(
            lesson.file, QStringLiteral("answer"),
            tr("the %1 table has no transition (%2, %3)")
                .arg(a.transition.atDirectory ? tr("directory") : tr("cache"), a.transition.state, a.transition.event),
            tr("name a state and an event of that table (cohsim lab --table)"));
    const auto taken = transitionsTaken(protocol, run.steps);
    if (std::none_of(taken.begin(), taken.end(), [&a](const TransitionChoice& c) { return c.key == a.transition; }))
        return lessonProblem(lesson.file, QStringLiteral("answer"),
                             tr("the lesson's run never takes (%1, %2)").arg(a.transition.state, a.transition.event),
                             tr("change the ops so the learner sees the wrong transition"));
    if (run.violation != a.violation)
        return lessonProblem(
            lesson.file, QStringLiteral("answer/violation"),
            tr("the lesson's run stops on %1, not %2")
                .arg(QLatin1String(co::violationName(run.violation)), QLatin1String(co::violationName(a.violation))),
            tr("name what the run breaks"));
    return {};
}

std::vector<TransitionChoice> transitionsTaken(const co::Protocol& protocol, const std::vector<co::StepRecord>& steps)
{
    std::vector<TransitionChoice> out;
    for (const co::StepRecord& step : steps) {
        const TransitionKey key = keyOf(protocol, step);
        if (std::any_of(out.begin(), out.end(), [&key](const TransitionChoice& c) { return c.key == key; }))
            continue;
        const QString where =
            key.atDirectory ? toQString(co::homeName(protocol.home)) : tr("Cache (%1)").arg(toQString(step.actor));
        out.push_back({key, tr("%1: %2 on %3 (step %4)").arg(where, key.state, key.event).arg(step.index)});
    }
    return out;
}

QStringList huntHints(const Lesson& lesson)
{
    if (!lesson.hints.isEmpty())
        return lesson.hints;
    return {tr("Read the state table at every step: who may read, who may write, and is anyone still waiting?"),
            tr("Compare what each step sends with what the correct protocol would send there."),
            lesson.answer.transition.atDirectory ? tr("The wrong transition is in the directory's table.")
                                                 : tr("The wrong transition is in the caches' table.")};
}

QString observedStep(const co::StepRecord& step)
{
    QStringList parts;
    QStringList sent;
    for (const co::MessageView& m : step.sent)
        sent << tr("%1 to %2").arg(toQString(m.kind), toQString(m.to));
    parts << (sent.isEmpty() ? tr("Sends nothing.") : tr("Sends %1.").arg(sent.join(QStringLiteral(", "))));
    if (step.loaded)
        parts << tr("Loads %1.").arg(*step.loaded);
    if (step.stored)
        parts << tr("Stores %1.").arg(*step.stored);
    return parts.join(QLatin1Char(' '));
}

} // namespace coh::ui
