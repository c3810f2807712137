#include "ui/lesson.h"

#include "core/base/input_error.h"
#include "core/coherence/protocol_registry.h"
#include "ui/lab_counts.h"
#include "ui/qt_text.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Lesson", text);
}

bool requireString(const QJsonObject& o, const QString& file, const char* key, QString& out, QString& error)
{
    const QString field = QLatin1String(key);
    const QJsonValue v = o.value(field);
    if (!v.isString() || v.toString().trimmed().isEmpty()) {
        error = lessonProblem(file, field, v.isUndefined() ? tr("is missing") : tr("must be a non-empty string"),
                              tr("add it (see docs/gui-lab.md for the lesson format)"));
        return false;
    }
    out = v.toString();
    return true;
}

// A bug hunt's disguise, hints and answer.
bool parseHunt(const QJsonObject& o, const QString& file, Lesson& l, QString& error)
{
    l.shownAs = tr("Protocol variant under test");
    if (o.contains(QStringLiteral("shown_as")) && !requireString(o, file, "shown_as", l.shownAs, error))
        return false;
    const QJsonValue hints = o.value(QStringLiteral("hints"));
    if (!hints.isUndefined()) {
        const QJsonArray list = hints.toArray();
        for (const QJsonValue& h : list)
            if (h.isString() && !h.toString().trimmed().isEmpty())
                l.hints << h.toString();
        if (!hints.isArray() || l.hints.size() != list.size()) {
            error = lessonProblem(file, QStringLiteral("hints"), tr("must be a list of non-empty strings"),
                                  tr("write \"hints\": [\"first hint\", \"second hint\"]"));
            return false;
        }
    }
    return parseBugAnswer(o, file, l.answer, error);
}

} // namespace

QString fillPlaceholders(const QString& text, const QMap<QString, QString>& values, QStringList* unknown)
{
    static const QRegularExpression placeholder(QStringLiteral("\\{([a-z_]+)\\}"));
    QString out;
    qsizetype last = 0;
    for (auto it = placeholder.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        if (values.contains(name)) {
            out += values.value(name);
        } else {
            out += m.captured(0);
            if (unknown)
                unknown->append(name);
        }
        last = m.capturedEnd();
    }
    return out + text.mid(last);
}

bool parseLesson(const QByteArray& json, const QString& file, Lesson& lesson, QString& error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        error = tr("%1: not a JSON object (%2 at offset %3); fix the syntax")
                    .arg(file,
                         parseError.error != QJsonParseError::NoError ? parseError.errorString() : tr("not an object"))
                    .arg(parseError.offset);
        return false;
    }
    const QJsonObject o = doc.object();
    Lesson l;
    l.file = file;
    if (!requireString(o, file, "id", l.id, error) || !requireString(o, file, "title", l.title, error) ||
        !requireString(o, file, "protocol", l.protocol, error) || !requireString(o, file, "ops", l.ops, error) ||
        !requireString(o, file, "intro", l.intro, error) || !requireString(o, file, "conclusion", l.conclusion, error))
        return false;
    const QJsonValue caches = o.value(QStringLiteral("caches"));
    if (!caches.isDouble() || caches.toInt() < 2 || caches.toInt() > 4 || caches.toDouble() != caches.toInt()) {
        error = lessonProblem(file, QStringLiteral("caches"), tr("must be a whole number from 2 to 4"),
                              tr("set e.g. \"caches\": 3"));
        return false;
    }
    l.caches = caches.toInt();
    if (!file.isEmpty() && QFileInfo(file).completeBaseName() != l.id) {
        error = lessonProblem(file, QStringLiteral("id"), tr("\"%1\" differs from the file name").arg(l.id),
                              tr("name the file <id>.json"));
        return false;
    }
    l.bugHunt = o.value(QStringLiteral("bug_hunt")).toBool(false);
    if (l.bugHunt && !parseHunt(o, file, l, error))
        return false;
    if (o.contains(QStringLiteral("compare")) && !requireString(o, file, "compare", l.compare, error))
        return false;
    const QJsonValue notes = o.value(QStringLiteral("steps_notes"));
    if (!notes.isUndefined() && !notes.isObject()) {
        error = lessonProblem(file, QStringLiteral("steps_notes"), tr("must be an object"),
                              tr("write {\"3\": \"note for step 3\"}"));
        return false;
    }
    const QJsonObject noteObject = notes.toObject();
    for (auto it = noteObject.begin(); it != noteObject.end(); ++it) {
        bool ok = false;
        const int step = it.key().toInt(&ok);
        const QString field = QStringLiteral("steps_notes/%1").arg(it.key());
        if (!ok || step < 0 || !it.value().isString()) {
            error = lessonProblem(file, field, tr("needs a step number key (0 or more) and a string note"),
                                  tr("write {\"3\": \"note for step 3\"}"));
            return false;
        }
        l.stepNotes.insert(step, it.value().toString());
    }
    LessonRun run;
    if (!runLesson(l, run, error))
        return false;
    lesson = l;
    return true;
}

