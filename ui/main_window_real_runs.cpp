// MainWindow's Execute On settings for real runs and Simulator Against Real: the memories, the pool limit, the pairs,
// the profile file, and a calibration of this machine kept as one (apart from main_window.cpp, which builds the
// window).
#include "core/real/backend.h"
#include "core/scenario/scenario.h"
#include "ui/machine_profile.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/run_controller.h"
#include "ui/scenario_document.h"

#include <QAction>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>

namespace coh::ui {

std::string MainWindow::realBackendPicked() const
{
    return m_actions.onRealCuda->isChecked() || m_actions.onSimVsRealGpu->isChecked() ? "real-cuda" : "real-cpu";
}

void MainWindow::chooseRealMemory()
{
    bool ok = false;
    const int mib = QInputDialog::getInt(
        this, tr("Node Memory for Real Runs"),
        tr("Each node's copy memory on a real backend, and the size its decode K/V pool starts at, in MiB\n"
           "(cohsim --arena-mib). A pool grows as its blocks run out, as far as this machine's memory\n"
           "leaves room for; the run's Backend tooltip says how far."),
        m_runner->realMemoryMiB(), 1, 4096, 16, &ok);
    if (!ok)
        return;
    m_runner->setRealMemoryMiB(mib);
    QSettings().setValue(QStringLiteral("run/realMemoryMiB"), mib);
}

void MainWindow::chooseRealPoolLimit()
{
    const QString title = tr("K/V Pool Limit for Real Runs");
    QInputDialog dialog(this);
    dialog.setWindowTitle(title);
    dialog.setLabelText(tr("The most a decode node's K/V pool grows to on a real backend, in MiB (cohsim --pool-mib).\n"
                           "A pool starts at the node memory and grows as its blocks run out; past this limit its\n"
                           "sequences borrow blocks, which are read unchecked. The lowest value lets it grow as far\n"
                           "as its memory (this machine's, or a GPU's) leaves room for."));
    dialog.setInputMode(QInputDialog::IntInput);
    dialog.setIntRange(0, kMaxPoolLimitMiB);
    dialog.setIntStep(64);
    dialog.setIntValue(m_runner->realPoolLimitMiB());
    // What "as far as memory allows" comes to for the scenario open, on the backend picked (a GPU's or this machine's
    // memory), when it is valid.
    QString room;
    if (const auto& scenario = m_document->validate().scenario) {
        core::BackendOptions backend;
        backend.name = realBackendPicked();
        backend.realCpu.arenaBytes = static_cast<std::size_t>(m_runner->realMemoryMiB()) << 20;
        room = tr(" (%1 MiB here)").arg(core::realMemoryPlan(backend, *scenario).poolMaxBytes >> 20);
    }
    if (auto* spin = dialog.findChild<QSpinBox*>())
        spin->setSpecialValueText(tr("As far as memory allows") + room);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const int mib = dialog.intValue();
    if (mib != 0 && mib < m_runner->realMemoryMiB()) {
        // The core would refuse the run; say it here, where the value is chosen.
        QMessageBox::warning(this, title,
                             tr("A K/V pool starts at the node memory (%1 MiB) and only grows, so it cannot stop at "
                                "%2 MiB. Give %1 MiB or more, or the lowest value to let it grow as far as memory "
                                "allows.")
                                 .arg(m_runner->realMemoryMiB())
                                 .arg(mib));
        return;
    }
    m_runner->setRealPoolLimitMiB(mib);
    QSettings().setValue(QStringLiteral("run/poolLimitMiB"), mib);
}

void MainWindow::setSimVsRealProfile(const QString& path)
{
    // Read when a run starts, as compare-real reads --profile: a file that no longer reads fails that run, naming it.
    m_runner->setSimVsRealProfile(path);
    m_actions.simVsRealProfile->setText(
        path.isEmpty() ? tr("Profile for Simulator Against Real...")
                       : tr("Profile for Simulator Against Real: %1...").arg(QFileInfo(path).fileName()));
    m_actions.forgetSimVsRealProfile->setEnabled(!path.isEmpty());
    if (m_start)            // made after the settings are read: it reads the profile when it is
        updateRunEnabled(); // the start page says which profile the simulator runs on
    if (path.isEmpty())
        QSettings().remove(QStringLiteral("run/simVsRealProfile"));
    else
        QSettings().setValue(QStringLiteral("run/simVsRealProfile"), path);
}

void MainWindow::chooseSimVsRealPairs()
{
    bool ok = false;
    const int pairs = QInputDialog::getInt(
        this, tr("Pairs for Simulator Against Real"),
        tr("How many pairs Simulator Against Real makes (cohsim compare-real --repeat). Each pair calibrates this\n"
           "machine, runs the scenario for real and simulates it on that profile. This machine's speed drifts\n"
           "between runs: with several pairs the simulator's error is the median of the pairs' errors.\n"
           "With a profile file chosen, that many real runs are set against one simulated run on it."),
        m_runner->simVsRealPairs(), 1, RunController::kMaxSimVsRealPairs, 1, &ok);
    if (!ok)
        return;
    m_runner->setSimVsRealPairs(pairs);
    QSettings().setValue(QStringLiteral("run/simVsRealPairs"), pairs);
}

QString MainWindow::calibrationBlocker() const
{
    // A calibration beside a run would measure the run's traffic, and slow the run.
    return m_runner->isRunning() ? tr("A run is going: measure a profile once it has ended.") : QString();
}

void MainWindow::calibrateForSimVsReal()
{
    const QString title = tr("Calibrate This Machine");
    const auto& scenario = m_document->validate().scenario;
    if (!scenario) {
        QMessageBox::warning(this, title,
                             tr("The scenario has problems (see Problems): a profile is measured for its decode "
                                "steps, so it must validate first."));
        return;
    }
    if (const QString why = calibrationBlocker(); !why.isEmpty()) {
        QMessageBox::information(this, title, why);
        return;
    }
    core::real::RealCpuOptions realCpu;
    realCpu.arenaBytes = static_cast<std::size_t>(m_runner->realMemoryMiB()) << 20;
    m_actions.calibrateProfile->setEnabled(false); // one at a time: two would each measure the other
    const bool started = machineProfileWithDialog(
        this, *scenario, m_document->displayName(), realBackendPicked(), realCpu,
        [this](const QString& path) { setSimVsRealProfile(path); },
        [this] { m_actions.calibrateProfile->setEnabled(true); });
    if (!started)
        m_actions.calibrateProfile->setEnabled(true);
}

} // namespace coh::ui
