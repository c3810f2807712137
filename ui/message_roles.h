#pragma once
// The roles a coherence message can play (core's MessageKindStats::role) and how the replay colours them.
#include <QColor>
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
QColor messageRoleColor(MessageRole role);

} // namespace coh::ui
