#include "tests/fuzz/fuzz_targets.h"

#include "core/base/input_error.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario_loader.h"
#include "core/scenario/strict_json.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"
#include "core/workload/azure_trace.h"
#include "core/workload/mooncake_trace.h"
#include "core/workload/workload_builder.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <unistd.h>

namespace coh::fuzz {

namespace {

namespace fs = std::filesystem;

// The readers take paths, so each input is written to a file of this process's own.
std::string inputFile(std::string_view suffix)
{
    return (fs::temp_directory_path() / ("coh-fuzz-" + std::to_string(::getpid()) + std::string(suffix))).string();
}

std::string writeInput(std::string_view suffix, const std::uint8_t* data, std::size_t size)
{
    const std::string path = inputFile(suffix);
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

// Short runs only: the point is every conversion and check on the way, not a long simulation.
constexpr std::uint32_t kRequestsSimulated = 24;
constexpr std::uint64_t kTokensSimulated = 200'000;

void fuzzScenario(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    // The file name matters: relative trace paths resolve against its folder, then datasets/.
    const std::string file = inputFile(".json");
    core::Scenario scenario = core::parseScenario(core::parseStrictJson<nlohmann::json>(text, file), file);
    core::limitRequests(scenario.workload, kRequestsSimulated);
    scenario.record.maxMessages = std::min<std::uint32_t>(scenario.record.maxMessages, 1000);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    const std::uint64_t tokens = std::accumulate(
        workload.requests.begin(), workload.requests.end(), std::uint64_t{0},
        [](std::uint64_t sum, const core::Request& r) { return sum + r.promptTokens + r.outputTokens; });
    if (tokens > kTokensSimulated) {
        core::checkRunnable(scenario, workload);
        return;
    }
    core::runScenario(scenario, workload);
}

// A hardware profile (`cohsim calibrate -o`), as compare-real takes it: read, checked against the scenario it is to
// stand for, then the simulator on it for a few requests of the default scenario.
void fuzzProfile(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string file = inputFile(".json");
    const core::real::HardwareProfile profile =
        core::real::profileFromJson(core::parseStrictJson<nlohmann::json>(text, file), file);
    static const core::Scenario base = [] {
        core::Scenario s = core::loadScenarioFile(COH_DATASETS_DIR "/scenarios/default.json");
        core::limitRequests(s.workload, 8);
        return s;
    }();
    core::checkProfileFits(profile, profile.backend, base, {});
    const core::Scenario scenario = core::real::profiledScenario(base, profile);
    core::RunOptions options;
    options.backend.profile = profile;
    core::runScenario(scenario, core::buildWorkload(scenario.workload, scenario.seed), options);
}

void fuzzRunStore(const std::uint8_t* data, std::size_t size)
{
    const std::string path = inputFile(".db");
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        std::remove((path + suffix).c_str());
    writeInput(".db", data, size);
    core::RunStore store(path);
    for (const core::RunInfo& info : store.listRuns()) {
        store.runInfo(info.id);
        store.runSummary(info.id);
        store.scenarioJson(info.id);
        store.nodeBlocks(info.id);
        store.loadRun(info.id);
    }
}

} // namespace

std::string_view targetName(Target target)
{
    switch (target) {
    case Target::Scenario:
        return "scenario";
    case Target::AzureTrace:
        return "azure-trace";
    case Target::MooncakeTrace:
        return "mooncake-trace";
    case Target::RunStore:
        return "run-store";
    case Target::Profile:
        return "profile";
    }
    return "?";
}

std::optional<Target> targetFromName(std::string_view name)
{
    for (auto t : {Target::Scenario, Target::AzureTrace, Target::MooncakeTrace, Target::RunStore, Target::Profile})
        if (targetName(t) == name)
            return t;
    return std::nullopt;
}

void runInput(Target target, const std::uint8_t* data, std::size_t size)
{
    try {
        switch (target) {
        case Target::Scenario:
            fuzzScenario(data, size);
            break;
        case Target::AzureTrace:
            core::readAzureTrace(writeInput(".csv", data, size), 1.0, 0);
            break;
        case Target::MooncakeTrace:
            core::readMooncakeTrace(writeInput(".jsonl", data, size), 1.0, 0);
            break;
        case Target::RunStore:
            fuzzRunStore(data, size);
            break;
        case Target::Profile:
            fuzzProfile(data, size);
            break;
        }
    } catch (const core::InputError&) {
        // Refused with a message naming the file and the fix: what bad input is meant to get.
    }
}

} // namespace coh::fuzz
