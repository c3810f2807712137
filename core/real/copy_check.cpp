#include "core/real/copy_check.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

namespace coh::core::real {

namespace {
// The first `n` bytes of two stamps agree.
bool samePrefix(const CopyStamp& a, const CopyStamp& b, std::size_t n)
{
    return std::memcmp(&a, &b, std::min(n, sizeof a)) == 0;
}
} // namespace

CopyDefect classifyCopy(const CopyStamp& expected, const CopyStamp& held, std::size_t stampBytes, std::int64_t firstBad,
                        bool checksumOk)
{
    // The stamp's checksum is only worth checking once the stamp is the expected one.
    if (samePrefix(held, expected, stampBytes)) {
        if (firstBad >= 0)
            return CopyDefect::Corrupted;
        return checksumOk ? CopyDefect::None : CopyDefect::TornSource;
    }
    // A stamp one byte off its own, in a copy that differs from its source: that byte changed on the way (a message
    // no longer than its stamp has nowhere else to be hit), not another region's stamp, which differs at least in its
    // message number, nor an older version copied faithfully (its copy equals its source).
    if (firstBad >= 0) {
        const auto* a = reinterpret_cast<const unsigned char*>(&held);
        const auto* b = reinterpret_cast<const unsigned char*>(&expected);
        const std::size_t n = std::min(stampBytes, sizeof held);
        if (std::inner_product(a, a + n, b, std::size_t{0}, std::plus<>(), std::not_equal_to<>()) == 1)
            return CopyDefect::Corrupted;
    }
    // A field the message does not cover cannot tell anything: compare only what its bytes hold.
    const auto covers = [&](std::size_t end) { return stampBytes >= end; };
    if (covers(sizeof held.magic) && held.magic == CopyStamp::kFreed)
        return CopyDefect::FreedSource;
    if (!covers(sizeof held.magic) || held.magic != CopyStamp::kLive)
        return CopyDefect::PartlyWritten;
    const bool sameMessage =
        !covers(offsetof(CopyStamp, message) + sizeof held.message) || held.message == expected.message;
    if (sameMessage && covers(offsetof(CopyStamp, version) + sizeof held.version) && held.version < expected.version)
        return CopyDefect::StaleVersion;
    return CopyDefect::Misplaced;
}

std::string_view describeDefect(CopyDefect defect)
{
    switch (defect) {
    case CopyDefect::None:
        return "is whole";
    case CopyDefect::Corrupted:
        return "is corrupted (its stamp is right, its data is not)";
    case CopyDefect::PartlyWritten:
        return "does not start with its message's stamp: a partly written block";
    case CopyDefect::FreedSource:
        return "holds the freed pattern: a copy from a buffer its sender had freed";
    case CopyDefect::StaleVersion:
        return "holds an older version than the sender's latest: a read after its lease expired";
    case CopyDefect::Misplaced:
        return "holds another message's stamp: a copy of the wrong region";
    case CopyDefect::TornSource:
        return "equals its source byte for byte but not the checksum its stamp sealed: the sender wrote into it "
               "after sealing it, while it was copied (a torn copy)";
    }
    return "is wrong";
}

} // namespace coh::core::real
