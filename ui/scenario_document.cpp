#include "ui/scenario_document.h"

#include "core/scenario/field_check.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/scenario/strict_json.h"
#include "ui/qt_text.h"
#include "ui/set_json_value_command.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QUndoStack>

#include <algorithm>

namespace coh::ui {

using nlohmann::ordered_json;
using Pointer = ordered_json::json_pointer;

ScenarioDocument::ScenarioDocument(QObject* parent)
    : QObject(parent)
    , m_root(ordered_json::object())
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, &ScenarioDocument::fileStateChanged);
}

ScenarioDocument::~ScenarioDocument() = default;

bool ScenarioDocument::open(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("%1: cannot open the file: %2").arg(path, file.errorString());
        return false;
    }
    if (static_cast<std::uintmax_t>(file.size()) > core::kMaxJsonFileBytes) {
        if (error)
            *error = tr("%1: the file is %2 MiB; a scenario may be at most %3 MiB")
                         .arg(path)
                         .arg(file.size() >> 20)
                         .arg(core::kMaxJsonFileBytes >> 20);
        return false;
    }
    const std::string text = file.readAll().toStdString();
    ordered_json root;
    try {
        // core's reader, as `cohsim validate` uses it: a repeated key, nesting past its limit or a number out of
        // range is refused with the file, line and fix, never silently read.
        root = core::parseStrictJson<ordered_json>(text, toStdString(path));
    } catch (const core::InputError& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    reset(std::move(root), path);
    return true;
}

bool ScenarioDocument::saveAs(const QString& path, QString* error)
{
    QSaveFile file(path);
    const std::string text = m_root.dump(2) + "\n";
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
        !file.commit()) {
        if (error)
            *error = tr("%1: cannot save: %2").arg(path, file.errorString());
        return false;
    }
    m_path = path;
    m_validation.reset(); // problems name the file
    m_undo->setClean();
    emit fileStateChanged();
    return true;
}

void ScenarioDocument::reset(ordered_json root, const QString& path)
{
    m_root = std::move(root);
    m_path = path;
    m_validation.reset();
    m_undo->clear();
    emit changed(QString());
    emit fileStateChanged();
}

QString ScenarioDocument::displayName() const
{
    if (!m_path.isEmpty())
        return QFileInfo(m_path).fileName();
    auto name = m_root.find("name");
    if (name != m_root.end() && name->is_string() && !name->get<std::string>().empty())
        return toQString(name->get<std::string>());
    return tr("Untitled");
}

bool ScenarioDocument::isModified() const
{
    return !m_undo->isClean();
}

bool ScenarioDocument::canHold(const Pointer& target) const
{
    // The parent exists and is a container the last token can address: an object, or an array with the
    // token an index at most one past its end (appending).
    const std::optional<ordered_json> parent = value(target.parent_pointer().to_string());
    if (!parent)
        return false;
    if (parent->is_object())
        return true;
    if (!parent->is_array())
        return false;
    const std::string& token = target.back();
    if (token.empty() || token.size() > 9 ||
        !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    return std::stoul(token) <= parent->size();
}

void ScenarioDocument::setValue(const std::string& pointer, ordered_json value, const QString& text, int mergeId)
{
    // Missing parents are part of the edit (set at the first ancestor that can hold the new branch), so undo
    // removes them too. A parent of the wrong type ("compute": 5 in a file being fixed) is replaced the same way.
    Pointer target(pointer);
    while (!target.empty() && !canHold(target)) {
        // A new array starts at index 0 ("/topology/nodes/0" in an empty scenario).
        if (target.back() == "0")
            value = ordered_json::array({std::move(value)});
        else
            value = ordered_json{{target.back(), std::move(value)}};
        target = target.parent_pointer();
    }
    const std::string at = target.to_string();
    std::optional<ordered_json> before = this->value(at);
    if (before == value && mergeId == 0)
        return;
    m_undo->push(new SetJsonValueCommand(this, at, std::move(before), std::move(value), text, mergeId));
}

void ScenarioDocument::removeValue(const std::string& pointer, const QString& text)
{
    std::optional<ordered_json> before = value(pointer);
    if (!before)
        return;
    m_undo->push(new SetJsonValueCommand(this, pointer, std::move(before), std::nullopt, text));
}

void ScenarioDocument::setSection(const std::string& pointer, ordered_json section, const QString& text)
{
    if (section.empty()) {
        removeValue(pointer, text);
        return;
    }
    if (value(pointer) != section)
        setValue(pointer, std::move(section), text);
}

std::optional<ordered_json> ScenarioDocument::value(const std::string& pointer) const
{
    try {
        const Pointer ptr(pointer);
        if (m_root.contains(ptr))
            return m_root.at(ptr);
    } catch (const ordered_json::exception&) {
        // A malformed pointer names nothing.
    }
    return std::nullopt;
}

void ScenarioDocument::applyValue(const std::string& pointer, const std::optional<ordered_json>& value)
{
    applyChange(pointer, this->value(pointer).has_value(), value);
}

void ScenarioDocument::applyChange(const std::string& pointer, bool existedBefore,
                                   const std::optional<ordered_json>& value)
{
    const Pointer ptr(pointer);
    if (ptr.empty()) {
        m_root = value.value_or(ordered_json::object());
    } else {
        const Pointer parentPtr = ptr.parent_pointer();
        ordered_json* parent = m_root.contains(parentPtr) ? &m_root.at(parentPtr) : nullptr;
        const std::string& key = ptr.back();
        if (!value) {
            if (parent && parent->is_array())
                parent->erase(std::stoul(key));
            else if (parent && parent->is_object())
                parent->erase(key);
        } else if (!existedBefore && parent && parent->is_array()) {
            const std::size_t index = std::min<std::size_t>(std::stoul(key), parent->size());
            parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(index), *value);
        } else {
            m_root[ptr] = *value; // creates missing parent objects
        }
    }
    m_validation.reset();
    emit changed(toQString(pointer));
}

const ScenarioDocument::Validation& ScenarioDocument::validate() const
{
    if (m_validation)
        return *m_validation;
    Validation& result = m_validation.emplace();
    try {
        // core reads plain nlohmann::json (key order does not matter to it): converted value by value, no text.
        result.scenario = core::parseScenario(nlohmann::json(m_root), toStdString(m_path));
    } catch (const core::InputError& e) {
        result.error = toQString(e.what());
        result.problems = e.problems();
    } catch (const std::exception& e) {
        result.error = toQString(e.what());
    }
    return result;
}

std::optional<ordered_json> ScenarioDocument::fieldValue(const QString& text)
{
    std::optional<nlohmann::json> value = core::fieldValueFromText(toStdString(text));
    if (!value)
        return std::nullopt;
    return ordered_json(*value); // a scalar: nothing to order; an infinity survives (a dump would make it null)
}

QString ScenarioDocument::checkField(const std::string& pointer, const ordered_json& value) const
{
    // One copy of the document per check, converted without a trip through text and moved into core's trial edit.
    return toQString(
        core::checkFieldValue(nlohmann::json(m_root), pointer, nlohmann::json(value), toStdString(m_path)));
}

} // namespace coh::ui
