// cohsim calibrate and compare-real end to end through the real binary: a profile written and taken back, both
// runs stored and paired, the simulator's error with what compare-real keeps beside it (its costs moved, the real
// run's own costs), TTFT by part and the attention by step size.
#include "cli_run_fixture.h"
#include "cli_runner.h"
#include "core/real/core_cache.h"
#include "core/real/profile_json.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace coh::test {
namespace {

TEST_F(CliRun, CalibrateWritesAProfileAndCompareRealStoresBothRunsAndReportsTheError)
{
    const std::string profile = (m_dir / "profile.json").string();
    const CliResult calibrate = runCohsim("calibrate --rounds 3 -o " + profile, Stderr::Discard);
    ASSERT_EQ(calibrate.exitCode, 0) << calibrate.output;
    EXPECT_NE(calibrate.output.find("ns + bytes /"), std::string::npos) << calibrate.output;
    // Where the machine names its core's cache, the steps that fit in it are measured apart.
    if (core::real::coreCacheBytes() > 0) {
        EXPECT_NE(calibrate.output.find("  warm steps  "), std::string::npos) << calibrate.output;
    }

    const CliResult compare = runCohsim("compare-real " + defaultScenario() + " --profile " + profile +
                                            " --max-requests 3 --arena-mib 8 --json " + db(),
                                        Stderr::Discard);
    ASSERT_EQ(compare.exitCode, 0) << compare.output;
    const auto out = nlohmann::json::parse(compare.output);
    EXPECT_EQ(out.at("requests"), 3);
    ASSERT_EQ(out.at("metrics").size(), 9u);
    EXPECT_EQ(out.at("metrics")[2].at("metric"), "TPOT p50 (ms)");
    // Each figure says whether the simulator met its goal on it; the counts' agree with counts_equal.
    bool countsWithin = true;
    for (std::size_t m = 6; m < 9; ++m) {
        countsWithin = countsWithin && out.at("metrics")[m].at("within_goal").get<bool>();
        EXPECT_EQ(out.at("metrics")[m].at("real_noise_pct"), 0.0); // a count is exact
    }
    EXPECT_EQ(countsWithin, out.at("counts_equal").get<bool>());
    // A percentile of three requests is uncertain: the real run's own 95% interval (here its lowest to its highest
    // TTFT) is reported beside it.
    EXPECT_GT(out.at("metrics")[0].at("real_noise_pct").get<double>(), 0.0);
    // How many real runs sent other counts than the simulator, and whether none did, agree.
    EXPECT_EQ(out.at("counts_equal").get<bool>(), out.at("real_runs_with_other_counts").get<int>() == 0);
    EXPECT_LE(out.at("real_runs_with_other_counts").get<int>(), out.at("real_runs").get<int>());
    EXPECT_GT(out.at("metrics")[2].at("real").get<double>(), 0.0);
    EXPECT_GT(out.at("metrics")[2].at("simulated").get<double>(), 0.0);
    // The simulator on the real run's own costs: its error per figure, and the profile it ran on.
    EXPECT_GT(out.at("metrics")[2].at("own_costs_simulated").get<double>(), 0.0);
    ASSERT_EQ(out.at("metrics")[2].at("own_costs_errors_pct").size(), 1u);
    EXPECT_EQ(out.at("metrics")[2].at("own_costs_error_pct"), out.at("metrics")[2].at("own_costs_errors_pct")[0]);
    ASSERT_EQ(out.at("own_costs_profiles").size(), 1u);
    EXPECT_NE(out.at("own_costs_profiles")[0].at("attention").at("bandwidth_gbps"),
              out.at("profile").at("attention").at("bandwidth_gbps"));
    // The simulator with its costs moved 5% either way: each figure's error over those runs, a range that holds it.
    EXPECT_EQ(out.at("cost_sensitivity_pct"), 5.0);
    const auto& moved = out.at("metrics")[2].at("moved_costs_error_pct");
    ASSERT_EQ(moved.size(), 2u);
    EXPECT_LE(moved[0].get<double>(), out.at("metrics")[2].at("error_pct").get<double>());
    EXPECT_GE(moved[1].get<double>(), out.at("metrics")[2].at("error_pct").get<double>());
    // TTFT's mean part by part: the parts' differences add up to TTFT's (one real run, one simulated).
    const auto& parts = out.at("ttft_parts");
    ASSERT_EQ(parts.size(), 7u);
    EXPECT_EQ(parts[0].at("part"), "ttft");
    EXPECT_EQ(parts[5].at("part"), "load");
    double differences = 0;
    for (std::size_t p = 1; p < parts.size(); ++p)
        differences += parts[p].at("difference_ms").get<double>();
    EXPECT_NEAR(differences, parts[0].at("difference_ms").get<double>(), 1e-6);
    EXPECT_FALSE(parts[0].contains("pair_differences_ms"));
    // The real run's steps by the bytes a layer read, every one of them, each size against what the profile predicts
    // for it: its step cost and bandwidth (out of the core's cache) or its warm line, at the size's mean bytes.
    const auto& bySize = out.at("attention_by_size");
    ASSERT_FALSE(bySize.empty());
    const auto realProfile = core::real::profileFromJson(out.at("profile"), "profile");
    std::uint64_t steps = 0;
    for (const auto& r : bySize) {
        steps += r.at("steps").get<std::uint64_t>();
        EXPECT_EQ(r.at("to_bytes").get<std::uint64_t>(), 2 * r.at("from_bytes").get<std::uint64_t>());
        const double n = r.at("steps").get<double>(), mean = r.at("bytes").get<double>() / n;
        EXPECT_NEAR(r.at("profile_ns").get<double>(), n * realProfile.attentionNs(mean, 0),
                    1e-9 * r.at("profile_ns").get<double>());
        EXPECT_NEAR(r.at("profile_error_pct").get<double>(),
                    100 * (r.at("profile_ns").get<double>() / r.at("real_ns").get<double>() - 1), 1e-9);
        EXPECT_TRUE(r.contains("own_line_error_pct"));
        EXPECT_FALSE(r.contains("own_costs_error_pct"));
    }
    const CliResult realShown =
        runCohsim("runs show " + std::to_string(out.at("real_run_id").get<int>()) + " --json " + db(), Stderr::Discard);
    EXPECT_EQ(steps, nlohmann::json::parse(realShown.output).at("summary").at("backend").at("decode_steps"));
    const CliResult list = runCohsim("runs list --json " + db(), Stderr::Discard);
    const auto runs = nlohmann::json::parse(list.output);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].at("id"), out.at("simulated_run_id"));
    EXPECT_EQ(runs[0].at("backend"), "simulated");
    EXPECT_EQ(runs[1].at("backend"), "real-cpu");
    // The simulated run names the real run it models.
    EXPECT_EQ(runs[0].at("models_run"), out.at("real_run_id"));
    EXPECT_TRUE(runs[1].at("models_run").is_null());
    const CliResult show =
        runCohsim("runs show " + std::to_string(out.at("simulated_run_id").get<int>()) + " " + db(), Stderr::Discard);
    EXPECT_NE(show.output.find("simulated on the calibrated profile"), std::string::npos) << show.output;
    // Its steps by the traffic before them, kept as the real run keeps its own.
    EXPECT_NE(
        show.output.find("  by traffic      a layer out of the core's cache, by the bytes copied since its node's "
                         "step before: none at "),
        std::string::npos)
        << show.output;
    // With it, what compare-real kept: the simulator with its costs moved 2.5% and 5% either way, and on the real
    // run's own costs (below); the export carries them too.
    EXPECT_NE(show.output.find("  costs x 0.95    the simulator gave TTFT p50 "), std::string::npos) << show.output;
    EXPECT_NE(show.output.find("  costs x 1.025   the simulator gave TTFT p50 "), std::string::npos) << show.output;
    const CliResult exported = runCohsim(
        "export " + std::to_string(out.at("simulated_run_id").get<int>()) + " --format json " + db(), Stderr::Discard);
    ASSERT_EQ(exported.exitCode, 0) << exported.output;
    const auto variants = nlohmann::json::parse(exported.output).at("cost_variants");
    ASSERT_EQ(variants.size(), 4u);
    EXPECT_EQ(variants[0].at("kind"), "moved_costs");
    EXPECT_EQ(variants[0].at("factor"), 0.95);
    EXPECT_EQ(variants[3].at("factor"), 1.05);
    // `runs show --json` gives the same.
    const CliResult shown = runCohsim(
        "runs show " + std::to_string(out.at("simulated_run_id").get<int>()) + " --json " + db(), Stderr::Discard);
    EXPECT_EQ(nlohmann::json::parse(shown.output).at("cost_variants"), variants);
    // compare-real's range for each latency is the lowest and highest error over the simulated run and those four,
    // as exported.
    for (std::size_t m = 0; m < 6; ++m) {
        const auto& metric = out.at("metrics").at(m);
        const std::string key = m < 2 ? "ttft_ms" : m < 4 ? "tpot_ms" : "transfer_ms";
        const char* quantile = m % 2 ? "p99" : "p50";
        const double real = metric.at("real").get<double>();
        if (real == 0 || metric.at("moved_costs_error_pct").is_null())
            continue;
        std::vector<double> errors{100 * (metric.at("simulated").get<double>() / real - 1)};
        for (const auto& v : variants)
            errors.push_back(100 * (v.at("summary").at(key).at(quantile).get<double>() / real - 1));
        EXPECT_NEAR(*std::min_element(errors.begin(), errors.end()),
                    metric.at("moved_costs_error_pct").at(0).get<double>(), 1e-6)
            << metric.at("metric");
        EXPECT_NEAR(*std::max_element(errors.begin(), errors.end()),
                    metric.at("moved_costs_error_pct").at(1).get<double>(), 1e-6)
            << metric.at("metric");
    }
    // The real run shows the costs it fitted over its own copies and steps.
    const CliResult real =
        runCohsim("runs show " + std::to_string(out.at("real_run_id").get<int>()) + " " + db(), Stderr::Discard);
    EXPECT_NE(real.output.find("own costs       a copy "), std::string::npos) << real.output;
    EXPECT_NE(real.output.find("a layer of a decode step's attention "), std::string::npos) << real.output;
    EXPECT_NE(real.output.find("  on own costs    the simulator gave TTFT p50 "), std::string::npos) << real.output;

    // Not moved: no range, and no column; moved past half is refused.
    const CliResult unmoved = runCohsim("compare-real " + defaultScenario() + " --profile " + profile +
                                            " --max-requests 2 --arena-mib 8 --no-store --sensitivity 0",
                                        Stderr::Discard);
    ASSERT_EQ(unmoved.exitCode, 0) << unmoved.output;
    EXPECT_EQ(unmoved.output.find("AT COSTS"), std::string::npos) << unmoved.output;
    const CliResult movedText = runCohsim("compare-real " + defaultScenario() + " --profile " + profile +
                                              " --max-requests 2 --arena-mib 8 --no-store --sensitivity 10",
                                          Stderr::Discard);
    ASSERT_EQ(movedText.exitCode, 0) << movedText.output;
    EXPECT_NE(movedText.output.find("AT COSTS ±10%"), std::string::npos) << movedText.output;
    EXPECT_NE(movedText.output.find("5% and 10% shorter and longer"), std::string::npos) << movedText.output;
    const CliResult tooFar = runCohsim("compare-real " + defaultScenario() + " --no-store --sensitivity 60");
    EXPECT_EQ(tooFar.exitCode, 2) << tooFar.output;
    EXPECT_NE(tooFar.output.find("--sensitivity"), std::string::npos) << tooFar.output;

    // A profile with a figure missing is refused with the field and the fix.
    auto broken = nlohmann::json::parse(std::ifstream(profile));
    broken["copy"].erase("bandwidth_gbps");
    const CliResult bad =
        runCohsim("compare-real " + defaultScenario() + " --no-store --profile " + file("broken.json", broken.dump()));
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("/copy/bandwidth_gbps"), std::string::npos) << bad.output;
}

