#pragma once
// The replay's drawing surface: the topology, links shaded by utilisation at t, and every in-flight message
// as a marker. All markers of one role go out in one QPainter::drawRects call from a reused buffer; above
// the level-of-detail threshold the markers on screen are summed per link direction into density bars.
#include "ui/message_roles.h"
#include "ui/replay_model.h"

#include <QHash>
#include <QPixmap>
#include <QVector>
#include <QWidget>

#include <array>
#include <memory>
#include <vector>

namespace coh::ui {

class ReplayCanvas : public QWidget {
    Q_OBJECT
  public:
    // PerMarker exists so the benchmark can show what batching buys; the view always uses Batched.
    enum class MarkerDrawing { Batched, PerMarker };
    static constexpr int kDefaultLodThreshold = 2000;

    explicit ReplayCanvas(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const ReplayModel> model);
    const ReplayModel* model() const { return m_model.get(); }
    void setTime(qint64 t);
    qint64 time() const { return m_time; }

    void setLodThreshold(int markers);
    int lodThreshold() const { return m_lodThreshold; }
    void setMarkerDrawing(MarkerDrawing drawing) { m_drawing = drawing; }
    // What the last painted frame showed: markers on screen, and whether they were aggregated into bars.
    int visibleMarkerCount() const { return m_visibleMarkers; }
    bool isAggregated() const { return m_aggregated; }
    // Frames painted on screen so far; the replay widget turns it into frames per second.
    quint64 framesPainted() const { return m_frames; }

    // Zoom is a scale from scene to widget pixels; pan is the widget position of the scene origin.
    double zoom() const { return m_scale; }
    void zoomBy(double factor, QPointF anchor);
    void fitToView();
    QPointF mapFromScene(QPointF scenePos) const { return scenePos * m_scale + m_offset; }
    QPointF mapToScene(QPointF widgetPos) const { return (widgetPos - m_offset) / m_scale; }

    // One frame into any painter over a viewport of this widget's coordinates (paintEvent, benchmark, export).
    void paintFrame(QPainter& painter, const QRect& viewport);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

  private:
    void collectMarkers(const QRect& viewport);
    void paintLinks(QPainter& painter) const;
    void paintDensityBars(QPainter& painter) const;
    void paintMarkers(QPainter& painter) const;
    void paintNodes(QPainter& painter);
    void paintNodeBlocks(QPainter& painter, std::uint32_t node, QPointF top);
    const QPixmap& iconFor(const QString& kind);

    std::shared_ptr<const ReplayModel> m_model;
    qint64 m_time = 0;
    int m_lodThreshold = kDefaultLodThreshold;
    MarkerDrawing m_drawing = MarkerDrawing::Batched;
    double m_scale = 1;
    QPointF m_offset;
    bool m_userZoomed = false;
    bool m_panning = false;
    QPointF m_panStart;

    // Frame buffers, reused so a frame allocates nothing once warm.
    std::vector<std::uint32_t> m_inFlight;
    std::array<QVector<QRect>, kMessageRoleCount> m_rectsByRole;
    std::vector<std::array<int, kMessageRoleCount>> m_linkRoleCounts; // per link direction (2 per link)
    int m_visibleMarkers = 0;
    bool m_aggregated = false;
    quint64 m_frames = 0;
    QHash<QString, QPixmap> m_icons;
};

} // namespace coh::ui
