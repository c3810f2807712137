#pragma once
// What the replay says on hover: a node (kind, id, whether it is down, the blocks it holds in each state now), a link
// (id, kind, bandwidth, what each direction carries in the current time bucket and over the run) and a message marker.
#include "ui/replay_model.h"

#include <QString>

namespace coh::ui {

QString nodeToolTip(const ReplayModel& model, std::uint32_t node, qint64 t);
QString linkToolTip(const ReplayModel& model, int link, qint64 t);
QString messageToolTip(const ReplayModel& model, std::uint32_t message);
// A failure as the timeline's band says it: the node or link, when it failed, was detected and came back, and a
// node's instances and the requests it took.
QString failureToolTip(const ReplayModel& model, const ReplayModel::Failure& failure);
// What a node's or link's tooltip says while the failure has it down at t: since when, and when the cluster knew.
QString downText(const ReplayModel::Failure& failure, qint64 t);
// "1.50 MB", "830 B": decimal units, as the scenario's bandwidths are written.
QString formatBytes(double bytes);

} // namespace coh::ui
