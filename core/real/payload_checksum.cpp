#include "core/real/payload_checksum.h"

#include <zlib.h>

#include <algorithm>

namespace coh::core::real {

void Crc32::add(const void* bytes, std::size_t n)
{
    m_crc = static_cast<std::uint32_t>(crc32_z(m_crc, static_cast<const Bytef*>(bytes), n));
}

std::uint32_t payloadChecksum(const NodeArena& memory, std::span<const CopyPiece> pieces, CopySide side)
{
    Crc32 crc;
    forPayloadRuns(memory.size(), pieces, side,
                   [&](std::size_t offset, std::size_t n) { crc.add(memory.data() + offset, n); });
    return crc.value();
}

} // namespace coh::core::real
