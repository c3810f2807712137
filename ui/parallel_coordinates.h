#pragma once
// A parallel-coordinates view of a study's points: one vertical axis per varied field and per objective, one line
// per point through its values. Lines of the Pareto front and of the points that meet the constraints stand out;
// dragging along an axis keeps only the lines inside that range (on several axes: inside every range), the way
// one reads which settings lead to a good region; clicking a line asks for its run.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace coh::ui {

struct ParallelAxis {
    QString title;
    QStringList categories;    // non-empty: a categorical axis, values are indices into it
    bool smallerAtTop = false; // a minimised objective: the better end on top, as for a maximised one
    bool logScale = false;     // positions by the logarithm (a log-scale field); needs positive values
};

struct ParallelLine {
    enum class Kind { Other, Feasible, Front };
    std::vector<double> values; // one per axis; NaN where the point has none (a point without metrics)
    Kind kind = Kind::Other;
    qint64 runId = 0; // 0: no run to open
};

class ParallelCoordinatesView : public QWidget {
    Q_OBJECT
  public:
    explicit ParallelCoordinatesView(QWidget* parent = nullptr);

    // Replaces what is shown; brushes are kept where the axes keep their titles.
    void setData(std::vector<ParallelAxis> axes, std::vector<ParallelLine> lines);
    const std::vector<ParallelAxis>& axes() const { return m_axes; }
    const std::vector<ParallelLine>& lines() const { return m_lines; }
    // The front's and the feasible points' colours (a scatter beside the view should agree with it).
    void setKindColors(const QColor& front, const QColor& feasible);
    QColor frontColor() const { return m_front; }
    QColor feasibleColor() const { return m_feasible; }

    // The range kept on axis `axis`, as fractions of its height from the bottom (0) to the top (1); none: all.
    void setBrush(int axis, std::optional<std::pair<double, double>> range);
    std::optional<std::pair<double, double>> brush(int axis) const;
    void clearBrushes();
    bool passes(int line) const; // inside every brush
    int passingCount() const;

    // Geometry, for tests and the mouse: where axis `axis` is drawn, and the line drawn nearest `at` (within a few
    // pixels; front lines first, then those meeting the constraints), or -1.
    double axisX(int axis) const;
    QPointF pointOf(int line, int axis) const; // NaN y when the line has no value there
    int lineAt(const QPointF& at) const;

    QSize sizeHint() const override { return {640, 300}; }
    QSize minimumSizeHint() const override { return {240, 120}; }

  signals:
    void lineClicked(qint64 runId);
    void brushesChanged(int passing); // lines inside every brush

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    QRectF plotRect() const;
    bool oneLineTitles() const { return height() < 260; } // titles on one line
    double fraction(int axis, double value) const;        // 0 bottom .. 1 top; NaN when the value is
    double fractionAtY(double y) const;
    int axisNear(double x) const;
    QString valueText(int axis, double value) const;
    void paintAxis(QPainter& painter, int axis) const;
    void updateRanges();

    std::vector<ParallelAxis> m_axes;
    std::vector<ParallelLine> m_lines;
    std::vector<std::pair<double, double>> m_ranges; // per numeric axis: min and max of its values
    std::vector<std::optional<std::pair<double, double>>> m_brushes;
    int m_dragAxis = -1;
    double m_dragFrom = 0; // fraction where the drag began
    QPointF m_pressAt;
    int m_hover = -1;
    QColor m_front{230, 81, 0}, m_feasible{33, 150, 243};
};

} // namespace coh::ui
