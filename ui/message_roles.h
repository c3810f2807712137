#pragma once
// The roles a coherence message can play (core's MessageKindStats::role) and how the replay colours them.
#include <QColor>
#include <QPalette>
#include <QString>

#include <array>
#include <cstdint>
#include <string_view>

namespace coh::ui {

enum class MessageRole : std::uint8_t {
    Data,
    Invalidation,
    Ack,
    Forward,
    Request,
    Writeback,
    BiasFlip,
    Migration,
    Lease,
};
inline constexpr int kMessageRoleCount = 9;

// All roles in legend order.
const std::array<MessageRole, kMessageRoleCount>& allMessageRoles();
// core's role names ("bias-flip", ...); an unknown name counts as data so nothing is hidden.
MessageRole messageRoleFromName(std::string_view name);
QString messageRoleLabel(MessageRole role);
// One sentence: what messages of this role do (legend tooltips).
QString messageRoleMeaning(MessageRole role);
// The role's hue (Okabe-Ito, colour-blind safe) at a lightness that stands out 3:1 (WCAG's figure for graphics)
// from the palette's base colour, so no role vanishes on the dark palette or washes out on the light one.
QColor messageRoleColor(MessageRole role, const QPalette& palette);
// The same against the application palette.
QColor messageRoleColor(MessageRole role);

} // namespace coh::ui
