#pragma once
// A message sequence chart of the lab run up to the current step: one lifeline per cache and the directory,
// processor ops as boxes, every message as an arrow from its send step to its delivery step, coloured by role;
// a message still in flight is dashed with an open head and numbered as the in-flight list numbers it. The
// lifelines share the chart's width, so every one (the directory's too) is in view; it grows downwards with the
// steps, so put it in a QScrollArea, with a SequenceChartHeader above it for the lifelines' names. Labels never
// overlap: each takes the first free place along its arrow. A click on an arrow or a row selects a step.
#include "ui/lab_message_flow.h"

#include <QLineF>
#include <QRectF>
#include <QWidget>

#include <vector>

namespace coh::ui {

class LabModel;

class SequenceChart : public QWidget {
    Q_OBJECT
  public:
    struct Arrow {
        QLineF line;
        MessageFlow flow;
        bool emphasised = false; // sent or delivered by the current step
        bool inFlight = false;   // not yet delivered at the current step
        int flightIndex = -1;    // while in flight: its number in the lab's in-flight list
        QString label;
        QRectF labelRect; // where the label is drawn
    };

    explicit SequenceChart(LabModel* lab, QWidget* parent = nullptr);

    // The arrows drawn now, in send order, in widget coordinates (tests click them).
    const std::vector<Arrow>& arrows() const { return m_arrows; }
    int arrowCount() const { return static_cast<int>(m_arrows.size()); }
    // Vertical centre of a step's row, for scrolling to it.
    int rowY(int step) const;
    // Horizontal position of lifeline `lifeline` (0..caches-1 the caches, caches the directory).
    qreal lifelineX(int lifeline) const;
    int lifelineCount() const;
    QString lifelineName(int lifeline) const;
    // Width of a lifeline's name box (the header draws them).
    qreal nameWidth() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    void stepActivated(int step);
    // The lifelines or arrows moved (a new run, step or width).
    void laidOut();

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void reload();
    void layoutArrows();
    void placeLabels();
    qreal column() const;
    QRectF opBox(int step) const;

    LabModel* m_lab;
    std::vector<MessageFlow> m_flows;
    std::vector<Arrow> m_arrows;
};

} // namespace coh::ui
