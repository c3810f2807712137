#pragma once
// The replay's message inspector: the recorded messages as a filterable list (node, link, kind or role, block,
// request) above the details of the selected one, including the protocol transition that sent it. Selecting a
// row emits messageActivated; selectMessage() shows a message picked elsewhere (a click on its marker).
#include "ui/replay_message_list.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTableView;
class QTextBrowser;

namespace coh::ui {

class ReplayInspector : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayInspector(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const ReplayModel> model);
    // Shows the message's details and selects its row when the filter lets it through; -1 clears.
    void selectMessage(int message);
    int selectedMessage() const { return m_selected; }
    // Roles the legend hides are left out of the list too.
    void setHiddenRoles(const std::array<bool, kMessageRoleCount>& hidden);

    QTableView* table() const { return m_table; }
    QTextBrowser* details() const { return m_details; }
    ReplayMessageFilter* filterModel() const { return m_filter; }
    QComboBox* nodeFilter() const { return m_node; }
    QComboBox* linkFilter() const { return m_link; }
    QComboBox* kindFilter() const { return m_kind; }
    QLineEdit* blockFilter() const { return m_block; }
    QLineEdit* requestFilter() const { return m_request; }
    QString countText() const;

  signals:
    void messageActivated(int message);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void fillFilters();
    void applyFilter();
    void showDetails();
    void rowChanged(const QModelIndex& current);
    // Until the user drags the list/details splitter: the details get the room their text needs, at least the
    // protocol step's (which comes first), up to what leaves the list its minimum.
    void fitDetails();

    std::shared_ptr<const ReplayModel> m_model;
    ReplayMessageModel* m_messages = nullptr;
    ReplayMessageFilter* m_filter = nullptr;
    QComboBox* m_node = nullptr;
    QComboBox* m_link = nullptr;
    QComboBox* m_kind = nullptr;
    QLineEdit* m_block = nullptr;
    QLineEdit* m_request = nullptr;
    QLabel* m_count = nullptr;
    QTableView* m_table = nullptr;
    QTextBrowser* m_details = nullptr;
    QSplitter* m_split = nullptr;
    std::array<bool, kMessageRoleCount> m_hidden{};
    int m_selected = -1;
    bool m_syncing = false;   // selecting a row for selectMessage(): not a user's pick
    bool m_userSplit = false; // the user dragged the list/details splitter: their sizes stay
};

} // namespace coh::ui
