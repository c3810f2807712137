#pragma once
// The Tuner tab: open a study file (docs/tuning.md), run it off the GUI thread on every core with progress, an
// estimate of the time left and cancel, watch its points arrive on a scatter of any two metrics (the front and the
// points that meet the constraints marked; coherence bytes per token against token latency is one click), read
// every point in a table or as parallel coordinates (filtered by dragging along an axis), and open the run behind a
// point in Replay by clicking it.
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"
#include "ui/study_draft.h"

#include <nlohmann/json.hpp>

#include <QFutureWatcher>
#include <QString>
#include <QWidget>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QAreaSeries;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QLineSeries;
class QScatterSeries;
class QTabWidget;
class QTableWidget;

namespace coh::ui {

class ChartView;
class ParallelCoordinatesView;
class ScenarioDocument;
class StudyBuilderDialog;

class TunerPanel : public QWidget {
    Q_OBJECT
  public:
    explicit TunerPanel(QWidget* parent = nullptr);
    ~TunerPanel() override;

    void setDatabasePath(const QString& path);
    // The open scenario: a built study varies it ("Vary in a Study…" on its fields lands here).
    void setDocument(ScenarioDocument* document);
    // Reads a study file; false with the problems shown (file, field, fix) when it cannot be read.
    bool openStudy(const QString& path);
    bool isRunning() const;

    // For tests and screenshots.
    QTableWidget* table() const { return m_table; }
    ParallelCoordinatesView* parallelView() const { return m_parallel; }
    QTabWidget* pointViews() const { return m_pointViews; }
    ChartView* chartView() const { return m_chart; }
    QComboBox* xAxisChoice() const { return m_x; }
    QComboBox* yAxisChoice() const { return m_y; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* applyBestButton() const { return m_apply; }
    // What Apply Best writes into the current scenario: the best point's varied fields and the fields derived from
    // them, by JSON pointer (the load a capacity search ran it at is an operating point, not a setting: left out).
    std::vector<std::pair<std::string, nlohmann::json>> bestAssignments() const;
    const core::StudyResult* result() const { return m_result.get(); }
    // The scatter's series: every full-workload point measured, those meeting the constraints, the front.
    QScatterSeries* pointsSeries() const { return m_points; }
    QScatterSeries* feasibleSeries() const { return m_feasible; }
    QScatterSeries* frontSeries() const { return m_front; }
    // The SLO lines: at the base scenario's TTFT SLO when an axis shows a TTFT, at its TPOT SLO for TPOT or ITL.
    QLineSeries* xSloLine() const { return m_xSlo; }
    QLineSeries* ySloLine() const { return m_ySlo; }
    // Where every shown metric meets its SLO and the constraints on it: shaded; empty when no axis has a bound.
    QAreaSeries* compliantRegion() const { return m_region; }
    // The study being built (New Study…), and its dialog once opened.
    const StudyDraft& draft() const { return m_draft; }
    StudyBuilderDialog* builder() const { return m_builder; }
    // Writes the draft as a study file at `path` over the open scenario (saved to a file beside it when the
    // document has unsaved edits or no file); false with the reason in `error`.
    bool writeDraft(const StudyDraft& draft, const QString& path, QString* error) const;

  public slots:
    void chooseStudy(); // a file dialog
    void openBuilder(); // New Study…
    // Adds the field at `pointer` to the study being built (its values guessed from the scenario) and shows it.
    void varyField(const std::string& pointer, const QStringList& choices);
    void run();
    void cancel();

  signals:
    void openRunRequested(qint64 runId);
    void applyBestRequested();     // the window applies bestAssignments() to its scenario as one undo step
    void finished(bool completed); // false: cancelled or failed (the status says which)
    void showRequested();          // the window brings the Tuner tab forward

  private:
    void onProgress(const QString& text, int done, int total);
    void onPoint(const core::PointOutcome& point);
    void onFinished();
    void redraw();
    void hideSecondSloMarker();
    void shadeCompliantRegion(double xSlo, double ySlo);
    void runDraft();
    void saveDraft();
    QString studiesFolder() const;
    void fillTable();
    void updateButtons();
    int metricIndex(const QComboBox* box) const;

    QString m_databasePath;
    ScenarioDocument* m_document = nullptr;
    StudyDraft m_draft = StudyDraft::withDefaults();
    StudyBuilderDialog* m_builder = nullptr;
    QPushButton* m_new = nullptr;
    QAreaSeries* m_region = nullptr;
    std::unique_ptr<core::StudySpec> m_study;
    std::unique_ptr<core::StudyResult> m_result;
    std::shared_ptr<core::StudyResult> m_pending; // the running study's, filled by its thread
    std::vector<core::PointOutcome> m_live;       // points as they arrive, until the result replaces them
    std::atomic<bool> m_cancel{false};
    QFutureWatcher<void> m_watcher;
    QString m_error; // the run's failure, shown once it has ended

    QPushButton* m_open = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_apply = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QComboBox* m_x = nullptr;
    QComboBox* m_y = nullptr;
    ChartView* m_chart = nullptr;
    QScatterSeries* m_points = nullptr;
    QScatterSeries* m_feasible = nullptr;
    QScatterSeries* m_front = nullptr;
    QLineSeries* m_xSlo = nullptr;
    QLineSeries* m_ySlo = nullptr;
    double m_sloTtftMs = 0, m_sloTpotMs = 0; // the base scenario's SLOs (0: unknown)
    QTableWidget* m_table = nullptr;
    ParallelCoordinatesView* m_parallel = nullptr; // the same points across their fields and objectives
    QLabel* m_parallelHint = nullptr;
    QTabWidget* m_pointViews = nullptr;
};

} // namespace coh::ui
