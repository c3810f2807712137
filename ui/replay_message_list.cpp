#include "ui/replay_message_list.h"

#include "ui/qt_text.h"
#include "ui/replay_tooltips.h"
#include "ui/timeline_bar.h"

#include <QPixmap>

#include <algorithm>

namespace coh::ui {

ReplayMessageModel::ReplayMessageModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ReplayMessageModel::setModel(std::shared_ptr<const ReplayModel> model)
{
    beginResetModel();
    m_model = std::move(model);
    endResetModel();
}

int ReplayMessageModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_model || m_model->isEmpty())
        return 0;
    return static_cast<int>(m_model->run()->messages.size());
}

int ReplayMessageModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReplayMessageModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_model || index.row() >= rowCount())
        return {};
    const auto id = static_cast<std::uint32_t>(index.row());
    const core::RunResult& run = *m_model->run();
    const core::MessageRecord& m = run.messages[id];
    if (role == MessageRole)
        return static_cast<qulonglong>(id);
    if (role == Qt::DecorationRole && index.column() == Kind) {
        QPixmap swatch(10, 10);
        swatch.fill(messageRoleColor(m_model->role(id)));
        return swatch;
    }
    if (role == Qt::TextAlignmentRole && index.column() != Kind && index.column() != Route)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const auto node = [&](std::uint32_t n) {
        return n < m_model->scene().nodes.size() ? m_model->scene().nodes[n].id : QString::number(n);
    };
    switch (index.column()) {
    case Start:
        return TimelineBar::formatTime(m.start);
    case Kind:
        return m.kind < run.summary.messagesByKind.size() ? toQString(run.summary.messagesByKind[m.kind].name)
                                                          : QString::number(m.kind);
    case Route:
        return tr("%1 → %2").arg(node(m.src), node(m.dst));
    case Request:
        return m.request;
    case Blocks:
        return m.blockCount == 1 ? QString::number(m.firstBlock) : tr("%1 from %2").arg(m.blockCount).arg(m.firstBlock);
    case Bytes:
        return formatBytes(m.bytes);
    }
    return {};
}

QVariant ReplayMessageModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Start:
        return tr("Start");
    case Kind:
        return tr("Kind");
    case Route:
        return tr("From → to");
    case Request:
        return tr("Request");
    case Blocks:
        return tr("Blocks");
    case Bytes:
        return tr("Bytes");
    }
    return {};
}

ReplayMessageFilter::ReplayMessageFilter(QObject* parent)
    : QSortFilterProxyModel(parent)
{
}

void ReplayMessageFilter::setFilter(const MessageFilter& filter)
{
    m_filter = filter;
    invalidateFilter();
}

bool ReplayMessageFilter::accepts(std::uint32_t message) const
{
    const auto* source = qobject_cast<const ReplayMessageModel*>(sourceModel());
    const ReplayModel* model = source ? source->replayModel() : nullptr;
    if (!model || model->isEmpty() || message >= model->run()->messages.size())
        return false;
    const core::RunResult& run = *model->run();
    const core::MessageRecord& m = run.messages[message];
    const auto role = static_cast<int>(model->role(message));
    const MessageFilter& f = m_filter;
    if (f.hiddenRoles[static_cast<std::size_t>(role)] || (f.role >= 0 && f.role != role))
        return false;
    if (f.kind >= 0 && f.kind != m.kind)
        return false;
    if (f.node >= 0 && static_cast<int>(m.src) != f.node && static_cast<int>(m.dst) != f.node)
        return false;
    if (f.request && *f.request != m.request)
        return false;
    if (f.block && (*f.block < m.firstBlock || *f.block - m.firstBlock >= m.blockCount))
        return false;
    if (f.link >= 0) {
        if (m.path >= run.paths.size())
            return false;
        const auto& links = run.paths[m.path].links;
        if (std::find(links.begin(), links.end(), static_cast<std::uint32_t>(f.link)) == links.end())
            return false;
    }
    return true;
}

bool ReplayMessageFilter::filterAcceptsRow(int sourceRow, const QModelIndex&) const
{
    return accepts(static_cast<std::uint32_t>(sourceRow));
}

} // namespace coh::ui
