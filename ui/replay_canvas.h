#pragma once
// The replay's drawing surface: the topology, links shaded by utilisation at t, and every in-flight message
// as a marker. All markers of one role go out in one QPainter::drawRects call from a reused buffer; above
// the level-of-detail threshold the markers on screen are summed per link direction into density bars.
// A click on a marker selects its message (drawn ringed, its route highlighted); hovering a node, a link or a
// marker shows what it is. Each node's label sits under it on an opaque plate painted over the links. A node down at
// t (a failure of the run) is drawn faded and hatched in the error tone, with a "down" badge above it that adds
// "detected" once the cluster knows.
#include "ui/message_roles.h"
#include "ui/replay_model.h"

#include <QHash>
#include <QLineF>
#include <QPixmap>
#include <QVector>
#include <QWidget>

#include <array>
#include <memory>
#include <utility>
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

    // Roles whose markers are not drawn (the legend's switches).
    void setHiddenRoles(const std::array<bool, kMessageRoleCount>& hidden);
    // The message drawn as selected, -1 for none.
    void setSelectedMessage(int message);
    int selectedMessage() const { return m_selected; }

    // What is under a widget position at the current time: the nearest visible marker's message, node or link;
    // -1 when none. Markers are found from the in-flight set (O(log n + k)), only when asked.
    int messageAt(QPointF pos) const;
    int nodeAt(QPointF pos);
    int linkAt(QPointF pos) const;
    // Where a node's label may extend at the current zoom (its plate is at most this big), and whether it was
    // moved off its usual place under the icon; the drawn link segments (widget coordinates).
    QRectF labelRect(std::uint32_t node);
    bool labelDisplaced(std::uint32_t node);
    std::vector<QLineF> linkSegments() const;
    QString toolTipAt(QPointF pos);

    // The block counts the last frame drew, for checks: node, state, count and colour.
    struct Badge {
        std::uint32_t node = 0;
        QString state;
        double blocks = 0;
        QColor colour;
    };
    const std::vector<Badge>& lastBadges() const { return m_badges; }
    // The label plates the last frame drew, per node (each inside its labelRect).
    const std::vector<QRectF>& lastPlates() const { return m_plates; }
    // The nodes the last frame drew as down, with their badge (widget coordinates) and its text.
    struct DownNode {
        std::uint32_t node = 0;
        bool detected = false;
        QRectF badge;
        QString text;
    };
    const std::vector<DownNode>& lastDownNodes() const { return m_downNodes; }

  signals:
    // A click (not a drag) on the canvas: the message under it, or -1.
    void messageClicked(int message);

  protected:
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
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
    void paintSelection(QPainter& painter) const;
    void paintNodes(QPainter& painter);
    void layoutLabels();
    void paintLeaders(QPainter& painter) const;
    void paintLabels(QPainter& painter);
    void paintDownBadges(QPainter& painter);
    const QPixmap& plateFor(QSize size, qreal pixelRatio);
    const QPixmap& iconFor(const QString& kind);
    void updateColours();
    void updateLabelSizes();
    void updateLabels();
    QPointF markerPos(std::uint32_t message) const; // widget position, with the per-message offset

    std::shared_ptr<const ReplayModel> m_model;
    qint64 m_time = 0;
    int m_lodThreshold = kDefaultLodThreshold;
    MarkerDrawing m_drawing = MarkerDrawing::Batched;
    double m_scale = 1;
    QPointF m_offset;
    bool m_userZoomed = false;
    bool m_panning = false;
    bool m_dragged = false;
    QPointF m_panStart;
    QPointF m_pressAt;
    std::array<bool, kMessageRoleCount> m_hidden{};
    int m_selected = -1;

    // Palette-derived colours, recomputed when the base or the text colour changes.
    std::pair<QRgb, QRgb> m_coloursFor;
    bool m_coloursValid = false;
    std::array<QColor, kMessageRoleCount> m_roleColours;
    std::array<QColor, 4> m_stateColours; // per BlockStateClass: a search for a readable shade, done once
    QColor m_unknownStateColour;          // a state the KV protocol's table does not have
    QColor m_idleLink;
    QColor m_plateBorder;
    QColor m_failure;     // a down node's hatching and outline: the error tone, readable on the base
    QColor m_failureText; // the text on its badge, which is filled with m_failure
    // Each label's plate at its largest (every state at its peak): fixed for a run and a font.
    std::vector<QSizeF> m_labelSizes;
    bool m_labelSizesValid = false;
    // Label places in widget pixels, recomputed when the view, its size or the font changes.
    std::vector<QRectF> m_labels;
    std::vector<bool> m_labelDisplaced;
    double m_labelsScale = 0;
    QPointF m_labelsOffset;
    QSize m_labelsSize;
    bool m_labelsValid = false;

    // Frame buffers, reused so a frame allocates nothing once warm.
    std::vector<std::uint32_t> m_inFlight;
    std::array<QVector<QRect>, kMessageRoleCount> m_rectsByRole;
    std::vector<std::array<int, kMessageRoleCount>> m_linkRoleCounts; // per link direction (2 per link)
    int m_visibleMarkers = 0;
    bool m_aggregated = false;
    quint64 m_frames = 0;
    QHash<QString, QPixmap> m_icons;
    std::vector<Badge> m_badges;
    // What each label shows this frame: its plate, its block counts and how they break into lines.
    struct LabelLayout {
        QRectF plate;
        std::vector<ReplayModel::StateBlocks> blocks;
        std::vector<QString> parts;
        std::vector<double> widths;
        std::vector<std::vector<std::size_t>> lines;
    };
    std::vector<LabelLayout> m_labelLayouts;           // cleared when the model or the font changes
    std::vector<ReplayModel::StateBlocks> m_nowBlocks; // a node's blocks at t, before they are compared
    std::vector<QRectF> m_plates;
    std::vector<DownNode> m_downNodes;
    // Plates drawn once per size and palette: blitting one costs a fraction of filling an antialiased rounded rect.
    QHash<quint64, QPixmap> m_plateCache;
};

} // namespace coh::ui