TEST_F(CliRun, WithRealRoutesTheSimulatorSendsEachRequestWhereTheRealRunDid)
{
    const CliResult compare =
        runCohsim("compare-real " + defaultScenario() +
                      " --max-requests 12 --arena-mib 8 --sensitivity 0 --real-routes --json " + db(),
                  Stderr::Discard);
    ASSERT_EQ(compare.exitCode, 0) << compare.output;
    const auto out = nlohmann::json::parse(compare.output);
    EXPECT_EQ(out.at("real_routes"), true);
    EXPECT_EQ(out.at("routes_replayed"), 24); // a prefill and a decode for each of 12 requests
    EXPECT_EQ(out.at("routes_routed_anew"), 0);
    const auto requests = [&](const char* key) {
        const CliResult exported =
            runCohsim("export " + std::to_string(out.at(key).get<int>()) + " --format json " + db(), Stderr::Discard);
        return nlohmann::json::parse(exported.output).at("requests");
    };
    const auto real = requests("real_run_id"), simulated = requests("simulated_run_id");
    ASSERT_EQ(real.size(), 12u);
    ASSERT_EQ(simulated.size(), 12u);
    for (std::size_t i = 0; i < real.size(); ++i) {
        EXPECT_EQ(simulated[i].at("prefill_instance"), real[i].at("prefill_instance")) << i;
        EXPECT_EQ(simulated[i].at("decode_instance"), real[i].at("decode_instance")) << i;
    }
    // The stored simulated run says it was routed so.
    const CliResult shown =
        runCohsim("runs show " + std::to_string(out.at("simulated_run_id").get<int>()) + " " + db(), Stderr::Discard);
    EXPECT_NE(shown.output.find("  routes          as a real run routed them (compare-real --real-routes): 24 of 24 "
                                "routing decisions as the real run made them\n"),
              std::string::npos)
        << shown.output;
}

