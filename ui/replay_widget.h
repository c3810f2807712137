#pragma once
// The replay view: a finished run's coherence traffic animated on its topology, with a header naming the run,
// transport controls, a colour legend (roles to hide or show, block states), the message inspector beside the
// canvas (a filterable list and the selected message's details, in sync with the canvas both ways) and a
// status line (t, messages in flight, frames per second over the last second).
#include "core/engine/run_result.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <memory>

class QLabel;
class QSplitter;

namespace coh::ui {

class ReplayCanvas;
class ReplayInspector;
class ReplayLegend;
class ReplayModel;
class TimelineBar;

// Which stored run is on show, for the header ("Run #12 · name · protocol · scenario file"; the protocol only when
// the name does not already say it, as the default "<scenario> · <protocol>" does).
struct ReplayRunLabel {
    qint64 id = 0;        // 0: not stored (or unknown)
    QString name;         // the run's name in the store
    QString scenarioFile; // the file the run was made from; empty: the scenario's name is shown
};

class ReplayWidget : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayWidget(QWidget* parent = nullptr);
    ~ReplayWidget() override;

    // Shows a run whose model is built (ReplayModel(run, scenarioJson): positions come from the scenario JSON the
    // run was made from, /topology/nodes/i/position): on the GUI thread this only swaps it in and fills the
    // views. The default speed makes the busiest moment's typical message take ReplayModel::kBusiestSeconds to
    // cross. Null: no run. Drops any loadRun() still building.
    void setRun(std::shared_ptr<const ReplayModel> model, const ReplayRunLabel& label = {});
    // Builds the model on a worker thread (it sorts and indexes every message: ~80 ms per million), then shows
    // it as setRun(model) does; the run on show stays until then. A later loadRun or setRun wins over an earlier
    // build still running, whichever finishes first. runShown() says when it is in.
    void loadRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson,
                 const ReplayRunLabel& label = {});
    // Builds the model here, on the calling thread, and shows it: for tests and small runs.
    void setRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson,
                const ReplayRunLabel& label = {});
    bool isLoading() const { return m_loading; }
    // The run on show; null before a run is shown.
    std::shared_ptr<const core::RunResult> run() const { return m_run; }
    qint64 time() const { return m_time; }
    int inFlightCount() const;
    QString statusText() const;
    QString headerText() const;

    ReplayCanvas* canvas() const { return m_canvas; }
    TimelineBar* timeline() const { return m_timeline; }
    ReplayLegend* legend() const { return m_legend; }
    ReplayInspector* inspector() const { return m_inspector; }
    QSplitter* splitter() const { return m_split; }
    std::shared_ptr<const ReplayModel> model() const { return m_model; }
    int selectedMessage() const { return m_selected; }

  public slots:
    void setTime(qint64 ns);
    void stepForward();
    void stepBack();
    // Selects a message in the canvas and the list; -1 clears.
    void selectMessage(int message);

  signals:
    void timeChanged(qint64 ns);
    // A run (or none) is on show: after setRun, or when loadRun's model is in.
    void runShown();

  private:
    void seekFromTimeline(qint64 ns);
    void updateStatus();
    void sampleFps();
    void applyHiddenRoles();

    std::shared_ptr<const core::RunResult> m_run;
    std::shared_ptr<const ReplayModel> m_model;
    quint64 m_generation = 0; // counts setRun/loadRun calls: a build finishing for an older one is dropped
    bool m_loading = false;
    QLabel* m_header = nullptr;
    ReplayCanvas* m_canvas = nullptr;
    ReplayInspector* m_inspector = nullptr;
    QSplitter* m_split = nullptr;
    TimelineBar* m_timeline = nullptr;
    ReplayLegend* m_legend = nullptr;
    QLabel* m_status = nullptr;
    qint64 m_time = 0;
    int m_selected = -1;
    QTimer m_fpsTimer;
    QElapsedTimer m_fpsClock;
    quint64 m_framesAtSample = 0;
    double m_fps = 0;
};

} // namespace coh::ui
