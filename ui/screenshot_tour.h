#pragma once
// Walks the main window through every tab on the open scenario after running it (the replay at its busiest
// instant, a lab lesson midway) in the light and the dark palette, at 1024×700 and 1600×1000, with the default
// layout, and saves each view as `<view>-<light|dark>-<w>x<h>.png`: `cohstudio --screenshots DIR`, run by
// scripts/screenshots under Xvfb for docs/images/. Beyond the tabs (extras()): a data message selected in the
// replay's inspector, Compare on this run and the same scenario under another decode protocol (which the tour
// runs too) with its CDF tab, the help window, a Lab bug hunt with its answer hidden, and the Lab's messages in
// flight waiting for the learner to pick one; the Tuner after a study of the scenario's decode protocols
// (datasets/studies/decode-protocols.json, which the tour runs before its pictures) as parallel coordinates with a
// band kept on TPOT, the New Study dialog with three fields varied, and Compare on kSimVsRealPairs real-cpu runs of the
// scenario's first kSimVsRealRequests requests, each with the simulator's model of it (the median of their errors).

#include <QList>
#include <QObject>
#include <QPixmap>
#include <QSize>
#include <QString>
#include <QStringList>

namespace coh::ui {

class MainWindow;
class ReplayWidget;

class ScreenshotTour : public QObject {
    Q_OBJECT
  public:
    ScreenshotTour(MainWindow* window, const QString& outputDir, QObject* parent = nullptr);

    static QList<QSize> sizes(); // 1024×700 (the smallest supported screen) and 1600×1000
    // "replay-dark-1024x700.png"
    static QString fileName(const QString& view, bool dark, const QSize& size);

    // A picture beyond the tabs, taken at 1600×1000 and, when `small`, at 1024×700 too.
    struct Extra {
        QString view;
        bool small = false;
    };
    static QList<Extra> extras();

    // Starts the run; the pictures follow once it has finished. Emits finished() either way.
    void start();
    QStringList saved() const { return m_saved; }
    int expectedCount() const;
    // The runs Compare shows: the scenario's own, then the one under comparedDecodeProtocol() (0 until run).
    qint64 runId() const { return m_runId; }
    qint64 comparedRunId() const { return m_comparedRunId; }
    // The sim-against-real pairs "compare-real" shows: each a real-cpu run and the simulated run that models it
    // (realRunId() and modelRunId() the first pair's; pairedRunIds() every pair's, real then simulated).
    static constexpr int kSimVsRealRequests = 20;
    static constexpr int kSimVsRealPairs = 2;
    qint64 realRunId() const { return m_realRunId; }
    qint64 modelRunId() const { return m_modelRunId; }
    QList<qint64> pairedRunIds() const { return m_pairedRunIds; }
    // The message selected for "replay-message" (-1: the run has no data message with a known protocol step).
    int selectedMessage() const { return m_message; }

  signals:
    void finished(bool ok, const QString& error);

  private:
    void afterRun();
    bool runCompared();
    bool runStudy();
    bool runSimVsReal();
    void resetViews();
    void captureAll(bool dark, const QSize& size);
    void captureTab(int tab, const QString& name);
    void captureAvailability(const QString& name);
    void captureExtra(const QString& view, const QString& name);
    QPixmap grabMessageDetails(ReplayWidget* replay);
    // Compare over `runs` (none: the scenario's run and the compared one) on its tab `tab`, drawn over History.
    QPixmap grabRealRunInHistory();
    QPixmap grabCostsProfile();
    QPixmap grabCompare(int tab, QList<qint64> runs = {});
    QPixmap grabLabDelivery();
    QPixmap grabTunerParallel();
    QPixmap grabStudyBuilder();
    void save(const QPixmap& picture, const QString& name);

    MainWindow* m_window;
    QString m_dir;
    QStringList m_saved;
    QStringList m_failedSaves;
    QString m_comparedError;  // why the second run for Compare failed
    QString m_studyError;     // why the Tuner's study did not complete
    QString m_simVsRealError; // why the sim-against-real pair was not made
    qint64 m_runId = 0;
    qint64 m_comparedRunId = 0;
    qint64 m_realRunId = 0, m_modelRunId = 0;
    QList<qint64> m_pairedRunIds;
    qint64 m_busiest = 0;
    int m_message = -1;
    bool m_failed = false; // the run failed (finished() already emitted)
};

} // namespace coh::ui