bool runLesson(const Lesson& lesson, LessonRun& out, QString& error)
{
    const QString& file = lesson.file;
    try {
        const co::Protocol& protocol = co::findProtocol(toStdString(lesson.protocol), "protocol");
        if (protocol.bugHunt != lesson.bugHunt) {
            error = lessonProblem(file, QStringLiteral("protocol"),
                                  lesson.bugHunt ? tr("a bug hunt needs a deliberately broken protocol")
                                                 : tr("a lesson needs a correct protocol"),
                                  lesson.bugHunt ? tr("pick a [bug hunt] protocol or drop \"bug_hunt\"")
                                                 : tr("pick another protocol or set \"bug_hunt\": true"));
            return false;
        }
        const std::vector<co::LabOp> ops = co::parseLabOps(toStdString(lesson.ops), lesson.caches);
        out.run = co::runLab(protocol, lesson.caches, ops, toStdString(lesson.ops));
        if (lesson.bugHunt) {
            error = checkBugAnswer(lesson, protocol, out.run);
            if (!error.isEmpty())
                return false;
        }
        if (!lesson.bugHunt && (out.run.violation != co::Violation::None || !out.run.error.empty())) {
            error = lessonProblem(file, QStringLiteral("ops"), tr("the run stops: %1").arg(toQString(out.run.error)),
                                  tr("change the ops so every transaction completes"));
            return false;
        }
        const co::Protocol* compare = nullptr;
        if (!lesson.compare.isEmpty()) {
            compare = &co::findProtocol(toStdString(lesson.compare), "compare");
            out.compareRun = co::runLab(*compare, lesson.caches, ops, toStdString(lesson.ops));
        }
        out.values = lessonValues(protocol, out.run, compare, compare ? &out.compareRun : nullptr);
    } catch (const core::InputError& e) {
        error = tr("%1: %2").arg(file, toQString(e.what()));
        return false;
    }
    const int steps = static_cast<int>(out.run.steps.size());
    // Fills one text; an unknown placeholder is an error naming the field it is in.
    auto fill = [&](const QString& field, const QString& text, QString& filled) {
        QStringList unknown;
        filled = fillPlaceholders(text, out.values, &unknown);
        if (unknown.isEmpty())
            return true;
        unknown.removeDuplicates();
        error = lessonProblem(file, field, tr("unknown placeholder {%1}").arg(unknown.join(QStringLiteral("}, {"))),
                              tr("use one of {%1}").arg(out.values.keys().join(QStringLiteral("}, {"))));
        return false;
    };
    if (!fill(QStringLiteral("intro"), lesson.intro, out.intro) ||
        !fill(QStringLiteral("conclusion"), lesson.conclusion, out.conclusion))
        return false;
    out.stepNotes.clear();
    for (auto it = lesson.stepNotes.cbegin(); it != lesson.stepNotes.cend(); ++it) {
        const QString field = QStringLiteral("steps_notes/%1").arg(it.key());
        if (it.key() > steps) {
            error = lessonProblem(file, field, tr("the run has only %1 steps").arg(steps),
                                  tr("use a step from 0 to %1").arg(steps));
            return false;
        }
        QString note;
        if (!fill(field, it.value(), note))
            return false;
        out.stepNotes.insert(it.key(), note);
    }
    return true;
}

QString lessonProblem(const QString& file, const QString& field, const QString& message, const QString& fix)
{
    return tr("%1: field \"%2\": %3; %4").arg(file, field, message, fix);
}

QString lessonListTitle(const Lesson& lesson)
{
    return lesson.bugHunt ? tr("Bug hunt: %1").arg(lesson.title) : lesson.title;
}

QString lessonListToolTip(const Lesson& lesson)
{
    return lesson.bugHunt ? tr("%1 caches, ops %2").arg(lesson.caches).arg(lesson.ops)
                          : tr("%1, %2 caches, ops %3").arg(lesson.protocol).arg(lesson.caches).arg(lesson.ops);
}

std::vector<Lesson> loadLessons(QStringList& errors, const QString& directory)
{
    std::vector<Lesson> lessons;
    const QDir dir(directory);
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        const QString path = dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            errors << tr("%1: cannot be read (%2)").arg(path, f.errorString());
            continue;
        }
        Lesson lesson;
        QString error;
        if (parseLesson(f.readAll(), path, lesson, error))
            lessons.push_back(lesson);
        else
            errors << error;
    }
    std::stable_sort(lessons.begin(), lessons.end(), [](const Lesson& a, const Lesson& b) {
        return a.bugHunt != b.bugHunt ? !a.bugHunt : a.title < b.title;
    });
    return lessons;
}

} // namespace coh::ui