TEST_F(CliRun, AProfileAnotherMachineMeasuredIsSaidToBeThatMachines)
{
    const std::string profile = (m_dir / "profile.json").string();
    ASSERT_EQ(runCohsim("calibrate --rounds 1 -o " + profile, Stderr::Discard).exitCode, 0);
    const std::string run = "compare-real " + defaultScenario() + " --max-requests 2 --sensitivity 0 --no-store";
    // This machine's own profile: nothing said, and the JSON says it is this machine's.
    const CliResult own = runCohsim(run + " --profile " + profile, Stderr::Discard);
    ASSERT_EQ(own.exitCode, 0) << own.output;
    EXPECT_EQ(own.output.find("not on this machine"), std::string::npos) << own.output;
    // Another's: its costs are that machine's, and the output says so.
    nlohmann::json j = nlohmann::json::parse(std::ifstream(profile));
    j["host"] = "lab-node-7";
    const std::string other = file("other.json", j.dump());
    const CliResult said = runCohsim(run + " --profile " + other, Stderr::Discard);
    ASSERT_EQ(said.exitCode, 0) << said.output;
    EXPECT_NE(said.output.find("the profile was measured on lab-node-7"), std::string::npos) << said.output;
    EXPECT_NE(said.output.find("not on this machine"), std::string::npos) << said.output;
    const CliResult json = runCohsim(run + " --json --profile " + other, Stderr::Discard);
    ASSERT_EQ(json.exitCode, 0) << json.output;
    EXPECT_EQ(nlohmann::json::parse(json.output).at("profile_of_this_machine"), false);
    // This host's name with another count of cores (a VM resized, or another machine of the same name) or another CPU:
    // another machine too.
    nlohmann::json resized = nlohmann::json::parse(std::ifstream(profile));
    const unsigned cores = resized.at("cores").get<unsigned>();
    resized["cores"] = cores + 6;
    const CliResult more = runCohsim(run + " --profile " + file("resized.json", resized.dump()), Stderr::Discard);
    ASSERT_EQ(more.exitCode, 0) << more.output;
    EXPECT_NE(more.output.find(fmt::format("with {} cores, not on this machine (", cores + 6)), std::string::npos)
        << more.output;
    nlohmann::json moved = nlohmann::json::parse(std::ifstream(profile));
    if (moved.at("cpu").get<std::string>().empty())
        return; // this machine names no CPU model: nothing to tell another by
    moved["cpu"] = "Another CPU 9000";
    const CliResult cpu = runCohsim(run + " --json --profile " + file("moved.json", moved.dump()), Stderr::Discard);
    ASSERT_EQ(cpu.exitCode, 0) << cpu.output;
    EXPECT_EQ(nlohmann::json::parse(cpu.output).at("profile_of_this_machine"), false);
}

