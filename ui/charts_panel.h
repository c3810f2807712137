#pragma once
// The run's charts: TTFT and TPOT over time, latency CDFs, the TPOT split, messages by kind and the busiest
// links' utilisation. Time charts show the replay's time as a cursor and report clicks as times.
#include "core/engine/run_result.h"

#include <QWidget>

#include <memory>

class QChartView;

namespace coh::ui {

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
    QChartView* cdfChart() const { return m_cdf; }
    QChartView* kindChart() const { return m_kinds; }

  public slots:
    void setCursorTime(qint64 ns);

  signals:
    void timeClicked(qint64 ns);

  private:
    void fillLatencyOverTime();
    void fillCdf();
    void fillSplit();
    void fillKinds();
    void fillLinks();

    std::shared_ptr<const core::RunResult> m_run;
    TimeChartView* m_ttft = nullptr;
    TimeChartView* m_tpot = nullptr;
    TimeChartView* m_split = nullptr;
    TimeChartView* m_links = nullptr;
    QChartView* m_cdf = nullptr;
    QChartView* m_kinds = nullptr;
    qint64 m_cursorTime = 0;
};

} // namespace coh::ui
