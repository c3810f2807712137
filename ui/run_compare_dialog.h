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
    // Loads every run from the database; a run that cannot be loaded shows core's error above the table.
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
