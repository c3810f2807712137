// A fault a real run plays on purpose (core/real/injected_fault.h, cohsim run --inject): parsed, refused with the
// choices, and played on the copy or decode step it names, where the checks stop the run naming it.
#include "core/base/input_error.h"
#include "core/real/injected_fault.h"
#include "core/serving/serving_engine.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

using core::real::parseInjectedFault;

std::string refusal(std::string_view text)
{
    try {
        parseInjectedFault(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(InjectedFault, ANameAndAnOptionalNumberArePlayedThere)
{
    const auto flip = parseInjectedFault("flip-byte@3");
    EXPECT_EQ(flip.name, "flip-byte");
    EXPECT_EQ(flip.copy, core::real::CopyFault::FlipByte);
    EXPECT_FALSE(flip.read);
    EXPECT_EQ(flip.at, 3u);
    const auto lost = parseInjectedFault("lost-append");
    EXPECT_EQ(lost.read, core::real::ReadFault::LostAppend);
    EXPECT_FALSE(lost.copy);
    EXPECT_EQ(lost.at, 1u);
    // Every name it offers is one it takes.
    for (const std::string& name : core::real::injectedFaultNames())
        EXPECT_EQ(parseInjectedFault(name).name, name);

    for (const std::string_view bad : {"bogus", "flip-byte@0", "flip-byte@", "flip-byte@2x", "@3", "FLIP-BYTE"}) {
        const std::string why = refusal(bad);
        EXPECT_NE(why.find("--inject"), std::string::npos) << bad << ": " << why;
        EXPECT_NE(why.find("flip-byte, partial-write"), std::string::npos) << bad << ": " << why;
    }
    // What the user typed is echoed harmlessly: an escape sequence as \x1b, a long name cut at 40 characters.
    const std::string escaped = refusal("\x1b[31mred");
    EXPECT_NE(escaped.find("\"\\x1b[31mred\" is not a fault"), std::string::npos) << escaped;
    EXPECT_EQ(escaped.find('\x1b'), std::string::npos) << escaped;
    EXPECT_NE(refusal(std::string(5000, 'a')).find(std::string(40, 'a') + "…\""), std::string::npos);
    // A number past any a run makes is said to be so, not "not a number from 1".
    EXPECT_NE(refusal("flip-byte@18446744073709551616").find("is past any copy or step a run makes"),
              std::string::npos);
}

TEST(InjectedFault, ARealRunStopsAtTheCopyOrStepItNamesAndASimulatedOneRefusesIt)
{
    const Scenario s = threeGpuScenario("msi-directory");
    const Workload w = spacedWorkload();
    const auto stopped = [&](const std::string& fault) -> std::string {
        BackendOptions backend = realCpu();
        backend.realCpu.arenaBytes = 4 << 20;
        backend.fault = parseInjectedFault(fault);
        try {
            runOn(s, w, backend);
        } catch (const std::exception& e) {
            return e.what();
        }
        return "completed";
    };
    const std::string flip = stopped("flip-byte@2");
    EXPECT_NE(flip.find("the copy of message 2 ("), std::string::npos) << flip;
    EXPECT_NE(flip.find("the receiver's memory does not hold what was sent"), std::string::npos) << flip;
    const std::string freed = stopped("freed-block@4");
    EXPECT_NE(freed.find("decode step 4 of "), std::string::npos) << freed;
    EXPECT_NE(freed.find("(a read after free)"), std::string::npos) << freed;
    const std::string changed = stopped("corrupted-row@3");
    EXPECT_NE(changed.find("decode step 3 of "), std::string::npos) << changed;
    EXPECT_NE(changed.find("they changed in memory since (a stray write or a flipped bit)"), std::string::npos)
        << changed;
    // A fault past the run's last copy is never played.
    EXPECT_EQ(stopped("flip-byte@1000000"), "completed");

    BackendOptions simulated;
    simulated.fault = parseInjectedFault("flip-byte");
    EXPECT_THROW(runOn(s, w, simulated), InputError);
}

} // namespace
} // namespace coh::test
