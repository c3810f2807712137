#pragma once
// Walks the main window through its main views on the open scenario (topology, a finished run's replay at its
// busiest instant, charts, a lab lesson, run history) and saves each view as a PNG: `cohstudio --screenshots
// DIR`, run by scripts/screenshots under Xvfb for the README's pictures.

#include <QObject>
#include <QString>
#include <QStringList>

namespace coh::ui {

class MainWindow;

class ScreenshotTour : public QObject {
    Q_OBJECT
  public:
    ScreenshotTour(MainWindow* window, const QString& outputDir, QObject* parent = nullptr);

    // Starts the run; the pictures follow once it has finished. Emits finished() either way.
    void start();
    QStringList saved() const { return m_saved; }

  signals:
    void finished(bool ok, const QString& error);

  private:
    void capture(int tab, const QString& name);
    void afterRun();

    MainWindow* m_window;
    QString m_dir;
    QStringList m_saved;
    bool m_failed = false; // the run failed (finished() already emitted)
};

} // namespace coh::ui
