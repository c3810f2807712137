#pragma once
// Transport controls for the replay: go to the start / end, play/pause, step to the previous/next message start,
// speed, and a scrubber over [0, end]. Playing is pull-based: a 60 Hz timer asks for the next time, no
// per-message signal. The buttons' glyphs are drawn in the palette's button text colour, so they read in the
// light and the dark palette. Bands on the scrubber mark stretches of the run (node failures), each with a tooltip.
#include <QElapsedTimer>
#include <QRect>
#include <QTimer>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace coh::ui {

class TimelineBar : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kSliderSteps = 1'000'000; // scrubber resolution: end / this per step

    explicit TimelineBar(QWidget* parent = nullptr);

    // Also picks a default speed that plays the whole run in about a minute.
    void setRange(qint64 end);
    qint64 end() const { return m_end; }
    // Shows t without emitting seekRequested (the owner calls this after it moved time).
    void setTime(qint64 t);
    qint64 time() const { return m_time; }
    bool isPlaying() const { return m_timer.isActive(); }
    // Simulated seconds per wall-clock second. A speed off the list of powers of ten joins the list (the one the
    // replay picks from the run, marked with `why` and explained by `whyTip`), replacing the previous such entry.
    double speed() const;
    void setSpeed(double simSecondsPerSecond, const QString& why = {}, const QString& whyTip = {});

    QSlider* slider() const { return m_slider; }
    QToolButton* playButton() const { return m_play; }
    QToolButton* stepForwardButton() const { return m_stepForward; }
    QToolButton* stepBackButton() const { return m_stepBack; }
    QToolButton* toStartButton() const { return m_toStart; }
    QToolButton* toEndButton() const { return m_toEnd; }
    QComboBox* speedBox() const { return m_speed; }
    // While playing, jump over stretches with nothing in flight (the owner decides what is idle).
    bool skipIdle() const;
    QCheckBox* skipIdleBox() const { return m_skipIdle; }

    // A stretch [from, to) of the run marked on the scrubber in the error tone (a node down: from its failure to its
    // repair, or the end), with a tick at `tick` inside it (the failure's detection; -1: none) and its tooltip.
    struct Band {
        qint64 from = 0;
        qint64 to = 0;
        qint64 tick = -1;
        QString toolTip;
    };
    // Replaces the bands; none (a run without failures) leaves the scrubber as it always is.
    void setBands(std::vector<Band> bands);
    const std::vector<Band>& bands() const { return m_bands; }
    // The horizontal centre of the scrubber's handle at t, in the slider's coordinates.
    int sliderX(qint64 t) const;
    // Where band i is drawn, in the slider's coordinates (at least 3 px wide, so a short failure still shows).
    QRect bandRect(std::size_t i) const;
    // The tooltip of the bands under a position on the slider; empty when none is there.
    QString bandToolTipAt(QPoint sliderPos) const;

    // 1.25 ms, 830 ns, 12.000 s: the unit that keeps the number short.
    static QString formatTime(qint64 ns);
    // A speed as what one wall-clock second of playback shows: "1 s shows 9.8 µs" (two significant digits).
    static QString formatSpeed(double simSecondsPerSecond);

  public slots:
    void play();
    void pause();
    void togglePlay();
    void goToStart();
    void goToEnd();

  signals:
    void seekRequested(qint64 t);
    void stepRequested(int direction); // +1 next message start, -1 previous
    void playingChanged(bool playing);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void tick();
    void updateIcons();
    qint64 sliderToTime(int value) const;
    int timeToSlider(qint64 t) const;
    void updateLabel();

    QToolButton* m_toStart = nullptr;
    QToolButton* m_toEnd = nullptr;
    QToolButton* m_play = nullptr;
    QToolButton* m_stepBack = nullptr;
    QToolButton* m_stepForward = nullptr;
    QComboBox* m_speed = nullptr;
    QCheckBox* m_skipIdle = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_label = nullptr;
    QTimer m_timer;
    QElapsedTimer m_wall;
    double m_playTime = 0;  // fractional ns, so slow speeds still advance
    int m_customSpeed = -1; // index of the speed entry off the powers of ten, -1: none
    qint64 m_time = 0;
    qint64 m_end = 0;
    std::vector<Band> m_bands;
};

} // namespace coh::ui
