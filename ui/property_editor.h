#pragma once
// Properties of the selected node or link. Only the fields the node's kind has are shown (core's node-kind table:
// no Peak FLOP/s on a CXL memory node). Each field is a FieldEdit: a value core's loader would refuse is refused
// at the field, in core's words, and never stored; a stored value is one undo step named in words. After each
// change the document is validated through core and fields whose JSON pointer has a problem turn red.

#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTimer;

namespace coh::ui {

class FieldEdit;
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
    QWidget* buildNodePage();
    QWidget* buildLinkPage();
    struct Field {
        FieldEdit* edit;
        std::string key; // below the node or link pointer, e.g. "/compute/peak_flops"
    };
    FieldEdit* addField(std::vector<Field>& fields, const std::string& key, const QString& objectName,
                        const QString& what);
    QComboBox* addChoice(const QString& objectName, const QStringList& items);
    std::string currentPointer() const;
    void onDocumentChanged();
    void refresh();
    void commitChoice(const std::string& key, const QString& text, const QString& what);
    void commitKind(const QString& kind);
    void commitNodeId();
    void commitLinkId();

    ScenarioDocument* m_document;
    QStackedWidget* m_pages;
    QString m_nodeId;
    QString m_linkId;
    bool m_refreshing = false;
    QTimer* m_validateTimer;

    std::vector<Field> m_nodeFields;
    std::vector<Field> m_linkFields;

    QLineEdit* m_nodeIdEdit = nullptr;
    QComboBox* m_kind = nullptr;
    QComboBox* m_role = nullptr;
    QGroupBox* m_compute = nullptr;
    QGroupBox* m_memory = nullptr;
    MemoryTierTable* m_tiers = nullptr;
    QLabel* m_nodeProblems = nullptr;

    QLineEdit* m_linkIdEdit = nullptr;
    QComboBox* m_linkA = nullptr;
    QComboBox* m_linkB = nullptr;
    QComboBox* m_linkKind = nullptr;
    QLabel* m_linkProblems = nullptr;
};

} // namespace coh::ui
