#include "ui/run_costs_profile.h"

#include "core/store/run_store.h"
#include "core/store/stored_run_costs.h"
#include "ui/qt_text.h"

#include <QApplication>
#include <QFileInfo>
#include <QMessageBox>

namespace coh::ui {

namespace {

QString tr(const char* text)
{
    return QApplication::translate("coh::ui::RunCostsProfile", text);
}

// What the profile took from the run, in a sentence: each of its own costs, the rest the calibration's.
QString takenText(const core::real::OwnCostsTaken& taken, qint64 id)
{
    QStringList parts;
    if (taken.copy)
        parts << tr("its copies");
    if (taken.hostCopy)
        parts << tr("its copies to and from host memory");
    // With a curve the simulator costs a step on it, and the lines the run fitted stand unused beside it.
    if (taken.curvePoints > 0)
        parts << (taken.quietCurve ? tr("its decode steps' time after no other traffic at %1 step sizes, which the "
                                        "simulator costs each step on")
                                   : tr("its decode steps' mean time at %1 step sizes, which the simulator costs each "
                                        "step on"))
                     .arg(taken.curvePoints);
    else if (taken.line)
        parts << tr("its decode steps' line");
    // What the bytes copied since an instance's step before did to its next, which the simulator's steps pay too.
    if (taken.trafficPoints > 0)
        parts << tr("what each of %1 amounts of other traffic did to its steps' time").arg(taken.trafficPoints);
    if (taken.warm && taken.curvePoints == 0)
        parts << tr("its warm steps' line");
    const QString last = parts.isEmpty() ? QString() : parts.takeLast();
    return tr("From run %1's own costs: %2. The rest is this machine's calibration, just measured.")
        .arg(id)
        .arg(parts.isEmpty() ? last : tr("%1 and %2").arg(parts.join(QStringLiteral(", ")), last));
}

QStringList notesOf(const core::StoredRunCosts& run)
{
    QStringList notes;
    if (run.ranElsewhere)
        notes << tr("Run %1 ran on %2, not on this machine: its costs are that machine's, the profile names it, and "
                    "Simulator Against Real says so.")
                     .arg(run.id)
                     .arg(toQString(run.host));
    // The sums read every block again after its step, so its steps found other blocks in the caches than a run
    // without them, and sim-against-real's real runs make none.
    if (run.summary.blockSealsSummed > 0)
        notes << tr("Run %1 summed its blocks' seals on every decode read (%2 sums), which Simulator Against Real's "
                    "runs do not: its steps found other blocks in the caches. A run made with Run ▸ Execute On ▸ Sum "
                    "Block Seals on Every Read off has none.")
                     .arg(run.id)
                     .arg(run.summary.blockSealsSummed);
    return notes;
}

// The dialogs' title, and the box's first line for the file written.
QString costsTitle(qint64 id)
{
    return tr("Profile of Run %1's Costs").arg(id);
}

QString costsWritten(qint64 id, const QString& path)
{
    return tr("The profile of run %1's costs is in %2.").arg(id).arg(path);
}

} // namespace

ProfileOutcome writeRunCostsProfile(const QString& databasePath, qint64 id, const QString& filePath,
                                    const std::atomic<bool>* cancel, const ProfileProgress& progress)
{
    return writeMeasuredProfile(
        filePath, cancel, [&](ProfileOutcome& out) -> std::optional<core::real::HardwareProfile> {
            // Opening a store makes one where there is none: a database moved away is said so, not made again empty.
            if (!QFileInfo::exists(databasePath)) {
                out.error = tr("The run database %1 is not there any more: open History on the one that holds run %2.")
                                .arg(databasePath)
                                .arg(id);
                return std::nullopt;
            }
            core::RunStore store(toStdString(databasePath));
            const std::optional<core::StoredRunCosts> run = core::storedRunCosts(
                store, id, std::nullopt, {},
                {"History", "pick a completed real run: its Backend column says real-cpu or real-cuda",
                 "make a new real run of its scenario (Run ▸ Execute On ▸ Real CPU, then Run): a run "
                 "fits its costs as it runs",
                 "make its profile with `cohsim calibrate SCENARIO --from-run ID`, giving the "
                 "scenario file it ran"});
            if (!run) {
                out.error = tr("Run %1 is not in %2: it was deleted. Refresh History and pick a run.")
                                .arg(id)
                                .arg(databasePath);
                return std::nullopt;
            }
            core::ScenarioCalibration how;
            how.progress = coreProgress(progress);
            how.cancel = cancel;
            const core::RunCostsProfile made = core::calibrateWithRunCosts(*run, *run->scenario, {}, "History", how);
            out.summary = takenText(made.taken, id);
            out.notes = notesOf(*run);
            return made.profile;
        });
}

QMessageBox* runCostsProfileBox(QWidget* parent, qint64 id, const QString& path, const ProfileOutcome& out,
                                std::function<void(const QString& path)> use)
{
    return profileBox(parent, costsTitle(id), costsWritten(id, path), out, path, std::move(use));
}

bool runCostsProfileWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                               std::function<void(const QString& path)> use, std::function<void()> done)
{
    ProfileJob job;
    job.title = costsTitle(id);
    job.suggestedName = QStringLiteral("run-%1-costs.json").arg(id);
    job.startText = tr("Calibrating this machine for run %1's scenario…").arg(id);
    job.writtenText = [id](const QString& path) { return costsWritten(id, path); };
    job.make = [databasePath, id](const QString& path, const std::atomic<bool>* cancel,
                                  const ProfileProgress& progress) {
        return writeRunCostsProfile(databasePath, id, path, cancel, progress);
    };
    return makeProfileWithDialog(parent, std::move(job), std::move(use), std::move(done));
}

} // namespace coh::ui
