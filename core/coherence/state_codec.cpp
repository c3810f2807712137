#include "core/coherence/state_codec.h"

#include <array>
#include <stdexcept>

namespace coh::core::coherence {

namespace {

std::uint8_t packValue(bool valid, Value v)
{
    if (v >= 0x80)
        throw std::logic_error("state codec: values must be below 128");
    return static_cast<std::uint8_t>((valid ? 0x80 : 0) | v);
}

// Order of two messages in the canonical encoding.
bool canonicalLess(const Protocol& p, const Message& a, int ia, const Message& b, int ib)
{
    const int na = static_cast<int>(p.messages[a.type].network);
    const int nb = static_cast<int>(p.messages[b.type].network);
    if (na != nb)
        return na < nb;
    if (a.src != b.src)
        return a.src < b.src;
    if (a.dst != b.dst)
        return a.dst < b.dst;
    if (!p.ordered[na]) {
        if (a.type != b.type)
            return a.type < b.type;
        if (a.requestor != b.requestor)
            return a.requestor < b.requestor;
        if (a.ackCount != b.ackCount)
            return a.ackCount < b.ackCount;
        if (a.hasData != b.hasData)
            return a.hasData < b.hasData;
        if (a.value != b.value)
            return a.value < b.value;
    }
    return ia < ib;
}

} // namespace

void encodeState(const BlockSystem& system, std::string& out)
{
    const Protocol& p = system.protocol();
    for (int c = 0; c < system.caches(); ++c) {
        const CacheLine& line = system.line(c);
        out += static_cast<char>(line.state);
        out += static_cast<char>(packValue(line.dataValid, line.dataValid ? line.value : 0));
        out += static_cast<char>(line.acks);
    }
    const DirectoryEntry& dir = system.directory();
    out += static_cast<char>(dir.state);
    out += static_cast<char>(dir.owner);
    out += static_cast<char>(dir.sharers & 0xFF);
    out += static_cast<char>(dir.sharers >> 8);
    out += static_cast<char>(packValue(false, dir.memory));
    out += static_cast<char>(packValue(false, system.latest()));

    // Insertion sort of at most kMaxMessages indices: no allocation, and messages are few.
    const int n = system.messageCount();
    std::array<std::uint8_t, kMaxMessages> order{};
    for (int i = 0; i < n; ++i) {
        int j = i;
        while (j > 0 && canonicalLess(p, system.message(i), i, system.message(order[j - 1]), order[j - 1])) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = static_cast<std::uint8_t>(i);
    }
    out += static_cast<char>(n);
    for (int k = 0; k < n; ++k) {
        const Message& m = system.message(order[k]);
        out += static_cast<char>(m.type);
        out += static_cast<char>(m.src);
        out += static_cast<char>(m.dst);
        out += static_cast<char>(m.requestor);
        out += static_cast<char>(m.ackCount);
        out += static_cast<char>(packValue(m.hasData, m.value));
    }
}

void encodeExactState(const BlockSystem& system, std::string& out)
{
    auto put = [&](unsigned byte) { out += static_cast<char>(byte & 0xFF); };
    auto put16 = [&](unsigned v) {
        put(v);
        put(v >> 8);
    };
    for (int c = 0; c < system.caches(); ++c) {
        const CacheLine& line = system.line(c);
        put(line.state);
        put(line.dataValid ? 1 : 0);
        put(static_cast<std::uint8_t>(line.acks));
        put16(line.value);
    }
    const DirectoryEntry& dir = system.directory();
    put(dir.state);
    put(dir.owner);
    put16(dir.sharers);
    put16(dir.memory);
    put16(system.latest());
    put(static_cast<unsigned>(system.messageCount()));
    for (int i = 0; i < system.messageCount(); ++i) {
        const Message& m = system.message(i);
        put(m.type);
        put(m.src);
        put(m.dst);
        put(m.requestor);
        put(static_cast<std::uint8_t>(m.ackCount));
        put(m.hasData ? 1 : 0);
        put16(m.value);
    }
}

std::size_t decodeState(std::string_view bytes, std::size_t pos, BlockSystem& system)
{
    auto next = [&]() { return static_cast<std::uint8_t>(bytes[pos++]); };
    for (int c = 0; c < system.caches(); ++c) {
        CacheLine& line = system.mutableLine(c);
        line.state = next();
        const std::uint8_t packed = next();
        line.dataValid = packed & 0x80;
        line.value = packed & 0x7F;
        line.acks = static_cast<std::int8_t>(next());
    }
    DirectoryEntry& dir = system.mutableDirectory();
    dir.state = next();
    dir.owner = next();
    dir.sharers = next();
    dir.sharers = static_cast<std::uint16_t>(dir.sharers | (next() << 8));
    dir.memory = next();
    system.setLatest(next());
    const int n = next();
    std::array<Message, kMaxMessages> messages{};
    for (int k = 0; k < n; ++k) {
        Message& m = messages[k];
        m.type = next();
        m.src = next();
        m.dst = next();
        m.requestor = next();
        m.ackCount = static_cast<std::int8_t>(next());
        const std::uint8_t packed = next();
        m.hasData = packed & 0x80;
        m.value = packed & 0x7F;
    }
    system.setMessages(messages.data(), n);
    return pos;
}

} // namespace coh::core::coherence
