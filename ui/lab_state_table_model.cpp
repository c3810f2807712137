#include "ui/lab_state_table_model.h"

#include "core/coherence/step_record.h"
#include "ui/lab_model.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QGuiApplication>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QString joinNames(const std::vector<std::string>& names)
{
    QStringList list;
    for (const std::string& n : names)
        list << toQString(n);
    return QLatin1Char('{') + list.join(QLatin1Char(',')) + QLatin1Char('}');
}

} // namespace

LabStateTableModel::LabStateTableModel(LabModel* lab, QObject* parent)
    : QAbstractTableModel(parent)
    , m_lab(lab)
{
    m_rows = m_lab->caches() + 1;
    connect(m_lab, &LabModel::changed, this, &LabStateTableModel::reload);
    // The highlight is a tint of the palette: recolour when the palette changes.
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, &LabStateTableModel::reload);
}

void LabStateTableModel::reload()
{
    // The whole snapshot changes with every step: a reset is simpler and as cheap as per-cell signals here.
    beginResetModel();
    m_rows = m_lab->caches() + 1;
    endResetModel();
}

int LabStateTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int LabStateTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool LabStateTableModel::isDirectoryRow(int row) const
{
    return row == m_rows - 1;
}

QString LabStateTableModel::cellText(int row, int column, bool previous) const
{
    const co::StepRecord& s = previous ? m_lab->previous() : m_lab->current();
    if (isDirectoryRow(row)) {
        switch (column) {
        case StateColumn:
            return toQString(s.directory.state);
        case SharersColumn:
            return joinNames(s.directory.sharers);
        case OwnerColumn:
            return s.directory.owner.empty() ? QStringLiteral("-") : toQString(s.directory.owner);
        case MemoryColumn:
            return QString::number(s.directory.memory);
        default:
            return {};
        }
    }
    if (row < 0 || static_cast<std::size_t>(row) >= s.caches.size())
        return {};
    const co::CacheView& c = s.caches[static_cast<std::size_t>(row)];
    if (column == StateColumn)
        return toQString(c.state);
    if (column == DataColumn)
        return c.data ? QString::number(*c.data) : QStringLiteral("-");
    return {};
}

QString LabStateTableModel::stateMeaning(int row) const
{
    const co::Protocol& p = m_lab->protocol();
    const co::ControllerTable& table = isDirectoryRow(row) ? p.directory : p.cache;
    const int state = table.findState(toStdString(cellText(row, StateColumn, false)));
    if (state < 0)
        return {};
    const co::StateInfo& info = table.states[static_cast<std::size_t>(state)];
    return tr("%1 (%2, %3): %4")
        .arg(toQString(info.name), info.stable ? tr("stable") : tr("transient"),
             toQString(co::permissionName(info.permission)), toQString(info.meaning));
}

QVariant LabStateTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int row = index.row();
    const int column = index.column();
    const bool changed = m_lab->currentStep() > 0 && cellText(row, column, false) != cellText(row, column, true);
    switch (role) {
    case Qt::DisplayRole:
        return cellText(row, column, false);
    case ChangedRole:
        return changed;
    case Qt::BackgroundRole:
        return changed ? QVariant(QBrush(toneFill(Tone::Warning, QGuiApplication::palette()))) : QVariant();
    case Qt::FontRole: {
        if (!changed)
            return {};
        QFont font;
        font.setBold(true);
        return font;
    }
    case Qt::ToolTipRole:
        return column == StateColumn ? QVariant(stateMeaning(row)) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignCenter);
    default:
        return {};
    }
}

QVariant LabStateTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= m_rows)
            return {};
        return isDirectoryRow(section) ? toQString(co::homeName(m_lab->protocol().home))
                                       : QStringLiteral("P%1").arg(section);
    }
    switch (section) {
    case StateColumn:
        return tr("State");
    case DataColumn:
        return tr("Data");
    case SharersColumn:
        return tr("Sharers");
    case OwnerColumn:
        return tr("Owner");
    case MemoryColumn:
        return tr("Memory");
    default:
        return {};
    }
}

} // namespace coh::ui
