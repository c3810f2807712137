#pragma once
// A chart view that reads: styled from the palette (dark or light) and kept so, a message instead of bare
// axes when there is nothing to show, and a tooltip with the exact value under the mouse.
#include <QChartView>
#include <QString>

#include <functional>

class QAreaSeries;
class QBarSet;
class QLabel;
class QValueAxis;
class QXYSeries;

namespace coh::ui {

class ChartView : public QChartView {
    Q_OBJECT
  public:
    explicit ChartView(const QString& title, QWidget* parent = nullptr);

    // Re-applies the palette's style to the chart; call after adding axes (styleChart skips none).
    void restyle();

    // With text: the axes, series and legend are hidden and the text is shown in the middle. Empty: shown again.
    void setEmptyText(const QString& text);
    bool isEmptyStateShown() const;
    QLabel* emptyLabel() const { return m_empty; }

    // Hovering a point, bar or area shows text(...) as a tooltip; hoverText() is what it last showed (empty once
    // the mouse has left), so tests can read it.
    void hoverPoints(QXYSeries* series, std::function<QString(const QPointF& point)> text);
    void hoverBars(QBarSet* set, std::function<QString(int index)> text);
    void hoverArea(QAreaSeries* series, std::function<QString(const QPointF& point)> text);
    QString hoverText() const { return m_hoverText; }

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void showHover(const QString& text);
    void placeEmptyLabel();

    QLabel* m_empty = nullptr;
    QString m_hoverText;
};

// Sets `axis` to round ticks covering [lo, hi] (nice_ticks.h) with as many decimals as they need.
void setNiceRange(QValueAxis* axis, double lo, double hi, int maxTicks = 6);

} // namespace coh::ui
