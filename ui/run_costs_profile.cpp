#include "ui/run_costs_profile.h"

#include "core/base/input_error.h"
#include "core/base/run_cancelled.h"
#include "core/real/profile_json.h"
#include "core/store/run_store.h"
#include "core/store/stored_run_costs.h"
#include "ui/export_folder.h"
#include "ui/qt_text.h"

#include <QApplication>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QMutex>
#include <QMutexLocker>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSaveFile>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>

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
        parts << tr("its decode steps' mean time at %1 step sizes, which the simulator costs each step on")
                     .arg(taken.curvePoints);
    else if (taken.line)
        parts << tr("its decode steps' line");
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

// The profile as the file holds it, written whole or not at all; false with the reason.
bool writeProfile(const core::real::HardwareProfile& profile, const QString& filePath, QString* error)
{
    QSaveFile file(filePath);
    const QByteArray json = QByteArray::fromStdString(core::real::toJson(profile).dump(2) + '\n');
    if (file.open(QIODevice::WriteOnly) && file.write(json) == json.size() && file.commit())
        return true;
    *error = tr("Cannot write the profile to %1 (%2): choose a folder you can write, with some space free.")
                 .arg(filePath, file.errorString());
    return false;
}

// Where the worker is, for the dialog to show: written by the worker, read by the dialog's timer.
struct Progress {
    QMutex mutex;
    double fraction = 0;
    QString measuring;
};

} // namespace

RunCostsProfileOutcome
writeRunCostsProfile(const QString& databasePath, qint64 id, const QString& filePath, const std::atomic<bool>* cancel,
                     const std::function<void(double fraction, const QString& measuring)>& progress)
{
    RunCostsProfileOutcome out;
    try {
        core::RunStore store(toStdString(databasePath));
        const std::optional<core::StoredRunCosts> run =
            core::storedRunCosts(store, id, std::nullopt, {},
                                 {"History", "pick a completed real run: its Backend column says real-cpu or real-cuda",
                                  "make a new real run of its scenario (Run ▸ Execute On ▸ Real CPU, then Run): a run "
                                  "fits its costs as it runs",
                                  "make its profile with `cohsim calibrate SCENARIO --from-run ID`, giving the "
                                  "scenario file it ran"});
        if (!run) {
            out.error =
                tr("Run %1 is not in %2: it was deleted. Refresh History and pick a run.").arg(id).arg(databasePath);
            return out;
        }
        core::RunCostsCalibration how;
        how.cancel = cancel;
        if (progress)
            how.progress = [&progress](double fraction, const std::string& measuring) {
                progress(fraction, toQString(measuring));
            };
        const core::RunCostsProfile made = core::calibrateWithRunCosts(*run, *run->scenario, {}, "History", how);
        if (cancel && cancel->load()) {
            out.cancelled = true;
            return out;
        }
        if (!writeProfile(made.profile, filePath, &out.error))
            return out;
        out.written = true;
        out.taken = takenText(made.taken, id);
        out.notes = notesOf(*run);
    } catch (const core::RunCancelled&) {
        out.cancelled = true;
    } catch (const std::exception& e) {
        out.error = toQString(e.what());
    }
    return out;
}

QMessageBox* runCostsProfileBox(QWidget* parent, qint64 id, const QString& path, const RunCostsProfileOutcome& out,
                                std::function<void(const QString& path)> use)
{
    auto* box =
        new QMessageBox(QMessageBox::Information, tr("Profile of Run %1's Costs").arg(id),
                        tr("The profile of run %1's costs is in %2.").arg(id).arg(path), QMessageBox::Close, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(
        QStringList{out.taken, out.notes.join(QStringLiteral("\n\n"))}.join(QStringLiteral("\n\n")).trimmed());
    if (use) {
        QPushButton* useIt = box->addButton(tr("Use for Simulator Against Real"), QMessageBox::AcceptRole);
        box->setDefaultButton(useIt);
        QObject::connect(useIt, &QPushButton::clicked, box, [use = std::move(use), path] { use(path); });
    }
    return box;
}

bool runCostsProfileWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                               std::function<void(const QString& path)> use, std::function<void()> done)
{
    const QString path = QFileDialog::getSaveFileName(parent, tr("Profile of Run %1's Costs").arg(id),
                                                      suggestedExportPath(QStringLiteral("run-%1-costs.json").arg(id)),
                                                      tr("Hardware profile (*.json)"));
    if (path.isEmpty())
        return false;
    rememberExportFolder(path);
    auto* dialog = new QProgressDialog(tr("Calibrating this machine for run %1's scenario…").arg(id), tr("Cancel"), 0,
                                       100, parent);
    dialog->setWindowTitle(tr("Profile of Run %1's Costs").arg(id));
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(300);
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    dialog->setValue(0);
    // The worker keeps its own copies: the dialog (and its parent) may go while a measurement ends.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto progress = std::make_shared<Progress>();
    // Cancel asks the worker to stop; the dialog stays up, saying so, until it has (a measurement takes a second or
    // so), so that no second calibration starts beside the one still measuring.
    QObject::disconnect(dialog, &QProgressDialog::canceled, dialog, &QProgressDialog::cancel);
    QObject::connect(dialog, &QProgressDialog::canceled, dialog, [dialog, cancel] {
        *cancel = true;
        dialog->setLabelText(tr("Cancelling after the measurement under way…"));
    });
    QObject::connect(dialog, &QObject::destroyed, [cancel] { *cancel = true; });
    auto* poll = new QTimer(dialog);
    QObject::connect(poll, &QTimer::timeout, dialog, [dialog = QPointer<QProgressDialog>(dialog), progress, cancel] {
        double fraction = 0;
        QString measuring;
        {
            QMutexLocker lock(&progress->mutex);
            fraction = progress->fraction;
            measuring = progress->measuring;
        }
        // setValue may run events on a modal dialog, the worker's end among them.
        if (dialog && !cancel->load())
            dialog->setValue(static_cast<int>(fraction * 100));
        if (dialog && !cancel->load() && !measuring.isEmpty())
            dialog->setLabelText(tr("Calibrating this machine: %1…").arg(measuring));
    });
    poll->start(100);

    auto* watcher = new QFutureWatcher<RunCostsProfileOutcome>(dialog);
    QObject::connect(watcher, &QFutureWatcher<RunCostsProfileOutcome>::finished, dialog,
                     [dialog, watcher, parent, path, id, use = std::move(use), done = std::move(done)] {
                         const RunCostsProfileOutcome out = watcher->result();
                         dialog->hide();
                         dialog->deleteLater();
                         if (done)
                             done();
                         if (out.cancelled)
                             return;
                         if (!out.written) {
                             auto* failed =
                                 new QMessageBox(QMessageBox::Warning, tr("Profile of Run %1's Costs").arg(id),
                                                 out.error, QMessageBox::Close, parent);
                             failed->setAttribute(Qt::WA_DeleteOnClose);
                             failed->open();
                             return;
                         }
                         runCostsProfileBox(parent, id, path, out, use)->open();
                     });
    watcher->setFuture(QtConcurrent::run([databasePath, id, path, cancel, progress] {
        return writeRunCostsProfile(databasePath, id, path, cancel.get(),
                                    [progress](double fraction, const QString& measuring) {
                                        QMutexLocker lock(&progress->mutex);
                                        progress->fraction = fraction;
                                        progress->measuring = measuring;
                                    });
    }));
    return true;
}

} // namespace coh::ui
