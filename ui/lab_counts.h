#pragma once
// Numbers a lesson may quote, computed from a live lab run so no lesson text ever types a number in:
// {messages}, {writebacks}, {memory_writes}, ... (docs/gui-lab.md lists them).
#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_table.h"

#include <QMap>
#include <QString>

namespace coh::ui {

// Name -> value as text. Numeric counts only, plus "protocol" and "violation".
QMap<QString, QString> labCounts(const core::coherence::Protocol& protocol, const core::coherence::LabRun& run);

// The counts of `run`, those of `compare` as compare_<name>, and for each number saved_<name> = compare - run and
// extra_<name> = run - compare.
QMap<QString, QString> lessonValues(const core::coherence::Protocol& protocol, const core::coherence::LabRun& run,
                                    const core::coherence::Protocol* compareProtocol,
                                    const core::coherence::LabRun* compare);

} // namespace coh::ui
