#include "ui/node_palette.h"

#include "ui/topology_defaults.h"
#include "ui/topology_view.h"

#include <QMimeData>
#include <QScrollBar>

namespace coh::ui {

NodePalette::NodePalette(QWidget* parent)
    : QListWidget(parent)
{
    setObjectName(QStringLiteral("nodePalette"));
    // A narrow column of icons with their names below: the canvas keeps the width (at 1024x700 the whole tab is
    // 680 px wide, and the largest preset must still fit with readable ids).
    setViewMode(IconMode);
    setFlow(TopToBottom);
    setWrapping(false);
    setMovement(Static);
    setResizeMode(Adjust);
    setWordWrap(true);
    setIconSize(QSize(32, 32));
    setGridSize(QSize(kCellWidth, 62));
    setSpacing(0);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    setDragEnabled(true);
    setDragDropMode(DragOnly);
    setDefaultDropAction(Qt::CopyAction);
    setSelectionMode(SingleSelection);
    for (const QString& kind : nodeKindNames()) {
        auto* item = new QListWidgetItem(QIcon(QStringLiteral(":/icons/%1.svg").arg(kind)), nodeKindLabel(kind), this);
        item->setData(Qt::UserRole, kind);
        item->setToolTip(
            tr("Drag onto the canvas, or double-click to add a %1 at the centre").arg(nodeKindLabel(kind)));
    }
    connect(this, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem* item) { emit nodeRequested(item->data(Qt::UserRole).toString()); });
}

QSize NodePalette::sizeHint() const
{
    return {minimumSizeHint().width(), QListWidget::sizeHint().height()};
}

QSize NodePalette::minimumSizeHint() const
{
    // One column of cells, its frame and a vertical scroll bar for short windows.
    return {kCellWidth + 2 * frameWidth() + verticalScrollBar()->sizeHint().width(), 3 * gridSize().height()};
}

QString NodePalette::kindAt(int row) const
{
    const QListWidgetItem* row_ = item(row);
    return row_ ? row_->data(Qt::UserRole).toString() : QString();
}

int NodePalette::rowOf(const QString& kind) const
{
    for (int row = 0; row < count(); ++row)
        if (kindAt(row) == kind)
            return row;
    return -1;
}

Qt::DropActions NodePalette::supportedDropActions() const
{
    return Qt::CopyAction; // the palette hands out copies; its entries never move
}

QStringList NodePalette::mimeTypes() const
{
    return {TopologyView::nodeKindMimeType()};
}

QMimeData* NodePalette::mimeData(const QList<QListWidgetItem*>& items) const
{
    if (items.isEmpty())
        return nullptr;
    auto* data = new QMimeData;
    data->setData(TopologyView::nodeKindMimeType(), items.first()->data(Qt::UserRole).toString().toUtf8());
    return data;
}

} // namespace coh::ui
