#pragma once
// History ▸ Export ▸ Profile of Its Costs…: a profile of a stored real run's own costs, the one `cohsim calibrate
// --from-run ID -o FILE` writes (core::storedRunCosts, core::calibrateWithRunCosts), made off the GUI thread with
// progress and cancel, then offered to Simulator Against Real (docs/real-backend.md#a-profile-of-a-real-runs-costs).

#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>

class QMessageBox;
class QWidget;

namespace coh::ui {

struct RunCostsProfileOutcome {
    bool written = false;
    bool cancelled = false;
    QString error;     // why not, naming the run or the file, with the fix
    QString taken;     // which of the run's costs the profile holds, in a sentence
    QStringList notes; // what to know before using it: another machine's costs, seal sums
};

// Makes the profile of run `id` of the database at `databasePath` and writes it to `filePath` whole or not at all, on
// the calling thread (a worker's: a calibration takes seconds). `progress` is told each measurement from that thread.
RunCostsProfileOutcome
writeRunCostsProfile(const QString& databasePath, qint64 id, const QString& filePath,
                     const std::atomic<bool>* cancel = nullptr,
                     const std::function<void(double fraction, const QString& measuring)>& progress = {});

// The box that says what the profile written at `path` took from run `id` (its notes below), with Use for Simulator
// Against Real where `use` is given: `use` gets the path when it is pressed. Deleted when closed.
QMessageBox* runCostsProfileBox(QWidget* parent, qint64 id, const QString& path, const RunCostsProfileOutcome& out,
                                std::function<void(const QString& path)> use = {});

// Asks where to write the profile of run `id`, makes it on a worker under a progress dialog whose Cancel stops it at
// the next measurement (the dialog stays up until it has), and says what it took over `parent`, offering to run
// Simulator Against Real on it: `use` gets the path on the GUI thread when the user takes that. A failure is shown
// over `parent` too. False where no file was chosen (nothing started); else `done` is called once the worker has
// ended, written, failed or cancelled.
bool runCostsProfileWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                               std::function<void(const QString& path)> use = {}, std::function<void()> done = {});

} // namespace coh::ui
