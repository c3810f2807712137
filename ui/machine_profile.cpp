#include "ui/machine_profile.h"

#include "core/real/paged_attention.h" // kvDtypeName
#include "core/store/sim_vs_real.h"    // calibrateFor
#include "ui/qt_text.h"

#include <QApplication>
#include <QFileInfo>
#include <QRegularExpression>

#include <cmath>

namespace coh::ui {

namespace {

QString tr(const char* text)
{
    return QApplication::translate("coh::ui::MachineProfile", text);
}

// As cohsim prints figures: whole from 1000 up (and 0), one decimal from 1, three below.
QString number(double value)
{
    const double a = std::fabs(value);
    return QLocale().toString(value, 'f', a >= 1000 || a == 0 ? 0 : a >= 1 ? 1 : 3);
}

// The costs the calibration fitted, as `cohsim calibrate` prints them, in two sentences.
QString summaryOf(const core::real::HardwareProfile& p)
{
    QString copies =
        tr("A copy costs %1 ns + bytes / %2 GB/s").arg(number(p.copy.latencyNs), number(p.copy.bytesPerNs));
    if (p.descriptorBytes > 0 && !p.copy.descriptorMeasured())
        copies += tr(" (pieces of %1 KiB: not measured, as every size copied fitted in one; counted as 0 ns each)")
                      .arg(p.descriptorBytes >> 10);
    else if (p.descriptorBytes > 0)
        copies += tr(", each piece of %1 KiB beyond a message's first %2 ns more")
                      .arg(p.descriptorBytes >> 10)
                      .arg(number(p.copy.descriptorNs));
    if (p.hostCopy.measured())
        copies += tr("; to and from pinned host memory %1 ns + bytes / %2 GB/s")
                      .arg(number(p.hostCopy.latencyNs), number(p.hostCopy.bytesPerNs));
    QString attention = tr("A layer of a decode step's attention (%1 query heads, %2 KV heads of %3, %4 K/V) costs %5 "
                           "ns + K/V bytes / %6 GB/s")
                            .arg(p.attentionShape.queryHeads)
                            .arg(p.attentionShape.kvHeads)
                            .arg(p.attentionShape.headDim)
                            .arg(QString::fromLatin1(core::real::kvDtypeName(p.attentionElementBytes)))
                            .arg(number(p.attentionStepNs), number(p.attentionBytesPerNs));
    if (p.attentionWarmBytesPerNs > 0)
        attention +=
            tr(", or %1 ns + K/V bytes / %2 GB/s where a layer reads at most %3 KiB, still in the core's cache")
                .arg(number(p.attentionWarmStepNs), number(p.attentionWarmBytesPerNs))
                .arg(p.attentionWarmBytes >> 10);
    const QString machine =
        p.cpu.empty() ? tr("%1 cores").arg(p.cores) : tr("%1, %2 cores").arg(toQString(p.cpu)).arg(p.cores);
    return tr("%1 on %2 (%3). %4. %5.").arg(toQString(p.backend), toQString(p.host), machine, copies, attention);
}

} // namespace

ProfileOutcome writeMachineProfile(const core::Scenario& scenario, const std::string& backend,
                                   const core::real::RealCpuOptions& realCpu, const QString& filePath,
                                   const std::atomic<bool>* cancel, const ProfileProgress& progress)
{
    return writeMeasuredProfile(filePath, cancel, [&](ProfileOutcome& out) {
        core::BackendOptions run;
        run.name = backend;
        run.realCpu = realCpu;
        // What the backend could not run (a head too large for the CUDA kernel, memories past the machine's) is
        // refused as a run would refuse it.
        core::checkBackendRuns(run, scenario);
        core::ScenarioCalibration how;
        how.progress = coreProgress(progress);
        how.cancel = cancel;
        const core::real::HardwareProfile profile = core::calibrateFor(scenario, backend, realCpu, how);
        out.summary = summaryOf(profile);
        return std::optional(profile);
    });
}

bool machineProfileWithDialog(QWidget* parent, const core::Scenario& scenario, const QString& scenarioName,
                              const std::string& backend, const core::real::RealCpuOptions& realCpu,
                              std::function<void(const QString& path)> use, std::function<void()> done)
{
    const QString machine = backend == "real-cuda" ? tr("This Machine's GPU") : tr("This Machine");
    ProfileJob job;
    job.title = tr("Calibrate %1").arg(machine);
    // "default.json" suggests default-real-cpu-profile.json; a name that is no file's keeps only what a file name may.
    QString base = QFileInfo(scenarioName).completeBaseName();
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    job.suggestedName = QStringLiteral("%1-%2-profile.json")
                            .arg(base.isEmpty() ? QStringLiteral("scenario") : base, toQString(backend));
    job.startText = tr("Calibrating %1 for %2…").arg(toQString(backend), scenarioName);
    job.writtenText = [scenarioName](const QString& path) {
        return tr("This machine's profile for %1 is in %2.").arg(scenarioName, path);
    };
    job.make = [scenario, backend, realCpu](const QString& path, const std::atomic<bool>* cancel,
                                            const ProfileProgress& progress) {
        return writeMachineProfile(scenario, backend, realCpu, path, cancel, progress);
    };
    return makeProfileWithDialog(parent, std::move(job), std::move(use), std::move(done));
}

} // namespace coh::ui
