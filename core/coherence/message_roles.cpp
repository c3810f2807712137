// The role of each message name. One vocabulary for all protocols: the same name means the same thing
// everywhere (Data always answers with the block, Inv always drops a copy).
#include "core/coherence/protocol_table.h"

#include <string_view>
#include <utility>

namespace coh::core::coherence {

namespace {

using R = MessageRole;

constexpr std::pair<std::string_view, MessageRole> kRoles[] = {
    // requests
    {"GetS", R::Request},
    {"GetM", R::Request},
    {"PutS", R::Request},
    {"PutE", R::Request},
    {"BusRd", R::Request},
    {"BusRdX", R::Request},
    {"BusUpgr", R::Request},
    {"RdShared", R::Request},
    {"RdOwn", R::Request},
    {"CleanEvict", R::Request},
    {"GetW", R::Request},
    {"Lease-Req", R::Request},
    {"Read", R::Request},
    {"Write", R::Request},
    // forwards
    {"Fwd-GetS", R::Forward},
    {"Fwd-GetM", R::Forward},
    {"Fwd-GetW", R::Forward},
    {"Snoop-Rd", R::Forward},
    {"Seal", R::Forward},
    {"Fwd-Update", R::Forward},
    // invalidations
    {"Inv", R::Invalidation},
    {"Snoop-RdX", R::Invalidation},
    {"Snoop-Upgr", R::Invalidation},
    {"SnpInv", R::Invalidation},
    // acks
    {"Inv-Ack", R::Ack},
    {"Put-Ack", R::Ack},
    {"AckCount", R::Ack},
    {"Unblock", R::Ack},
    {"Upgr-Ack", R::Ack},
    {"Snoop-Ack", R::Ack},
    {"GO", R::Ack},
    {"RspI", R::Ack},
    {"Write-Ack", R::Ack},
    {"Write-Refused", R::Ack},
    {"Update-Ack", R::Ack},
    // data
    {"Data", R::Data},
    {"Exclusive-Data", R::Data},
    {"Flush", R::Data},
    {"Read-Data", R::Data},
    // write-backs
    {"PutM", R::Writeback},
    {"PutO", R::Writeback},
    {"DirtyEvict", R::Writeback},
    {"Put", R::Writeback},
    {"Publish", R::Writeback},
    {"BiasFlip-Ack", R::Writeback},
    {"Update", R::Writeback},
    // the rest
    {"BiasFlip-Req", R::BiasFlip},
    {"Migratory-Data", R::Migration},
    {"Lease-Grant", R::Lease},
};

} // namespace

const char* messageRoleName(MessageRole r)
{
    switch (r) {
    case R::Request:
        return "request";
    case R::Forward:
        return "forward";
    case R::Invalidation:
        return "invalidation";
    case R::Ack:
        return "ack";
    case R::Data:
        return "data";
    case R::Writeback:
        return "writeback";
    case R::BiasFlip:
        return "bias-flip";
    case R::Migration:
        return "migration";
    case R::Lease:
        return "lease";
    case R::Other:
        return "other";
    }
    return "?";
}

void assignMessageRoles(Protocol& p)
{
    for (auto& m : p.messages)
        for (const auto& [name, role] : kRoles)
            if (m.name == name)
                m.role = role;
}

} // namespace coh::core::coherence
