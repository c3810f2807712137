#pragma once
// The six node kinds, each an icon with its name below, in a narrow column beside the canvas: drag one onto the
// canvas, or double-click to add it at the centre.

#include <QListWidget>

namespace coh::ui {

class NodePalette : public QListWidget {
    Q_OBJECT
  public:
    explicit NodePalette(QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    // The kind (cpu_socket, gpu, ...) of a row.
    QString kindAt(int row) const;
    int rowOf(const QString& kind) const;

  signals:
    void nodeRequested(const QString& kind);

  protected:
    static constexpr int kCellWidth = 84; // "CXL memory" under its icon
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
    Qt::DropActions supportedDropActions() const override;
};

} // namespace coh::ui
