#pragma once
// Binds plain form widgets to JSON pointers of a ScenarioDocument: a commit is one document->setValue (one undo
// step) and a document change refreshes every bound widget. Values are passed through as typed (a number stays
// a number, "2 ms" stays a string) so core, not the form, judges them; Problems shows what it says.

#include <nlohmann/json.hpp>

#include <QObject>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QComboBox;
class QLineEdit;
class QWidget;

namespace coh::ui {

class ScenarioDocument;

class ScenarioFields : public QObject {
    Q_OBJECT
  public:
    ScenarioFields(ScenarioDocument* document, QObject* parent);

    // A free-text field; `removeWhenEmpty` drops optional keys instead of storing "".
    QLineEdit* text(const std::string& pointer, const QString& label, bool removeWhenEmpty, QWidget* parent);
    // A number or quantity: "42" -> 42, "2.5" -> 2.5, "1 s" -> "1 s"; empty removes the key (core's default,
    // shown as the placeholder).
    QLineEdit* value(const std::string& pointer, const QString& label, const QString& defaultText, QWidget* parent);
    // A fixed list of string values; the first item is "(default: …)" and removes the key when `defaultText`
    // is not empty.
    QComboBox* choice(const std::string& pointer, const QString& label, const QStringList& values,
                      const QString& defaultText, QWidget* parent);

    // Reads every bound widget back from the document (signals blocked).
    void refresh();

    static nlohmann::ordered_json parseValue(const QString& text);
    static QString valueText(const nlohmann::ordered_json& value);

  private:
    enum class Kind { Text, TextOptional, Value, Choice };
    struct Binding {
        std::string pointer;
        QWidget* widget;
        Kind kind;
        QString label;
    };
    void commit(const Binding& binding);

    ScenarioDocument* m_document;
    std::vector<Binding> m_bindings;
};

} // namespace coh::ui
