#pragma once
// The roles a coherence message can play (core's coherence::MessageRole) in legend order, and how the replay, the
// charts and the Lab colour and name them.
#include "core/coherence/protocol_table.h"

#include <QColor>
#include <QPalette>
#include <QString>

#include <array>
#include <cstdint>
#include <string_view>

namespace coh::ui {

// Legend order: data first, the message that dominates a run. Other: a message no protocol table gives a role.
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
    Other,
};
inline constexpr int kMessageRoleCount = 10;
static_assert(kMessageRoleCount == core::coherence::kMessageRoles, "one UI role per core role");

// All roles in legend order.
const std::array<MessageRole, kMessageRoleCount>& allMessageRoles();
// core's role as the UI's, one to one.
MessageRole messageRoleOf(core::coherence::MessageRole role);
// A stored role name (MessageKindStats::role, "bias-flip", ...) as core reads it (core::messageRoleFromName): an
// unknown name is Other, never data.
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
