#include "ui/lab_flight_panel.h"

#include "ui/lab_model.h"
#include "ui/qt_text.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QString messageText(const co::InFlightMessage& m)
{
    QString text = QStringLiteral("#%1  %2  %3 → %4")
                       .arg(m.index)
                       .arg(toQString(m.message.kind), toQString(m.message.from), toQString(m.message.to));
    QStringList detail;
    if (m.message.data)
        detail << QCoreApplication::translate("LabFlightPanel", "data %1").arg(*m.message.data);
    if (m.message.ackCount != 0)
        detail << QCoreApplication::translate("LabFlightPanel", "acks %1").arg(m.message.ackCount);
    if (!detail.isEmpty())
        text += QStringLiteral("  (%1)").arg(detail.join(QStringLiteral(", ")));
    return text;
}

} // namespace

LabFlightPanel::LabFlightPanel(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_byHand(new QCheckBox(tr("Deliver messages by hand"), this))
    , m_heading(new QLabel(this))
    , m_list(new QListWidget(this))
    , m_deliver(new QPushButton(tr("Deliver"), this))
    , m_deliverAll(new QPushButton(tr("Deliver all"), this))
{
    setObjectName(QStringLiteral("labFlightPanel"));
    m_byHand->setObjectName(QStringLiteral("labDeliverByHand"));
    m_byHand->setToolTip(tr("An op only issues; you choose the order its messages arrive in"));
    m_heading->setObjectName(QStringLiteral("labFlightHeading"));
    m_heading->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("labFlightList"));
    // The list gives way first: it asks for no height of its own beyond three rows and takes what is left, so the
    // buttons under it stay in view when the tab is short.
    m_list->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    m_list->setMinimumHeight(3 * (m_list->fontMetrics().height() + 4) + 2 * m_list->frameWidth());
    m_deliver->setObjectName(QStringLiteral("labDeliver"));
    m_deliver->setToolTip(tr("Deliver the selected message next (or double-click it)"));
    m_deliverAll->setObjectName(QStringLiteral("labDeliverAll"));
    m_deliverAll->setToolTip(tr("Deliver every message in flight, oldest first, until none is left"));
    for (QWidget* w : {static_cast<QWidget*>(m_byHand), static_cast<QWidget*>(m_list), static_cast<QWidget*>(m_deliver),
                       static_cast<QWidget*>(m_deliverAll)})
        w->setFocusPolicy(Qt::ClickFocus); // Left/Right step the lab

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_deliver);
    buttons->addWidget(m_deliverAll);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_byHand);
    layout->addWidget(m_heading);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);

    connect(m_byHand, &QCheckBox::toggled, m_lab, &LabModel::setDeliverByHand);
    connect(m_list, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem* item) { deliverRow(m_list->row(item)); });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        const QListWidgetItem* item = m_list->item(row);
        m_deliver->setEnabled(item && (item->flags() & Qt::ItemIsEnabled));
    });
    connect(m_deliver, &QPushButton::clicked, this, [this] { deliverRow(m_list->currentRow()); });
    connect(m_deliverAll, &QPushButton::clicked, m_lab, &LabModel::deliverAll);
    connect(m_lab, &LabModel::changed, this, &LabFlightPanel::refresh);
    refresh();
}

bool LabFlightPanel::deliverRow(int row)
{
    const QListWidgetItem* item = m_list->item(row);
    return item && m_lab->deliver(item->data(Qt::UserRole).toInt());
}

void LabFlightPanel::refresh()
{
    m_byHand->setChecked(m_lab->deliverByHand());
    const auto& flight = m_lab->inFlight();
    m_list->clear();
    int firstReady = -1;
    for (const co::InFlightMessage& m : flight) {
        auto* item = new QListWidgetItem(messageText(m), m_list);
        item->setData(Qt::UserRole, m.index);
        if (m.canDeliver()) {
            item->setToolTip(tr("Can arrive next: double-click to deliver it"));
            if (firstReady < 0)
                firstReady = m_list->count() - 1;
        } else {
            // Disabled, not hidden: the learner sees the message and why it must wait.
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            item->setToolTip(m.stalls ? tr("Its receiver would wait in its current state: deliver another first")
                                      : tr("An older message on the same ordered channel must arrive first"));
        }
    }
    const int step = m_lab->currentStep();
    if (m_lab->isTrace())
        m_heading->setText(tr("Counterexample: the checker chose the order."));
    else if (flight.empty())
        m_heading->setText(step == 0 ? tr("Nothing in flight.") : tr("Nothing in flight after step %1.").arg(step));
    else if (m_lab->laterSteps() > 0)
        m_heading->setText(tr("%n in flight after step %1; delivering one replaces the %2 later step(s).", nullptr,
                              static_cast<int>(flight.size()))
                               .arg(step)
                               .arg(m_lab->laterSteps()));
    else
        m_heading->setText(
            tr("%n in flight after step %1: pick the next to arrive.", nullptr, static_cast<int>(flight.size()))
                .arg(step));
    m_list->setCurrentRow(firstReady);
    m_deliver->setEnabled(firstReady >= 0);
    m_deliverAll->setEnabled(!flight.empty() && !m_lab->isTrace());
}

} // namespace coh::ui
