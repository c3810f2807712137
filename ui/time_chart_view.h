#pragma once
// A chart whose x axis is simulated time (seconds): shows a vertical cursor at the replay's time and turns
// a click in the plot area into a time, so charts and replay stay on the same moment.
#include "ui/chart_view.h"

class QAbstractSeries;
class QLineSeries;
class QValueAxis;

namespace coh::ui {

class TimeChartView : public ChartView {
    Q_OBJECT
  public:
    TimeChartView(const QString& title, const QString& yTitle, QWidget* parent = nullptr);

    QValueAxis* axisX() const { return m_axisX; }
    QValueAxis* axisY() const { return m_axisY; }
    QLineSeries* cursor() const { return m_cursor; }

    // Adds a data series on this chart's axes (QLineSeries, QScatterSeries or QAreaSeries).
    void addData(QAbstractSeries* series);
    // Removes every data series, keeps the cursor.
    void clearData();
    // x over [0, xMax] seconds, y over [0, yMax], both rounded out to round ticks (nice_ticks.h).
    void setRanges(double xMax, double yMax);
    void setYTitle(const QString& title);

    void setCursorTime(qint64 ns);
    qint64 cursorTime() const { return m_cursorTime; }
    // The simulated time under a viewport position, or -1 outside the plot area.
    qint64 timeAt(QPointF viewportPos) const;

  signals:
    void timeClicked(qint64 ns);

  protected:
    void mousePressEvent(QMouseEvent* event) override;

  private:
    void placeCursor();
    void colorCursor();

    QValueAxis* m_axisX = nullptr;
    QValueAxis* m_axisY = nullptr;
    QLineSeries* m_cursor = nullptr;
    qint64 m_cursorTime = 0;
};

} // namespace coh::ui
