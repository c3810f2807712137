#include "core/coherence/protocol_table.h"

namespace coh::core::coherence {

int ControllerTable::findState(const std::string& name) const
{
    for (std::size_t i = 0; i < states.size(); ++i)
        if (states[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int ControllerTable::findEvent(const std::string& name) const
{
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int Protocol::findMessage(const std::string& name) const
{
    for (std::size_t i = 0; i < messages.size(); ++i)
        if (messages[i].name == name)
            return static_cast<int>(i);
    return -1;
}

const char* permissionName(Permission p)
{
    switch (p) {
    case Permission::None:
        return "none";
    case Permission::Read:
        return "read";
    case Permission::ReadWrite:
        return "read-write";
    }
    return "?";
}

const char* processorOpName(ProcessorOp op)
{
    switch (op) {
    case ProcessorOp::Load:
        return "Load";
    case ProcessorOp::Store:
        return "Store";
    case ProcessorOp::Evict:
        return "Evict";
    }
    return "?";
}

const char* networkName(VirtualNetwork n)
{
    switch (n) {
    case VirtualNetwork::Request:
        return "request";
    case VirtualNetwork::Forward:
        return "forward";
    case VirtualNetwork::Response:
        return "response";
    }
    return "?";
}

const char* guardName(Guard g)
{
    switch (g) {
    case Guard::None:
        return "";
    case Guard::AckCountZero:
        return "AckCountZero";
    case Guard::AckCountPositive:
        return "AckCountPositive";
    case Guard::LastAck:
        return "LastAck";
    case Guard::NotLastAck:
        return "NotLastAck";
    case Guard::FromOwner:
        return "FromOwner";
    case Guard::NotFromOwner:
        return "NotFromOwner";
    case Guard::LastSharer:
        return "LastSharer";
    case Guard::NotLastSharer:
        return "NotLastSharer";
    case Guard::NoSharers:
        return "NoSharers";
    case Guard::HasSharers:
        return "HasSharers";
    case Guard::RequestorIsSharer:
        return "RequestorIsSharer";
    case Guard::RequestorNotSharer:
        return "RequestorNotSharer";
    case Guard::OtherCopy:
        return "OtherCopy";
    case Guard::NoOtherCopy:
        return "NoOtherCopy";
    case Guard::RequestorHasCopy:
        return "RequestorHasCopy";
    case Guard::RequestorNoCopy:
        return "RequestorNoCopy";
    }
    return "?";
}

const char* homeName(Home h)
{
    switch (h) {
    case Home::Directory:
        return "Dir";
    case Home::Bus:
        return "Bus";
    }
    return "?";
}

} // namespace coh::core::coherence
