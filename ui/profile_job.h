#pragma once
// Making a hardware profile file in the app: a calibration of this machine takes seconds, so it runs on a worker under
// a progress dialog that names each measurement and can cancel it, then a box says what the file holds and offers it
// to Simulator Against Real. History's Profile of Its Costs… (run_costs_profile.h) and Execute On's Calibrate This
// Machine… (machine_profile.h) both make theirs so.

#include "core/real/hardware_profile.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <optional>
#include <string>

class QMessageBox;
class QWidget;

namespace coh::ui {

struct ProfileOutcome {
    bool written = false;
    bool cancelled = false;
    QString error;     // why not, naming the run, the scenario or the file, with the fix
    QString summary;   // what the profile holds, in a sentence or two
    QStringList notes; // what to know before using it
};

// Told each measurement on the worker's thread: the share done and what it measures next.
using ProfileProgress = std::function<void(double fraction, const QString& measuring)>;

struct ProfileJob {
    QString title;         // of the dialogs: "Profile of Run 7's Costs"
    QString suggestedName; // the file the save dialog offers: "run-7-costs.json"
    QString startText;     // the progress dialog's first words: "Calibrating this machine for run 7's scenario…"
    // The box's first line, for the file written: "The profile of run 7's costs is in /home/me/run-7-costs.json."
    std::function<QString(const QString& path)> writtenText;
    // Makes the profile and writes it to `path`, on a worker: it must not touch widgets.
    std::function<ProfileOutcome(const QString& path, const std::atomic<bool>* cancel, const ProfileProgress& progress)>
        make;
};

// Writes `profile` to `filePath` whole or not at all; false with the reason (naming the file) in `error`.
bool writeProfileFile(const core::real::HardwareProfile& profile, const QString& filePath, QString* error);

// What a ProfileJob's `make` does on its worker: `measure` calibrates (told `progress`'s way, as core tells it),
// filling the outcome's summary and notes, or says in its error why there is nothing to measure (returning none); the
// profile is then written to `filePath`. A cancel, a throw (RunCancelled, InputError, ...) and a failed write end in
// the outcome, nothing written.
ProfileOutcome
writeMeasuredProfile(const QString& filePath, const std::atomic<bool>* cancel,
                     const std::function<std::optional<core::real::HardwareProfile>(ProfileOutcome&)>& measure);
// `progress` as core's calibration tells it (UTF-8 text); none where `progress` is empty.
std::function<void(double, const std::string&)> coreProgress(const ProfileProgress& progress);

// The box that says what the profile at `path` holds (`out.summary`, then its notes), with Use for Simulator Against
// Real where `use` is given: `use` gets the path when it is pressed. Deleted when closed.
QMessageBox* profileBox(QWidget* parent, const QString& title, const QString& text, const ProfileOutcome& out,
                        const QString& path, std::function<void(const QString& path)> use = {});

// Whether a profile is being made now (on the GUI thread): one calibration at a time, and no run beside it, since each
// would measure the other's traffic. The app's run refuses to start while it is.
bool profileBeingMade();

// Asks where to write, runs `job.make` on a worker under a progress dialog whose Cancel (or Escape, or closing it)
// stops it at the next measurement (the dialog stays up until it has), then shows profileBox over `parent` (or the
// failure). False where no file was chosen or another profile is being made (said over `parent`): nothing started.
// Else `done` is called once the worker has ended, written, failed or cancelled.
bool makeProfileWithDialog(QWidget* parent, ProfileJob job, std::function<void(const QString& path)> use = {},
                           std::function<void()> done = {});

} // namespace coh::ui
