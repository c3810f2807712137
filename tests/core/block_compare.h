#pragma once
// Field-by-field comparison of two blocks, for tests that hold the automaton to the interpreter.
#include "core/coherence/block_system.h"

#include <gtest/gtest.h>

#include <string>

namespace coh::core::coherence {

// Fields a controller can read; a value without valid data (or a message's without data) is not one of them.
inline void expectSameBlock(const BlockSystem& interpreted, const BlockSystem& automaton, const std::string& where)
{
    for (int c = 0; c < interpreted.caches(); ++c) {
        const CacheLine& a = interpreted.line(c);
        const CacheLine& b = automaton.line(c);
        EXPECT_EQ(a.state, b.state) << where << " P" << c;
        EXPECT_EQ(a.dataValid, b.dataValid) << where << " P" << c;
        EXPECT_EQ(a.acks, b.acks) << where << " P" << c;
        if (a.dataValid) {
            EXPECT_EQ(a.value, b.value) << where << " P" << c;
        }
    }
    EXPECT_EQ(interpreted.directory().state, automaton.directory().state) << where;
    EXPECT_EQ(interpreted.directory().owner, automaton.directory().owner) << where;
    EXPECT_EQ(interpreted.directory().sharers, automaton.directory().sharers) << where;
    EXPECT_EQ(interpreted.directory().memory, automaton.directory().memory) << where;
    EXPECT_EQ(interpreted.latest(), automaton.latest()) << where;
    ASSERT_EQ(interpreted.messageCount(), automaton.messageCount()) << where;
    for (int i = 0; i < interpreted.messageCount(); ++i) {
        const Message& a = interpreted.message(i);
        const Message& b = automaton.message(i);
        EXPECT_EQ(a.type, b.type) << where << " message " << i;
        EXPECT_EQ(a.src, b.src) << where << " message " << i;
        EXPECT_EQ(a.dst, b.dst) << where << " message " << i;
        EXPECT_EQ(a.requestor, b.requestor) << where << " message " << i;
        EXPECT_EQ(a.ackCount, b.ackCount) << where << " message " << i;
        EXPECT_EQ(a.hasData, b.hasData) << where << " message " << i;
        if (a.hasData) {
            EXPECT_EQ(a.value, b.value) << where << " message " << i;
        }
    }
}

} // namespace coh::core::coherence
