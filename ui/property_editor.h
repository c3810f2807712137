#pragma once
// Properties of the selected node or link. Every edit is document->setValue (typing in a field merges into one
// undo step); values stay unit strings as in the scenario format ("450 GB/s"). After each change the document
// is validated through core and fields whose JSON pointer has a problem turn red with core's message.

#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTimer;

namespace coh::ui {

class MemoryTierTable;
class ScenarioDocument;

class PropertyEditor : public QWidget {
    Q_OBJECT
  public:
    explicit PropertyEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    // Shows the one selected node or link; anything else shows a hint.
    void showItems(const QStringList& nodeIds, const QStringList& linkIds);
    QString currentNodeId() const { return m_nodeId; }
    QString currentLinkId() const { return m_linkId; }
    // Runs validation now instead of on the next event-loop turn (tests, and after a save).
    void validateNow();

  private:
    struct Field {
        QLineEdit* edit;
        std::string key; // below the node or link pointer, e.g. "/compute/peak_flops"
    };
    QWidget* buildNodePage();
    QWidget* buildLinkPage();
    QLineEdit* addField(std::vector<Field>& fields, const std::string& key, const QString& objectName);
    QComboBox* addChoice(const QString& objectName, const QStringList& items);
    std::string currentPointer() const;
    void onDocumentChanged();
    void refresh();
    void commitField(QLineEdit* edit, const std::string& key);
    void commitChoice(const std::string& key, const QString& text);
    void commitNodeId();
    void commitLinkId();
    void sealTyping();

    ScenarioDocument* m_document;
    QStackedWidget* m_pages;
    QString m_nodeId;
    QString m_linkId;
    QLineEdit* m_activeEdit = nullptr; // the field being typed in is not overwritten by refresh
    bool m_refreshing = false;
    QTimer* m_validateTimer;

    QLineEdit* m_nodeIdEdit = nullptr;
    QComboBox* m_kind = nullptr;
    QComboBox* m_role = nullptr;
    std::vector<Field> m_nodeFields;
    MemoryTierTable* m_tiers = nullptr;
    QLabel* m_nodeProblems = nullptr;

    QLineEdit* m_linkIdEdit = nullptr;
    QComboBox* m_linkA = nullptr;
    QComboBox* m_linkB = nullptr;
    QComboBox* m_linkKind = nullptr;
    std::vector<Field> m_linkFields;
    QLabel* m_linkProblems = nullptr;
};

} // namespace coh::ui
