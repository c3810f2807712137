#include "ui/message_roles.h"

#include "core/engine/traffic_counts.h"
#include "ui/theme.h"

#include <QCoreApplication>
#include <QGuiApplication>

namespace coh::ui {

const std::array<MessageRole, kMessageRoleCount>& allMessageRoles()
{
    static const std::array<MessageRole, kMessageRoleCount> roles = {
        MessageRole::Data,    MessageRole::Invalidation, MessageRole::Ack,      MessageRole::Forward,
        MessageRole::Request, MessageRole::Writeback,    MessageRole::BiasFlip, MessageRole::Migration,
        MessageRole::Lease,   MessageRole::Other,
    };
    return roles;
}

MessageRole messageRoleOf(core::coherence::MessageRole role)
{
    using R = core::coherence::MessageRole;
    switch (role) {
    case R::Request:
        return MessageRole::Request;
    case R::Forward:
        return MessageRole::Forward;
    case R::Invalidation:
        return MessageRole::Invalidation;
    case R::Ack:
        return MessageRole::Ack;
    case R::Data:
        return MessageRole::Data;
    case R::Writeback:
        return MessageRole::Writeback;
    case R::BiasFlip:
        return MessageRole::BiasFlip;
    case R::Migration:
        return MessageRole::Migration;
    case R::Lease:
        return MessageRole::Lease;
    case R::Other:
        return MessageRole::Other;
    }
    return MessageRole::Other;
}

MessageRole messageRoleFromName(std::string_view name)
{
    return messageRoleOf(core::messageRoleFromName(name));
}

QString messageRoleLabel(MessageRole role)
{
    switch (role) {
    case MessageRole::Data:
        return QCoreApplication::translate("MessageRole", "data");
    case MessageRole::Invalidation:
        return QCoreApplication::translate("MessageRole", "invalidation");
    case MessageRole::Ack:
        return QCoreApplication::translate("MessageRole", "ack");
    case MessageRole::Forward:
        return QCoreApplication::translate("MessageRole", "forward");
    case MessageRole::Request:
        return QCoreApplication::translate("MessageRole", "request");
    case MessageRole::Writeback:
        return QCoreApplication::translate("MessageRole", "writeback");
    case MessageRole::BiasFlip:
        return QCoreApplication::translate("MessageRole", "bias-flip");
    case MessageRole::Migration:
        return QCoreApplication::translate("MessageRole", "migration");
    case MessageRole::Lease:
        return QCoreApplication::translate("MessageRole", "lease");
    case MessageRole::Other:
        return QCoreApplication::translate("MessageRole", "other");
    }
    return {};
}

QString messageRoleMeaning(MessageRole role)
{
    switch (role) {
    case MessageRole::Data:
        return QCoreApplication::translate("MessageRole", "carries block data to a cache (a fill or a copy)");
    case MessageRole::Invalidation:
        return QCoreApplication::translate("MessageRole", "tells a cache to drop its copy before someone writes");
    case MessageRole::Ack:
        return QCoreApplication::translate("MessageRole", "confirms an invalidation or completes a hand-over");
    case MessageRole::Forward:
        return QCoreApplication::translate("MessageRole", "the home passes a request on to the cache that owns "
                                                          "the block");
    case MessageRole::Request:
        return QCoreApplication::translate("MessageRole", "a cache asks the home for a copy or for write permission");
    case MessageRole::Writeback:
        return QCoreApplication::translate("MessageRole", "a cache sends its (dirty) block back home");
    case MessageRole::BiasFlip:
        return QCoreApplication::translate("MessageRole", "the host moves a block between host and device bias");
    case MessageRole::Migration:
        return QCoreApplication::translate("MessageRole", "hands a block and its write permission to the next "
                                                          "writer");
    case MessageRole::Lease:
        return QCoreApplication::translate("MessageRole", "grants or ends a time-limited read or write lease");
    case MessageRole::Other:
        return QCoreApplication::translate("MessageRole", "a message no protocol table gives one of these roles");
    }
    return {};
}

namespace {

QColor roleHue(MessageRole role)
{
    // Okabe-Ito based, so the roles stay apart for colour-blind readers; data is the calm blue that dominates.
    switch (role) {
    case MessageRole::Data:
        return QColor(0x00, 0x72, 0xB2);
    case MessageRole::Invalidation:
        return QColor(0xD5, 0x5E, 0x00);
    case MessageRole::Ack:
        return QColor(0x00, 0x9E, 0x73);
    case MessageRole::Forward:
        return QColor(0xCC, 0x79, 0xA7);
    case MessageRole::Request:
        return QColor(0xE6, 0x9F, 0x00);
    case MessageRole::Writeback:
        return QColor(0x56, 0xB4, 0xE9);
    case MessageRole::BiasFlip:
        return QColor(0x88, 0x22, 0x55);
    case MessageRole::Migration:
        return QColor(0x44, 0x44, 0x44);
    case MessageRole::Lease:
        return QColor(0xB8, 0xA0, 0x00);
    case MessageRole::Other:
        return QColor(0xAA, 0xAA, 0xAA); // a light neutral, apart from migration's dark grey in either palette
    }
    return QColor(0x44, 0x44, 0x44);
}

} // namespace

QColor messageRoleColor(MessageRole role, const QPalette& palette)
{
    return readableOn(roleHue(role), palette.color(QPalette::Base), 3.0);
}

QColor messageRoleColor(MessageRole role)
{
    return messageRoleColor(role, QGuiApplication::palette());
}

} // namespace coh::ui
