// cohsim calibrate --from-run end to end: a profile whose copies and attention are a stored real run's own costs
// (its fitted lines and its steps' time at each step size), named after the run, that compare-real runs the
// simulator on; and each run it cannot take refused naming --from-run, before anything is measured.
#include "cli_run_fixture.h"
#include "cli_runner.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/calibration.h"
#include "core/real/hardware_profile.h"
#include "core/real/profile_json.h"
#include "core/store/backend_json.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace coh::test {
namespace {

class CalibrateFromRun : public CliRun {
  protected:
    // The id of the newest run in the test's database.
    std::int64_t newestRun() const
    {
        const CliResult list = runCohsim("runs list --json " + db(), Stderr::Discard);
        return nlohmann::json::parse(list.output).at(0).at("id").get<std::int64_t>();
    }
};

TEST_F(CalibrateFromRun, TakesTheRunsOwnCostsAndCompareRealRunsTheSimulatorOnThem)
{
    const CliResult real = runCohsim("run " + defaultScenario() +
                                         " --backend real-cpu --max-requests 4 --arena-mib 8 --no-seal-sums " + db(),
                                     Stderr::Discard);
    ASSERT_EQ(real.exitCode, 0) << real.output;
    const std::int64_t id = newestRun();
    const auto backend =
        nlohmann::json::parse(runCohsim("runs show " + std::to_string(id) + " --json " + db(), Stderr::Discard).output)
            .at("summary")
            .at("backend");
    ASSERT_TRUE(backend.contains("copy_fit")) << backend.dump();
    ASSERT_TRUE(backend.contains("attention_by_size")) << backend.dump();

    const std::string profile = (m_dir / "profile.json").string();
    const CliResult calibrate =
        runCohsim("calibrate --from-run " + std::to_string(id) + " --rounds 1 -o " + profile + " " + db());
    ASSERT_EQ(calibrate.exitCode, 0) << calibrate.output;
    EXPECT_NE(calibrate.output.find("from run " + std::to_string(id) + " (default"), std::string::npos)
        << calibrate.output;
    // A run without seal sums is what compare-real's runs are: nothing to warn of.
    EXPECT_EQ(calibrate.output.find("summed its blocks' seals"), std::string::npos) << calibrate.output;

    std::ifstream in(profile);
    const auto written = nlohmann::json::parse(in);
    EXPECT_EQ(written.at("costs_of_run"), id);
    // The copies cost the run's own fit, whole (its copies were timed in their pieces already).
    EXPECT_DOUBLE_EQ(written.at("copy").at("latency_ns").get<double>(),
                     backend.at("copy_fit").at("fixed_ns").get<double>());
    EXPECT_DOUBLE_EQ(written.at("copy").at("bandwidth_gbps").get<double>(),
                     backend.at("copy_fit").at("bytes_per_ns").get<double>());
    EXPECT_EQ(written.at("copy").at("descriptor_ns"), 0.0);
    EXPECT_TRUE(written.at("copy").at("measured").empty());
    // A layer of attention costs the run's steps' own mean time at each step size it took, but for a size whose steps
    // took less time than the size before on its side of the cache (a noisy run's), which no curve follows. Where the
    // run kept its steps by the traffic before them and they tell traffic from size, each size's time after no
    // traffic instead, and each amount's factor (real::ownAttention, tested on its own).
    const core::BackendSummary stored = core::backendFromJson(nlohmann::ordered_json::parse(backend.dump()));
    const core::real::OwnAttention own =
        core::real::ownAttention(stored, written.at("attention").value("warm_bytes", std::size_t{0}));
    EXPECT_EQ(written.at("attention").contains("after_traffic"), !own.factors.empty());
    const core::real::HardwareProfile read = core::real::profileFromJson(written, profile);
    EXPECT_EQ(read.attentionAfterTraffic, own.factors);
    std::vector<core::real::AttentionCurvePoint> means;
    for (const auto& bucket : backend.at("attention_by_size")) {
        const double steps = bucket.at("steps").get<double>();
        means.push_back({bucket.at("bytes").get<double>() / steps, bucket.at("ns").get<double>() / steps,
                         bucket.value("in_cache", false)});
    }
    if (own.quiet)
        means = own.curve;
    const auto& attention = written.at("attention");
    const std::vector<core::real::AttentionCurvePoint> kept =
        core::real::plausibleCurve(means, attention.value("warm_bytes", std::size_t{0}));
    ASSERT_FALSE(kept.empty());
    const auto& curve = attention.at("curve");
    ASSERT_EQ(curve.size(), kept.size()) << curve.dump();
    for (std::size_t i = 0; i < kept.size(); ++i) {
        EXPECT_DOUBLE_EQ(curve[i].at("bytes").get<double>(), kept[i].bytes);
        EXPECT_DOUBLE_EQ(curve[i].at("ns").get<double>(), kept[i].ns);
        EXPECT_EQ(curve[i].at("in_cache").get<bool>(), kept[i].inCache);
    }

    // compare-real runs the simulator on it, and says whose costs they are.
    const CliResult compare = runCohsim("compare-real " + defaultScenario() + " --profile " + profile +
                                            " --max-requests 4 --arena-mib 8 --no-store",
                                        Stderr::Discard);
    ASSERT_EQ(compare.exitCode, 0) << compare.output;
    EXPECT_NE(compare.output.find("the costs of real run " + std::to_string(id)), std::string::npos) << compare.output;
}

TEST_F(CalibrateFromRun, ARunItCannotTakeIsRefusedNamingTheOption)
{
    const auto refused = [this](const std::string& args, const std::string& says) {
        const CliResult r = runCohsim("calibrate " + args + " " + db());
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("--from-run"), std::string::npos) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
        EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
    };
    refused("--from-run 7", "there is no run with id 7");
    refused("--from-run seven", "'seven'");

