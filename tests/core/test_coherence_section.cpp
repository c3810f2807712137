// The scenario's "coherence" section: protocol names from the registry, a home policy or node, and clear
// refusals for what this version does not do.
#include "scenario_test_util.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

using nlohmann::json;

json withCoherence(const json& coherence)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json root = readFixtureJson("minimal.json");
    root["coherence"] = coherence;
    return root;
}

TEST(CoherenceSection, DefaultsToTheDirectCopy)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const core::Scenario s = core::parseScenario(readFixtureJson("minimal.json"), "mem.json");
    EXPECT_EQ(s.coherence.decode, "direct");
    EXPECT_EQ(s.coherence.home, core::HomePolicy::AllocatingNode);
}

TEST(CoherenceSection, ReadsProtocolHomeAndControlBytes)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json root = withCoherence({{"decode", "moesi-directory"}, {"home", "hashed"}, {"control_bytes", 32}});
    const core::Scenario s = core::parseScenario(root, "mem.json");
    EXPECT_EQ(s.coherence.decode, "moesi-directory");
    EXPECT_EQ(s.coherence.prefill, "direct"); // prefill's shared blocks are plain copies unless named
    EXPECT_EQ(s.coherence.home, core::HomePolicy::Hashed);
    EXPECT_EQ(s.coherence.controlBytes, 32u);
    const auto nodeId = root["topology"]["nodes"][0]["id"].get<std::string>();
    root["coherence"]["home"] = nodeId;
    const core::Scenario named = core::parseScenario(root, "mem.json");
    EXPECT_EQ(named.coherence.home, core::HomePolicy::Node);
    EXPECT_EQ(named.coherence.homeNode, nodeId);
}

TEST(CoherenceSection, UnknownProtocolSuggestsTheClosestName)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const auto p = problemAt(withCoherence({{"decode", "mesi-directroy"}}), "/coherence/decode");
    EXPECT_NE(p.message.find("mesi-directory"), std::string::npos) << p.message;
    EXPECT_NE(p.fix.find("moesi-directory"), std::string::npos) << p.fix;
}

TEST(CoherenceSection, BugHuntVariantsAreNotForRuns)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    problemAt(withCoherence({{"decode", "msi-directory-broken-noinv"}}), "/coherence/decode");
}

TEST(CoherenceSection, APrefillProtocolNeedsBlocksThatPrefillInstancesShare)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json root = withCoherence({{"decode", "lazy-causal"}, {"prefill", "msi-directory"}});
    const auto none = problemAt(root, "/coherence/prefill");
    EXPECT_NE(none.message.find("share no blocks without a prefix pool"), std::string::npos) << none.message;
    root["serving"]["prefix_pool"] = {{"node", "gpu0"}, {"tier", "dram"}};
    const core::Scenario s = core::parseScenario(root, "mem.json");
    EXPECT_EQ(s.coherence.prefill, "msi-directory");
    EXPECT_EQ(s.coherence.decode, "lazy-causal");
    root["coherence"]["tiers"] = {{"dram", "sealed-lease"}};
    const auto both = problemAt(root, "/coherence/prefill");
    EXPECT_NE(both.message.find("both"), std::string::npos) << both.message;
}

TEST(CoherenceSection, UnknownHomeNodeIsNamed)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const auto p = problemAt(withCoherence({{"decode", "msi-directory"}, {"home", "cpu9"}}), "/coherence/home");
    EXPECT_NE(p.message.find("cpu9"), std::string::npos) << p.message;
}

TEST(CoherenceSection, ReadsTheReaderStalenessBound)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const core::Scenario s = core::parseScenario(
        withCoherence({{"decode", "lazy-causal"}, {"staleness", {{"max_versions", 0}, {"max_age", "20 us"}}}}),
        "mem.json");
    ASSERT_TRUE(s.coherence.staleness.maxVersions.has_value());
    EXPECT_EQ(*s.coherence.staleness.maxVersions, 0u);
    ASSERT_TRUE(s.coherence.staleness.maxAge.has_value());
    EXPECT_EQ(*s.coherence.staleness.maxAge, 20'000);
}

