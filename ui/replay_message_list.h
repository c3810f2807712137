#pragma once
// The run's event record as a table (one row per recorded message, in start order) and the filter the inspector
// puts over it: by node (either end), link (on the route), kind or role, block, request, and the roles the
// legend hides. The filter reads the records directly, so filtering 100,000 rows takes milliseconds.
#include "ui/message_roles.h"
#include "ui/replay_model.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <array>
#include <memory>
#include <optional>

namespace coh::ui {

class ReplayMessageModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Start, Kind, Route, Request, Blocks, Bytes, ColumnCount };
    static constexpr int MessageRole = Qt::UserRole; // the row's index into RunResult::messages

    explicit ReplayMessageModel(QObject* parent = nullptr);
    void setModel(std::shared_ptr<const ReplayModel> model);
    const ReplayModel* replayModel() const { return m_model.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::shared_ptr<const ReplayModel> m_model;
};

struct MessageFilter {
    int node = -1, link = -1, kind = -1, role = -1; // -1: any
    std::optional<std::uint32_t> block, request;
    std::array<bool, kMessageRoleCount> hiddenRoles{};
};

class ReplayMessageFilter : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit ReplayMessageFilter(QObject* parent = nullptr);
    void setFilter(const MessageFilter& filter);
    const MessageFilter& filter() const { return m_filter; }
    // Whether the message passes the filter (whether a row shows it).
    bool accepts(std::uint32_t message) const;

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    MessageFilter m_filter;
};

} // namespace coh::ui
