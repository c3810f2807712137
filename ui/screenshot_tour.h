#pragma once
// Walks the main window through every tab on the open scenario after running it (the replay at its busiest
// instant, a lab lesson midway) in the light and the dark palette, at 1024×700 and 1600×1000, with the default
// layout, and saves each view as `<tab>-<light|dark>-<w>x<h>.png`: `cohstudio --screenshots DIR`, run by
// scripts/screenshots under Xvfb for docs/images/.

#include <QList>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

namespace coh::ui {

class MainWindow;

class ScreenshotTour : public QObject {
    Q_OBJECT
  public:
    ScreenshotTour(MainWindow* window, const QString& outputDir, QObject* parent = nullptr);

    static QList<QSize> sizes(); // 1024×700 (the smallest supported screen) and 1600×1000
    // "replay-dark-1024x700.png"
    static QString fileName(const QString& tab, bool dark, const QSize& size);

    // Starts the run; the pictures follow once it has finished. Emits finished() either way.
    void start();
    QStringList saved() const { return m_saved; }
    int expectedCount() const;

  signals:
    void finished(bool ok, const QString& error);

  private:
    void afterRun();
    void captureAll(bool dark, const QSize& size);
    void capture(int tab, const QString& name);

    MainWindow* m_window;
    QString m_dir;
    QStringList m_saved;
    QStringList m_failedSaves;
    qint64 m_runId = 0;
    bool m_failed = false; // the run failed (finished() already emitted)
};

} // namespace coh::ui
