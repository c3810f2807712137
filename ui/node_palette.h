#pragma once
// The six node kinds with their icons: drag one onto the canvas, or double-click to add it at the centre.

#include <QListWidget>

namespace coh::ui {

class NodePalette : public QListWidget {
    Q_OBJECT
  public:
    explicit NodePalette(QWidget* parent = nullptr);

    // The kind (cpu_socket, gpu, ...) of a row.
    QString kindAt(int row) const;
    int rowOf(const QString& kind) const;

  signals:
    void nodeRequested(const QString& kind);

  protected:
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
    Qt::DropActions supportedDropActions() const override;
};

} // namespace coh::ui