    ASSERT_EQ(runCohsim("run " + defaultScenario() + " --max-requests 3 " + db(), Stderr::Discard).exitCode, 0);
    refused("--from-run " + std::to_string(newestRun()), "is simulated");

    ASSERT_EQ(runCohsim("run " + defaultScenario() + " --backend real-cpu --max-requests 3 --arena-mib 8 " + db(),
                        Stderr::Discard)
                  .exitCode,
              0);
    const std::string real = std::to_string(newestRun());
    refused("--from-run " + real + " --backend real-cuda", "ran on real-cpu");
    // A scenario of another model's decode steps than the run's: its profile would cost other steps.
    std::ifstream in(defaultScenario());
    auto scenario = nlohmann::json::parse(in);
    scenario["model"] = "Llama-2-7B";
    refused("--from-run " + real + " --rounds 1 " + file("other-model.json", scenario.dump()),
            "ran another model's steps");
    // A real-cuda run needs a GPU here to calibrate beside its costs: without one it is refused first, before the
    // output path is looked at.
    if (core::probeGpus().devices.empty()) {
        {
            SQLite::Database runs((m_dir / "runs.db").string(), SQLite::OPEN_READWRITE);
            runs.exec("UPDATE runs SET backend = 'real-cuda' WHERE id = " + real);
        }
        refused("--from-run " + real + " -o " + (m_dir / "no-such-folder" / "p.json").string(), "needs a GPU");
        SQLite::Database runs((m_dir / "runs.db").string(), SQLite::OPEN_READWRITE);
        runs.exec("UPDATE runs SET backend = 'real-cpu' WHERE id = " + real);
    }
    // A run that summed its seals is taken, and said to have.
    const CliResult summed = runCohsim("calibrate --from-run " + real + " --rounds 1 " + db());
    EXPECT_EQ(summed.exitCode, 0) << summed.output;
    EXPECT_NE(summed.output.find("summed its blocks' seals"), std::string::npos) << summed.output;
}

TEST_F(CalibrateFromRun, ARunOfAnotherMachineNamesItAndAScenarioGivenStandsForOneThatNoLongerReads)
{
    ASSERT_EQ(runCohsim("run " + defaultScenario() + " --backend real-cpu --max-requests 3 --arena-mib 8 " + db(),
                        Stderr::Discard)
                  .exitCode,
              0);
    const std::string id = std::to_string(newestRun());
    {
        SQLite::Database runs((m_dir / "runs.db").string(), SQLite::OPEN_READWRITE);
        runs.exec("UPDATE runs SET host = 'lab-node-7', scenario_json = 'not json' WHERE id = " + id);
    }
    // Its stored scenario no longer reads: without a scenario file there is nothing to calibrate for.
    const CliResult unread = runCohsim("calibrate --from-run " + id + " " + db());
    EXPECT_EQ(unread.exitCode, 2) << unread.output;
    EXPECT_NE(unread.output.find("give the run's scenario file"), std::string::npos) << unread.output;
    // With one, that scenario's steps are taken as the run's, and said to be.
    const std::string profile = (m_dir / "profile.json").string();
    const CliResult made =
        runCohsim("calibrate " + defaultScenario() + " --from-run " + id + " --rounds 1 -o " + profile + " " + db());
    ASSERT_EQ(made.exitCode, 0) << made.output;
    EXPECT_NE(made.output.find("stored scenario does not read here"), std::string::npos) << made.output;
    // The costs are that machine's: the profile names it (its CPU and cores not kept), and compare-real says so.
    EXPECT_NE(made.output.find("ran on lab-node-7, not on this machine"), std::string::npos) << made.output;
    std::ifstream in(profile);
    const auto written = nlohmann::json::parse(in);
    EXPECT_EQ(written.at("host"), "lab-node-7");
    EXPECT_EQ(written.at("cores"), 0);
    const CliResult compare = runCohsim("compare-real " + defaultScenario() + " --profile " + profile +
                                            " --max-requests 2 --arena-mib 8 --sensitivity 0 --no-store --json",
                                        Stderr::Discard);
    ASSERT_EQ(compare.exitCode, 0) << compare.output;
    EXPECT_EQ(nlohmann::json::parse(compare.output).at("profile_of_this_machine"), false);
}

} // namespace
} // namespace coh::test
