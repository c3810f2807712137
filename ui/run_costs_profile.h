#pragma once
// History ▸ Export ▸ Profile of Its Costs…: a profile of a stored real run's own costs, the one `cohsim calibrate
// --from-run ID -o FILE` writes (core::storedRunCosts, core::calibrateWithRunCosts), made off the GUI thread with
// progress and cancel (profile_job.h), then offered to Simulator Against Real
// (docs/real-backend.md#a-profile-of-a-real-runs-costs).

#include "ui/profile_job.h"

#include <QString>

#include <atomic>
#include <functional>

class QMessageBox;
class QWidget;

namespace coh::ui {

// Makes the profile of run `id` of the database at `databasePath` and writes it to `filePath` whole or not at all, on
// the calling thread (a worker's: a calibration takes seconds). `summary` says which of the run's costs it took;
// `notes`, another machine's run and seal sums.
ProfileOutcome writeRunCostsProfile(const QString& databasePath, qint64 id, const QString& filePath,
                                    const std::atomic<bool>* cancel = nullptr, const ProfileProgress& progress = {});

// profileBox for the profile of run `id`'s costs written at `path`.
QMessageBox* runCostsProfileBox(QWidget* parent, qint64 id, const QString& path, const ProfileOutcome& out,
                                std::function<void(const QString& path)> use = {});

// makeProfileWithDialog for run `id`'s costs.
bool runCostsProfileWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                               std::function<void(const QString& path)> use = {}, std::function<void()> done = {});

} // namespace coh::ui
