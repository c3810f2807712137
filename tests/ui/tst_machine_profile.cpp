// Run ▸ Execute On ▸ Calibrate This Machine to a Profile File…: this machine measured for a scenario's decode
// steps and kept as the profile file `cohsim calibrate SCENARIO -o FILE` writes, one that Simulator Against Real takes
// for that scenario; what cannot be measured or written is refused, naming why.
#include "core/gpu/cuda_devices.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/sim_vs_real.h"
#include "ui/machine_profile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace coh;

namespace {

// As cohsim (and so the summary) prints a figure: whole from 1000 up, one decimal from 1, three below.
QString number(double value)
{
    const double a = std::fabs(value);
    return QLocale().toString(value, 'f', a >= 1000 || a == 0 ? 0 : a >= 1 ? 1 : 3);
}

} // namespace

class TstMachineProfile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::optional<core::Scenario> m_scenario;

  private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        std::ifstream in(COH_TEST_DATA_DIR "/scenarios/minimal.json");
        m_scenario = core::parseScenario(nlohmann::json::parse(in), "minimal.json");
    }

    void theProfileIsThisMachinesForTheScenariosSteps()
    {
        const QString path = m_dir.filePath(QStringLiteral("minimal-real-cpu-profile.json"));
        core::real::RealCpuOptions realCpu;
        realCpu.arenaBytes = std::size_t{8} << 20;
        std::vector<double> told;
        const ui::ProfileOutcome out = ui::writeMachineProfile(
            *m_scenario, "real-cpu", realCpu, path, nullptr, [&told](double f, const QString&) { told.push_back(f); });
        QVERIFY2(out.written, qPrintable(out.error));
        QVERIFY(!told.empty() && told.front() == 0);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const core::real::HardwareProfile profile =
            core::real::profileFromJson(nlohmann::json::parse(file.readAll().toStdString()), path.toStdString());
        QCOMPARE(profile.backend, std::string("real-cpu"));
        QCOMPARE(profile.costsOfRun, std::uint64_t{0});
        // Measured for this scenario's steps, so Simulator Against Real takes it for this scenario.
        core::checkProfileFits(profile, "real-cpu", *m_scenario, realCpu);
        // Its figures, in words: the copy line as fitted.
        QVERIFY2(out.summary.startsWith(QStringLiteral("real-cpu on %1").arg(QString::fromStdString(profile.host))),
                 qPrintable(out.summary));
        QVERIFY2(out.summary.contains(QStringLiteral("A copy costs %1 ns + bytes / %2 GB/s")
                                          .arg(number(profile.copy.latencyNs), number(profile.copy.bytesPerNs))),
                 qPrintable(out.summary));
    }

    void whatCannotBeMeasuredOrWrittenIsRefused()
    {
        // A folder that is not there: named, and nothing half written.
        const QString nowhere = m_dir.filePath(QStringLiteral("no-such-folder/p.json"));
        const ui::ProfileOutcome unwritable = ui::writeMachineProfile(*m_scenario, "real-cpu", {}, nowhere);
        QVERIFY(!unwritable.written && !unwritable.cancelled);
        QVERIFY2(unwritable.error.contains(nowhere), qPrintable(unwritable.error));
        // Cancelled before it measured anything: nothing written, and no error.
        std::atomic<bool> cancel{true};
        const QString cancelled = m_dir.filePath(QStringLiteral("cancelled.json"));
        const ui::ProfileOutcome stopped = ui::writeMachineProfile(*m_scenario, "real-cpu", {}, cancelled, &cancel);
        QVERIFY(stopped.cancelled && !stopped.written && stopped.error.isEmpty());
        QVERIFY(!QFile::exists(cancelled));
        // A GPU's profile where there is none.
        if (core::probeGpus().devices.empty()) {
            const ui::ProfileOutcome gpu =
                ui::writeMachineProfile(*m_scenario, "real-cuda", {}, m_dir.filePath(QStringLiteral("gpu.json")));
            QVERIFY(!gpu.written);
            QVERIFY2(gpu.error.contains(QStringLiteral("GPU")), qPrintable(gpu.error));
        }
    }
};

QTEST_MAIN(TstMachineProfile)
#include "tst_machine_profile.moc"
