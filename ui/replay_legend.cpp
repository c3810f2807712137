#include "ui/replay_legend.h"

#include "core/engine/traffic_counts.h"
#include "ui/message_roles.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>

namespace coh::ui {

ReplayLegend::ReplayLegend(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    for (MessageRole role : allMessageRoles()) {
        QPixmap swatch(10, 10);
        swatch.fill(messageRoleColor(role));
        auto* icon = new QLabel(this);
        icon->setPixmap(swatch);
        auto* label = new QLabel(messageRoleLabel(role), this);
        layout->addWidget(icon);
        layout->addWidget(label);
        layout->addSpacing(8);
        m_labels.append(label);
    }
    layout->addStretch(1);
}

void ReplayLegend::setSummary(const core::RunSummary& summary)
{
    // The counts are core's (traffic_counts.h), the same the CLI, History and Compare show.
    const core::TrafficCounts traffic = core::trafficCounts(summary);
    std::array<std::uint64_t, kMessageRoleCount> counts{};
    for (int r = 0; r < core::coherence::kMessageRoles; ++r) {
        const auto role = static_cast<core::coherence::MessageRole>(r);
        counts[static_cast<std::size_t>(messageRoleFromName(core::coherence::messageRoleName(role)))] +=
            traffic.messagesOf(role);
    }
    for (int r = 0; r < kMessageRoleCount; ++r) {
        QLabel* label = m_labels[r];
        const auto count = counts[static_cast<std::size_t>(r)];
        label->setText(tr("%1 (%2)").arg(messageRoleLabel(static_cast<MessageRole>(r))).arg(count));
        label->setEnabled(count > 0);
    }
}

QString ReplayLegend::roleText(int role) const
{
    return role >= 0 && role < m_labels.size() ? m_labels[role]->text() : QString();
}

} // namespace coh::ui
