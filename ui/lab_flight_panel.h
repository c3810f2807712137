#pragma once
// The messages in flight after the current step (kind, sender → receiver, data or ack count) and the learner's
// choice of which one arrives next: only those core's network model and the receiver's table allow are enabled,
// the others say why. "Deliver by hand" keeps an op's messages in flight instead of running it to quiescence.
#include <QWidget>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace coh::ui {

class LabModel;

class LabFlightPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LabFlightPanel(LabModel* lab, QWidget* parent = nullptr);

    QListWidget* list() const { return m_list; }
    // Delivers the message in row `row` of the list (what a double-click or "Deliver" does); false when it is
    // not deliverable now.
    bool deliverRow(int row);

  private:
    void refresh();

    LabModel* m_lab;
    QCheckBox* m_byHand;
    QLabel* m_heading;
    QListWidget* m_list;
    QPushButton* m_deliver;
    QPushButton* m_deliverAll;
};

} // namespace coh::ui
