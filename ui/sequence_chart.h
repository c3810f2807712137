#pragma once
// A message sequence chart of the lab run up to the current step: one lifeline per cache and the directory,
// processor ops as boxes, every message as an arrow from its send step to its delivery step, coloured by role.
// Put it in a QScrollArea: its height grows with the steps shown. A click on an arrow or a row selects a step.
#include "ui/lab_message_flow.h"

#include <QLineF>
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
    };

    explicit SequenceChart(LabModel* lab, QWidget* parent = nullptr);

    // The arrows drawn now, in send order, in widget coordinates (tests click them).
    const std::vector<Arrow>& arrows() const { return m_arrows; }
    int arrowCount() const { return static_cast<int>(m_arrows.size()); }
    // Vertical centre of a step's row, for scrolling to it.
    int rowY(int step) const;
    QSize sizeHint() const override;

  signals:
    void stepActivated(int step);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void reload();
    void layoutArrows();
    qreal lifelineX(int lifeline) const;
    int lifelines() const;

    LabModel* m_lab;
    std::vector<MessageFlow> m_flows;
    std::vector<Arrow> m_arrows;
};

} // namespace coh::ui
