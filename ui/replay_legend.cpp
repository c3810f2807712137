#include "ui/replay_legend.h"

#include "core/engine/traffic_counts.h"
#include "ui/flow_layout.h"
#include "ui/message_roles.h"
#include "ui/qt_text.h"
#include "ui/replay_state_style.h"
#include "ui/theme.h"

#include <QEvent>
#include <QLabel>
#include <QPixmap>
#include <QToolButton>

namespace coh::ui {

ReplayLegend::ReplayLegend(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new FlowLayout(this, 6, 0);
    layout->setContentsMargins(4, 0, 4, 0);
    for (MessageRole role : allMessageRoles()) {
        auto* button = new QToolButton(this);
        button->setCheckable(true);
        button->setChecked(true); // checked: shown
        button->setAutoRaise(true);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setIconSize(QSize(10, 10));
        button->setFocusPolicy(Qt::TabFocus);
        connect(button, &QToolButton::toggled, this, [this, button](bool shown) {
            QFont font = button->font();
            font.setStrikeOut(!shown);
            button->setFont(font);
            emit hiddenRolesChanged();
        });
        layout->addWidget(button);
        m_roles[static_cast<std::size_t>(role)] = button;
    }
    // The states are one item of the flow, so the title never ends a row with its states on the next; a group
    // wider than the row wraps inside its own row.
    m_statesGroup = new QWidget(this);
    auto* states = new FlowLayout(m_statesGroup, 6, 0);
    states->setContentsMargins(0, 0, 0, 0);
    m_statesTitle = new QLabel(tr("Block states:"), m_statesGroup);
    m_statesTitle->setToolTip(tr("The KV blocks each node holds, by the protocol's state: colour by what the state "
                                 "allows (writable, readable, held without permission), transient states in "
                                 "italics"));
    states->addWidget(m_statesTitle);
    layout->addWidget(m_statesGroup);
    m_statesGroup->hide();
    restyle();
    setSummary({});
}

void ReplayLegend::setSummary(const core::RunSummary& summary)
{
    // The counts are core's (traffic_counts.h), the same the CLI, History and Compare show.
    const core::TrafficCounts traffic = core::trafficCounts(summary);
    m_counts.fill(0);
    for (int r = 0; r < core::coherence::kMessageRoles; ++r) {
        const auto role = static_cast<core::coherence::MessageRole>(r);
        m_counts[static_cast<std::size_t>(messageRoleOf(role))] += traffic.messagesOf(role);
    }
    for (int r = 0; r < kMessageRoleCount; ++r) {
        const auto role = static_cast<MessageRole>(r);
        QToolButton* button = m_roles[static_cast<std::size_t>(r)];
        const auto count = m_counts[static_cast<std::size_t>(r)];
        button->setText(tr("%1 (%2)").arg(messageRoleLabel(role)).arg(count));
        button->setToolTip(tr("%1: %2.\n%3 messages in this run. Click to hide or show them.")
                               .arg(messageRoleLabel(role), messageRoleMeaning(role))
                               .arg(count));
        button->setEnabled(count > 0);
        // Greyed by tone, not by the disabled palette, so the zero still reads (4.5:1) in either palette.
        setTone(button, count > 0 ? Tone::Normal : Tone::Muted);
        // A zero of a protocol role says something ("no bias flips"); messages with no role are rare, so their
        // entry shows only when there are some, and takes no room from the canvas otherwise.
        button->setVisible(role != MessageRole::Other || count > 0);
    }
}

void ReplayLegend::setStates(const std::vector<const core::coherence::StateInfo*>& states)
{
    m_states = states;
    for (QLabel* label : m_stateLabels)
        delete label;
    m_stateLabels.clear();
    for (const auto* state : m_states) {
        auto* label = new QLabel(QStringLiteral("■ %1").arg(toQString(state->name)), m_statesGroup);
        label->setToolTip(blockStateDescription(*state));
        if (!state->stable) {
            QFont font = label->font();
            font.setItalic(true);
            label->setFont(font);
        }
        m_statesGroup->layout()->addWidget(label);
        label->show();
        m_stateLabels.push_back(label);
    }
    m_statesGroup->setVisible(!m_states.empty());
    // The outer flow measured the group before its entries changed.
    m_statesGroup->updateGeometry();
    restyle();
}

QString ReplayLegend::roleText(int role) const
{
    return role >= 0 && role < kMessageRoleCount ? m_roles[static_cast<std::size_t>(role)]->text() : QString();
}

std::array<bool, kMessageRoleCount> ReplayLegend::hiddenRoles() const
{
    std::array<bool, kMessageRoleCount> hidden{};
    for (int r = 0; r < kMessageRoleCount; ++r)
        hidden[static_cast<std::size_t>(r)] = !m_roles[static_cast<std::size_t>(r)]->isChecked();
    return hidden;
}

void ReplayLegend::setRoleHidden(MessageRole role, bool hidden)
{
    m_roles[static_cast<std::size_t>(role)]->setChecked(!hidden);
}

void ReplayLegend::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        restyle();
}

void ReplayLegend::restyle()
{
    // Swatches and state colours follow the palette: markers are drawn on the canvas's base colour, the state
    // names here on the window's.
    const QPalette p = palette();
    for (int r = 0; r < kMessageRoleCount; ++r) {
        QPixmap swatch(10, 10);
        swatch.fill(messageRoleColor(static_cast<MessageRole>(r), p));
        m_roles[static_cast<std::size_t>(r)]->setIcon(QIcon(swatch));
    }
    for (std::size_t i = 0; i < m_stateLabels.size() && i < m_states.size(); ++i) {
        QPalette lp = m_stateLabels[i]->palette();
        lp.setColor(QPalette::WindowText, readableOn(blockStateColor(*m_states[i], p), p.color(QPalette::Window)));
        m_stateLabels[i]->setPalette(lp);
    }
}

} // namespace coh::ui
