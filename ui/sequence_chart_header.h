#pragma once
// The lifeline names of a SequenceChart (P0, P1, ..., Dir), drawn above the chart's scroll area so they stay in
// view however far down the run the chart is scrolled, and aligned with the lifelines as the chart scrolls sideways.
#include <QWidget>

namespace coh::ui {

class SequenceChart;

class SequenceChartHeader : public QWidget {
    Q_OBJECT
  public:
    explicit SequenceChartHeader(SequenceChart* chart, QWidget* parent = nullptr);

    // The name box of a lifeline, in this widget's coordinates.
    QRectF nameRect(int lifeline) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    qreal offset() const; // the chart's x in this widget's coordinates

    SequenceChart* m_chart;
};

} // namespace coh::ui
