#pragma once
// What the replay says on hover: a node (kind, id, the blocks it holds in each state now), a link (id, kind,
// bandwidth, what each direction carries in the current time bucket and over the run) and a message marker.
#include "ui/replay_model.h"

#include <QString>

namespace coh::ui {

QString nodeToolTip(const ReplayModel& model, std::uint32_t node, qint64 t);
QString linkToolTip(const ReplayModel& model, int link, qint64 t);
QString messageToolTip(const ReplayModel& model, std::uint32_t message);
// "1.50 MB", "830 B": decimal units, as the scenario's bandwidths are written.
QString formatBytes(double bytes);

} // namespace coh::ui
