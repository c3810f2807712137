// cohsim devices: the GPUs the real backend can use on this machine.
#include "app/cohsim/command.h"
#include "app/cohsim/summary_text.h"
#include "core/gpu/cuda_devices.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace coh::cli {

static const bool registered = registerCommand("devices", [](CLI::App& app, GlobalOptions&) {
    auto json = std::make_shared<bool>(false);
    auto* devices = app.add_subcommand("devices", "List the CUDA GPUs on this machine (none is fine)");
    devices->add_flag("--json", *json, "Print JSON");
    devices->callback([json] {
        const core::GpuInventory inv = core::probeGpus();
        if (*json) {
            nlohmann::ordered_json out = {
                {"cuda_build", inv.cudaBuild}, {"reason", inv.reason}, {"devices", nlohmann::json::array()}};
            for (const auto& d : inv.devices)
                out["devices"].push_back({{"index", d.index},
                                          {"name", d.name},
                                          {"memory_bytes", d.memoryBytes},
                                          {"multiprocessors", d.multiprocessors},
                                          {"compute_capability", fmt::format("{}.{}", d.computeMajor, d.computeMinor)},
                                          {"memory_bandwidth_bytes_per_s", d.memoryBandwidthBytesPerSec}});
            fmt::print("{}\n", out.dump(2));
            return;
        }
        if (inv.devices.empty()) {
            fmt::print("No GPU: {}\n", inv.reason);
            return;
        }
        for (const auto& d : inv.devices)
            fmt::print("GPU {}: {} (sm_{}{}), {} SMs, {} memory at {}\n", d.index, d.name, d.computeMajor,
                       d.computeMinor, d.multiprocessors, scaled(static_cast<double>(d.memoryBytes), "B"),
                       scaled(d.memoryBandwidthBytesPerSec, "B/s"));
    });
});

} // namespace coh::cli