TEST(CoherenceSection, StalenessNeedsABoundedStalenessProtocol)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const auto p = problemAt(withCoherence({{"decode", "msi-directory"}, {"staleness", {{"max_versions", 1}}}}),
                             "/coherence/staleness");
    EXPECT_NE(p.message.find("never returns a stale version"), std::string::npos) << p.message;
    EXPECT_NE(p.fix.find("lazy-causal"), std::string::npos) << p.fix;
}

TEST(CoherenceSection, StalenessBeyondTheProtocolsBoundIsNamed)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const auto p = problemAt(withCoherence({{"decode", "lazy-causal"}, {"staleness", {{"max_versions", 2}}}}),
                             "/coherence/staleness");
    EXPECT_NE(p.message.find("at most 1 version"), std::string::npos) << p.message;
    const auto unknown = problemsOf(withCoherence({{"decode", "lazy-causal"}, {"staleness", {{"versions", 1}}}}));
    problemAt(unknown, "/coherence/staleness/versions");
}

TEST(CoherenceSection, ReadsTheLeaseTimeToLiveAndWhatHappensAtExpiry)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const core::Scenario s = core::parseScenario(
        withCoherence({{"decode", "sealed-lease"}, {"lease", {{"ttl", "250 ms"}, {"on_expiry", "trust"}}}}),
        "mem.json");
    ASSERT_TRUE(s.coherence.lease.ttl.has_value());
    EXPECT_EQ(*s.coherence.lease.ttl, 250 * core::kMillisecond);
    EXPECT_EQ(s.coherence.lease.onExpiry, core::LeaseExpiry::Trust);
    const core::Scenario refetch =
        core::parseScenario(withCoherence({{"decode", "sealed-lease"}, {"lease", {{"ttl", "2 s"}}}}), "mem.json");
    EXPECT_EQ(refetch.coherence.lease.onExpiry, core::LeaseExpiry::Refetch); // the correct store is the default
    EXPECT_FALSE(core::parseScenario(withCoherence({{"decode", "sealed-lease"}}), "mem.json").coherence.lease.ttl);
}

TEST(CoherenceSection, ALeaseNeedsAProtocolThatGrantsLeasesAndATimeToLive)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const auto p =
        problemAt(withCoherence({{"decode", "msi-directory"}, {"lease", {{"ttl", "1 s"}}}}), "/coherence/lease/ttl");
    EXPECT_NE(p.message.find("grants no leases"), std::string::npos) << p.message;
    EXPECT_NE(p.fix.find("sealed-lease"), std::string::npos) << p.fix;
    problemAt(withCoherence({{"decode", "sealed-lease"}, {"lease", {{"on_expiry", "trust"}}}}), "/coherence/lease/ttl");
    EXPECT_FALSE(core::parseScenario(withCoherence({{"decode", "msi-directory"}, {"lease", json::object()}}),
                                     "mem.json")
                     .coherence.lease.ttl); // an empty lease is none, under any protocol
    problemAt(withCoherence({{"decode", "sealed-lease"}, {"lease", {{"ttl", "0 s"}}}}), "/coherence/lease/ttl");
    const auto expiry =
        problemAt(withCoherence({{"decode", "sealed-lease"}, {"lease", {{"ttl", "1 s"}, {"on_expiry", "refech"}}}}),
                  "/coherence/lease/on_expiry");
    EXPECT_NE(expiry.message.find("refetch"), std::string::npos) << expiry.message;
    problemAt(withCoherence({{"decode", "sealed-lease"}, {"lease", {{"ttl", "1 s"}, {"expiry", "refetch"}}}}),
              "/coherence/lease/expiry");
}

} // namespace
} // namespace coh::test
