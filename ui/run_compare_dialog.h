#pragma once
// Two or more stored runs side by side: summary metrics in a table (best value per row highlighted) and the
// TTFT and TPOT distributions as overlaid CDFs, one series per run.

#include "core/engine/run_result.h"
#include "core/store/run_store.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <vector>

class QLabel;
class QTableWidget;
class QChartView;

namespace coh::ui {

class RunCompareDialog : public QDialog {
    Q_OBJECT
  public:
    struct Run {
        core::RunInfo info;
        core::RunResult result;
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

    QTableWidget* metricsTable() const { return m_table; }
    QChartView* ttftChart() const { return m_ttftChart; }
    QChartView* tpotChart() const { return m_tpotChart; }
    QString errorText() const { return m_error; }

  private:
    void build();
    void fillTable();
    QChartView* makeCdfChart(const QString& title, bool tpot);

    std::vector<Run> m_runs;
    QString m_error;
    QLabel* m_errorLabel = nullptr;
    QTableWidget* m_table = nullptr;
    QChartView* m_ttftChart = nullptr;
    QChartView* m_tpotChart = nullptr;
};

} // namespace coh::ui