TEST_F(CliRun, AProfileWhoseCopiesALoneBenchMeasuredIsSaidToBe)
{
    const std::string profile = (m_dir / "profile.json").string();
    ASSERT_EQ(runCohsim("calibrate --rounds 1 -o " + profile, Stderr::Discard).exitCode, 0);
    nlohmann::json j = nlohmann::json::parse(std::ifstream(profile));
    // A calibration now copies as a run's traffic leaves the caches, and its profile says so.
    EXPECT_EQ(j.at("copy").at("caches_left"), true);
    const std::string run = "compare-real " + defaultScenario() + " --max-requests 2 --sensitivity 0 --no-store";
    const CliResult now = runCohsim(run + " --profile " + profile, Stderr::Discard);
    ASSERT_EQ(now.exitCode, 0) << now.output;
    EXPECT_EQ(now.output.find("lone bench"), std::string::npos) << now.output;
    // One made before says nothing: its copies ran faster than a run's, and compare-real says so.
    j["copy"].erase("caches_left");
    const CliResult before = runCohsim(run + " --profile " + file("before.json", j.dump()), Stderr::Discard);
    ASSERT_EQ(before.exitCode, 0) << before.output;
    EXPECT_NE(before.output.find("the profile: its copies were measured as a lone bench leaves the caches"),
              std::string::npos)
        << before.output;
    // Anything but true or false is refused, naming the field.
    j["copy"]["caches_left"] = "yes";
    const CliResult bad = runCohsim(run + " --profile " + file("bad.json", j.dump()));
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("/copy/caches_left"), std::string::npos) << bad.output;
}

} // namespace
} // namespace coh::test
