#include "ui/profile_job.h"

#include "core/base/run_cancelled.h"
#include "core/real/profile_json.h"
#include "ui/export_folder.h"
#include "ui/qt_text.h"

#include <QApplication>
#include <QCloseEvent>
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
    return QApplication::translate("coh::ui::ProfileJob", text);
}

// The progress dialog of a profile being made: Escape and closing it ask the worker to stop, as Cancel does, and it
// stays up until the worker has, so that nothing else starts beside a measurement still running.
class ProfileProgressDialog final : public QProgressDialog {
  public:
    using QProgressDialog::QProgressDialog;
    void reject() override { emit canceled(); }

  protected:
    void closeEvent(QCloseEvent* event) override
    {
        emit canceled();
        event->ignore();
    }
};

bool g_profileBeingMade = false; // GUI thread only

// Where the worker is, for the dialog to show: written by the worker, read by the dialog's timer.
struct Progress {
    QMutex mutex;
    double fraction = 0;
    QString measuring;
};

} // namespace

bool writeProfileFile(const core::real::HardwareProfile& profile, const QString& filePath, QString* error)
{
    QSaveFile file(filePath);
    const QByteArray json = QByteArray::fromStdString(core::real::toJson(profile).dump(2) + '\n');
    if (file.open(QIODevice::WriteOnly) && file.write(json) == json.size() && file.commit())
        return true;
    *error = tr("Cannot write the profile to %1 (%2): choose a folder you can write, with some space free.")
                 .arg(filePath, file.errorString());
    return false;
}

ProfileOutcome
writeMeasuredProfile(const QString& filePath, const std::atomic<bool>* cancel,
                     const std::function<std::optional<core::real::HardwareProfile>(ProfileOutcome&)>& measure)
{
    ProfileOutcome out;
    try {
        const std::optional<core::real::HardwareProfile> profile = measure(out);
        if (!profile)
            return out;
        // Cancelled after its last measurement: the user asked for nothing, so nothing is written.
        if (cancel && cancel->load())
            return ProfileOutcome{.cancelled = true};
        if (!writeProfileFile(*profile, filePath, &out.error))
            return ProfileOutcome{.error = out.error}; // nothing to say of a profile that is not there
        out.written = true;
    } catch (const core::RunCancelled&) {
        return ProfileOutcome{.cancelled = true};
    } catch (const std::exception& e) {
        out.error = toQString(e.what());
    }
    return out;
}

std::function<void(double, const std::string&)> coreProgress(const ProfileProgress& progress)
{
    if (!progress)
        return {};
    return [progress](double fraction, const std::string& measuring) { progress(fraction, toQString(measuring)); };
}

QMessageBox* profileBox(QWidget* parent, const QString& title, const QString& text, const ProfileOutcome& out,
                        const QString& path, std::function<void(const QString& path)> use)
{
    auto* box = new QMessageBox(QMessageBox::Information, title, text, QMessageBox::Close, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(
        QStringList{out.summary, out.notes.join(QStringLiteral("\n\n"))}.join(QStringLiteral("\n\n")).trimmed());
    if (use) {
        QPushButton* useIt = box->addButton(tr("Use for Simulator Against Real"), QMessageBox::AcceptRole);
        box->setDefaultButton(useIt);
        QObject::connect(useIt, &QPushButton::clicked, box, [use = std::move(use), path] { use(path); });
    }
    return box;
}

bool profileBeingMade()
{
    return g_profileBeingMade;
}

bool makeProfileWithDialog(QWidget* parent, ProfileJob job, std::function<void(const QString& path)> use,
                           std::function<void()> done)
{
    if (g_profileBeingMade) {
        QMessageBox::information(parent, job.title,
                                 tr("Another profile is being measured: make this one once it has ended."));
        return false;
    }
    const QString path = QFileDialog::getSaveFileName(parent, job.title, suggestedExportPath(job.suggestedName),
                                                      tr("Hardware profile (*.json)"));
    if (path.isEmpty())
        return false;
    rememberExportFolder(path);
    auto* dialog = new ProfileProgressDialog(job.startText, tr("Cancel"), 0, 100, parent);
    dialog->setWindowTitle(job.title);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(0); // modal at once: nothing else may start while it measures
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    dialog->setValue(0);
    dialog->show();
    // The worker keeps its own copies: the dialog (and its parent) may go while a measurement ends.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto progress = std::make_shared<Progress>();
    // Cancel asks the worker to stop; the dialog stays up, saying so, until it has (a measurement takes a second or
    // so), so that no second calibration starts beside the one still measuring.
    QObject::disconnect(dialog, &QProgressDialog::canceled, dialog, nullptr); // its own cancel(), which hides it
    QObject::connect(dialog, &QProgressDialog::canceled, dialog, [dialog, cancel] {
        *cancel = true;
        dialog->setLabelText(tr("Cancelling after the measurement under way…"));
    });
    QObject::connect(dialog, &QObject::destroyed, [cancel] {
        *cancel = true;
        g_profileBeingMade = false;
    });
    g_profileBeingMade = true;
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

    auto* watcher = new QFutureWatcher<ProfileOutcome>(dialog);
    QObject::connect(watcher, &QFutureWatcher<ProfileOutcome>::finished, dialog,
                     [dialog, watcher, parent, path, title = job.title, text = job.writtenText(path),
                      use = std::move(use), done = std::move(done)] {
                         g_profileBeingMade = false;
                         dialog->hide();
                         dialog->deleteLater();
                         if (done)
                             done();
                         ProfileOutcome out;
                         try {
                             out = watcher->result();
                         } catch (...) { // make() says what went wrong in its outcome; anything else is said so
                             out.error = tr("Making the profile failed for a reason it did not name.");
                         }
                         if (out.cancelled)
                             return;
                         if (!out.written) {
                             auto* failed =
                                 new QMessageBox(QMessageBox::Warning, title, out.error, QMessageBox::Close, parent);
                             failed->setAttribute(Qt::WA_DeleteOnClose);
                             failed->open();
                             return;
                         }
                         profileBox(parent, title, text, out, path, use)->open();
                     });
    watcher->setFuture(QtConcurrent::run([make = std::move(job.make), path, cancel, progress] {
        return make(path, cancel.get(), [progress](double fraction, const QString& measuring) {
            QMutexLocker lock(&progress->mutex);
            progress->fraction = fraction;
            progress->measuring = measuring;
        });
    }));
    return true;
}

} // namespace coh::ui
