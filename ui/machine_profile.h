#pragma once
// Run ▸ Execute On ▸ Calibrate This Machine to a Profile File…: the profile `cohsim calibrate SCENARIO
// --backend B -o FILE` writes, this machine's real backend measured for the scenario's decode steps
// (core::calibrationFor), made off the GUI thread with progress and cancel (profile_job.h), then offered to Simulator
// Against Real, which runs on it instead of calibrating before every run (docs/real-backend.md#calibration).

#include "core/real/backend.h"
#include "core/scenario/scenario.h"
#include "ui/profile_job.h"

#include <QString>

#include <atomic>
#include <functional>
#include <string>

class QWidget;

namespace coh::ui {

// Measures `backend` ("real-cpu", "real-cuda") for `scenario` with memories of `realCpu`'s size and writes the profile
// to `filePath` whole or not at all, on the calling thread (a worker's). `summary` gives the fitted costs in words. A
// scenario the backend cannot run is refused as a run would refuse it, before anything is measured.
ProfileOutcome writeMachineProfile(const core::Scenario& scenario, const std::string& backend,
                                   const core::real::RealCpuOptions& realCpu, const QString& filePath,
                                   const std::atomic<bool>* cancel = nullptr, const ProfileProgress& progress = {});

// makeProfileWithDialog for this machine's `backend` and `scenario` (named `scenarioName` in the dialogs).
bool machineProfileWithDialog(QWidget* parent, const core::Scenario& scenario, const QString& scenarioName,
                              const std::string& backend, const core::real::RealCpuOptions& realCpu,
                              std::function<void(const QString& path)> use = {}, std::function<void()> done = {});

} // namespace coh::ui
