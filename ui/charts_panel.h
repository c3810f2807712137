#pragma once
// The run's charts: TTFT and TPOT over time, latency CDFs, the TPOT split, messages by kind, the busiest
// links' utilisation, the sequences in each decode iteration, for a run with KV tiers below HBM the blocks each tier
// held, and for a run with node failures the serving instances up. Time charts show the replay's time as a cursor and
// report clicks as times. Every chart has round ticks, axis titles with units, a tooltip with the exact value under the
// mouse, and a message when there is nothing to draw.
#include "core/engine/run_result.h"

#include <QList>
#include <QWidget>

#include <memory>

class QGridLayout;

namespace coh::ui {

class ChartView;
class TimeChartView;

class ChartsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ChartsPanel(QWidget* parent = nullptr);

    void setRun(std::shared_ptr<const core::RunResult> run);
    qint64 cursorTime() const { return m_cursorTime; }

    TimeChartView* ttftChart() const { return m_ttft; }
    TimeChartView* tpotChart() const { return m_tpot; }
    TimeChartView* splitChart() const { return m_split; }
    TimeChartView* linkChart() const { return m_links; }
    // In the grid only while the run has KV tiers (summary.kvTiers.enabled); hidden otherwise.
    TimeChartView* tierChart() const { return m_tiers; }
    // In the grid only while the run has node failures (summary.failures.enabled), after the tiers'; hidden otherwise.
    TimeChartView* availabilityChart() const { return m_availability; }
    // In the grid only while the run recorded decode iterations (runs stored before schema 8 have none).
    TimeChartView* batchChart() const { return m_batches; }
    ChartView* cdfChart() const { return m_cdf; }
    ChartView* kindChart() const { return m_kinds; }
    // Two charts a row when there is room for them to read, else one.
    int columns() const { return m_columns; }

  public slots:
    void setCursorTime(qint64 ns);

  signals:
    void timeClicked(qint64 ns);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    QList<TimeChartView*> timeViews() const;
    QList<ChartView*> allViews() const; // the time charts too
    void layoutCharts(int columns, bool force = false);
    void showEmpty(const QString& why);
    void fillLatencyOverTime();
    void fillCdf();
    void fillSplit();
    void fillKinds();
    // Makes the kinds' chart tall enough that every kind's name has its line on the left axis.
    void fitKindLabels();
    void fillLinks();
    void fillTiers();
    void fillAvailability();
    void fillBatches();

    std::shared_ptr<const core::RunResult> m_run;
    QGridLayout* m_grid = nullptr;
    int m_columns = 0;
    TimeChartView* m_ttft = nullptr;
    TimeChartView* m_tpot = nullptr;
    TimeChartView* m_split = nullptr;
    TimeChartView* m_links = nullptr;
    TimeChartView* m_tiers = nullptr;
    TimeChartView* m_availability = nullptr;
    TimeChartView* m_batches = nullptr;
    ChartView* m_cdf = nullptr;
    ChartView* m_kinds = nullptr;
    qint64 m_cursorTime = 0;
};

} // namespace coh::ui
