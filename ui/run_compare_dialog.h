#pragma once
// Two or more stored runs side by side: a plain-language summary computed from the numbers, the metrics in
// groups with each run's difference from the first (core/compare), and overlaid TTFT and TPOT CDFs.
// Columns are titled by what differs between the runs (protocol, seed, ...). Real runs and the simulated runs that
// model them read as the simulator's error, pairs of them as the median of the pairs' errors (core::RunComparison).

#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QTableView;

namespace coh::core {
struct RunComparison;
}

namespace coh::ui {

class ChartView;
class RunCompareModel;

class RunCompareDialog : public QDialog {
    Q_OBJECT
  public:
    struct Run {
        core::RunInfo info;
        core::RunResult result;
        // What compare-real kept with the run: the simulator on its own costs, or with its costs moved.
        std::vector<core::CostVariant> costVariants;
    };
    // The runs that could be read, and core's error for each that could not (shown above the table).
    struct Loaded {
        std::vector<Run> runs;
        QString error;
    };
    // Reads the runs over its own database connection, so it may run on a worker thread: a run's event
    // record can take a moment to read.
    static Loaded loadRuns(const QString& databasePath, const QList<qint64>& runIds);

    explicit RunCompareDialog(Loaded loaded, QWidget* parent = nullptr);
    // loadRuns() on the calling thread.
    RunCompareDialog(const QString& databasePath, const QList<qint64>& runIds, QWidget* parent = nullptr);
    RunCompareDialog(std::vector<Run> runs, QWidget* parent = nullptr);

    RunCompareModel* model() const { return m_model; }
    QTableView* metricsTable() const { return m_table; }
    QLabel* summaryLabel() const { return m_summary; }
    QLabel* thresholdLabel() const { return m_threshold; }
    ChartView* ttftChart() const { return m_ttftChart; }
    ChartView* tpotChart() const { return m_tpotChart; }
    QString errorText() const { return m_error; }
    // Where the runs are stored: offers Export Report… (the first run's report with the comparison) once known.
    void setDatabasePath(const QString& path);
    QPushButton* exportReportButton() const { return m_exportReport; }

    QTabWidget* tabs() const { return m_tabs; }
    // The summary and its note above, the tabs below; the summary's share of the height, and whether it scrolls.
    QSplitter* split() const { return m_split; }
    QScrollArea* headerPane() const { return m_headerPane; }
    bool headerScrolls() const;
    // The CDFs side by side (from 900 px wide) or one above the other.
    bool chartsSideBySide() const { return m_sideBySide.value_or(false); }

    // The size the dialog opens at: 1000x760 (the table and both CDFs side by side at ease) fitted to the window it
    // opens over and the screen (ui/window_size.h). A 1024x700 window on a 1024x700 screen gives 922x630.
    static QSize initialSize(const QSize& window, const QSize& screen);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

  private:
    void build();
    QString windowTitleOf(const core::RunComparison& comparison) const;
    void buildCharts();
    void layoutCharts();
    // The summary pane's height: what its text needs, at most a third of the split (none once the split is dragged).
    void fitSplit();

    std::vector<Run> m_runs;
    QString m_error;
    RunCompareModel* m_model = nullptr;
    QLabel* m_errorLabel = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_threshold = nullptr;
    QScrollArea* m_headerPane = nullptr;
    QWidget* m_header = nullptr; // the summary and the note, in the pane
    QSplitter* m_split = nullptr;
    bool m_splitDragged = false;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_table = nullptr;
    QGridLayout* m_chartGrid = nullptr;
    ChartView* m_ttftChart = nullptr;
    QString m_databasePath;
    QPushButton* m_exportReport = nullptr;
    ChartView* m_tpotChart = nullptr;
    std::optional<bool> m_sideBySide; // how the charts are laid out; none before the first layout
};

} // namespace coh::ui
