#pragma once
// The replay view: a finished run's coherence traffic animated on its topology, with transport controls,
// a colour legend and a status line (t, messages in flight, frames per second over the last second).
#include "core/engine/run_result.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <memory>

class QLabel;

namespace coh::ui {

class ReplayCanvas;
class ReplayLegend;
class ReplayModel;
class TimelineBar;

class ReplayWidget : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayWidget(QWidget* parent = nullptr);
    ~ReplayWidget() override;

    // Positions come from the scenario JSON the run was made from (/topology/nodes/i/position).
    void setRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson);
    // The run on show; null before setRun.
    std::shared_ptr<const core::RunResult> run() const { return m_run; }
    qint64 time() const { return m_time; }
    int inFlightCount() const;
    QString statusText() const;

    ReplayCanvas* canvas() const { return m_canvas; }
    TimelineBar* timeline() const { return m_timeline; }
    ReplayLegend* legend() const { return m_legend; }
    std::shared_ptr<const ReplayModel> model() const { return m_model; }

  public slots:
    void setTime(qint64 ns);
    void stepForward();
    void stepBack();

  signals:
    void timeChanged(qint64 ns);

  private:
    void seekFromTimeline(qint64 ns);
    void updateStatus();
    void sampleFps();

    std::shared_ptr<const core::RunResult> m_run;
    std::shared_ptr<const ReplayModel> m_model;
    ReplayCanvas* m_canvas = nullptr;
    TimelineBar* m_timeline = nullptr;
    ReplayLegend* m_legend = nullptr;
    QLabel* m_status = nullptr;
    qint64 m_time = 0;
    QTimer m_fpsTimer;
    QElapsedTimer m_fpsClock;
    quint64 m_framesAtSample = 0;
    double m_fps = 0;
};

} // namespace coh::ui
