#pragma once
// What the editor fills in for a new node or link, and the names the scenario format accepts for kinds, roles
// and tiers (taken from core's enum tables, so the editor offers exactly what validation accepts).

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace coh::ui {

QStringList nodeKindNames();                // cpu_socket, gpu, accelerator, cxl_memory, switch, storage
QStringList nodeRoleNames();                // prefill, decode, both, host, memory (no role = key absent)
QStringList tierNames();                    // hbm, dram, cxl, storage
QStringList linkKindNames();                // on_chip, upi, pcie, cxl, nvlink, infiniband, ethernet
QString nodeKindLabel(const QString& kind); // "CPU socket", "GPU", ...

// A new node of `kind` without id and position: gpu/accelerator get compute and an hbm tier, cpu_socket the
// host role and a dram tier, cxl_memory a cxl tier, storage a storage tier, switch nothing.
nlohmann::ordered_json defaultNode(const QString& kind);
// A memory tier entry for the "Add tier" button ({ "tier": name, "capacity": ..., "bandwidth": ... }).
nlohmann::ordered_json defaultTier(const QString& tier);
// "gpu" -> "gpu" (ids gpu0, gpu1, ...), "cpu_socket" -> "cpu", "cxl_memory" -> "cxl", ...
QString nodeIdPrefix(const QString& kind);
// Latency and bandwidth of a typical link of `kind` ("1 us", "64 GB/s" for pcie), as unit strings.
nlohmann::ordered_json defaultLink(const QString& kind);
// The link kind usually found between two node kinds (gpu-gpu nvlink, cpu-cpu upi, cpu-cxl cxl, else pcie).
QString suggestedLinkKind(const QString& kindA, const QString& kindB);

} // namespace coh::ui
