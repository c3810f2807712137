#pragma once
// Binds form widgets to JSON pointers of a ScenarioDocument. Line edits are FieldEdits: a value core's loader would
// refuse is refused at the field in core's words; a stored one is one undo step named in words ("Edit workload
// rate"). A document change refreshes every bound widget; showProblems() turns the widgets that core's validation
// names red (every bound one, and any watched one, such as a form's own combo box).

#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QComboBox;
class QWidget;

namespace coh::ui {

class FieldEdit;
class ScenarioDocument;

class ScenarioFields : public QObject {
    Q_OBJECT
  public:
    ScenarioFields(ScenarioDocument* document, QObject* parent);

    // Free text; `removeWhenEmpty` drops optional keys instead of storing "". `what` names the field in words.
    FieldEdit* text(const std::string& pointer, const QString& what, bool removeWhenEmpty, QWidget* parent);
    // A number or quantity: "42" -> 42, "2.5" -> 2.5, "1 s" -> "1 s"; empty removes the key (core's default,
    // shown as the placeholder).
    FieldEdit* value(const std::string& pointer, const QString& what, const QString& defaultText, QWidget* parent);
    // A fixed list of string values; the first item is "(default: …)" and removes the key when `defaultText`
    // is not empty.
    QComboBox* choice(const std::string& pointer, const QString& what, const QStringList& values,
                      const QString& defaultText, QWidget* parent);
    // A widget the form edits itself, marked by the problems at `pointer`.
    void watch(QWidget* widget, const std::string& pointer);

    // Reads every bound widget back from the document (signals blocked).
    void refresh();
    // Marks every bound and watched widget with core's problems at its pointer.
    void showProblems(const std::vector<core::InputProblem>& problems);

    // A table cell's text as the value it stands for (ScenarioDocument::fieldValue; text when it is no number).
    static nlohmann::ordered_json parseValue(const QString& text);
    static QString valueText(const nlohmann::ordered_json& value);

  private:
    struct Choice {
        std::string pointer;
        QComboBox* combo;
        QString what;
    };
    void commit(const Choice& choice);

    ScenarioDocument* m_document;
    std::vector<FieldEdit*> m_edits;
    std::vector<Choice> m_choices;
    std::vector<std::pair<QWidget*, std::string>> m_watched;
};

} // namespace coh::ui
