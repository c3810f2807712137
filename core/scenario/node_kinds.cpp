#include "core/scenario/node_kinds.h"

#include "core/scenario/enum_names.h"

namespace coh::core {

const char* nodePartKey(NodePart part)
{
    switch (part) {
    case NodePart::Compute:
        return "compute";
    case NodePart::Memory:
        return "memory";
    }
    return "?";
}

bool nodeKindHas(NodeKind kind, NodePart part)
{
    // Devices that run a model compute; everything but a switch holds memory (a switch only forwards).
    switch (kind) {
    case NodeKind::CpuSocket:
    case NodeKind::Gpu:
    case NodeKind::Accelerator:
        return true;
    case NodeKind::CxlMemory:
    case NodeKind::Storage:
        return part == NodePart::Memory;
    case NodeKind::Switch:
        return false;
    }
    return false;
}

std::vector<NodePart> nodeParts()
{
    return {NodePart::Compute, NodePart::Memory};
}

std::string kindsWith(NodePart part)
{
    std::string names;
    for (const std::string& name : enumNames<NodeKind>())
        if (nodeKindHas(*enumFromString<NodeKind>(name), part))
            names += (names.empty() ? "" : ", ") + name;
    return names;
}

} // namespace coh::core
