#pragma once
// File > Export Report… in the desktop app: the run shown in Replay and Charts as an HTML, PDF or Markdown report,
// the same one `cohsim report` writes (docs/reports.md).
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QProgressDialog;
class QWidget;

namespace coh::ui {

// Reads run `id` (and the runs to compare it with) from the database and writes its report to `path` in `format`
// ("html", "pdf", "md"); false with the reason in `error`. All on the calling thread, the GUI's (the charts are
// widgets): for tests and small runs; the app uses ReportExport.
bool exportReport(const QString& databasePath, qint64 id, const QString& format, const QString& path, QString* error,
                  const QList<qint64>& compareWith = {});

// One export under way: the runs are read off the GUI thread (a run of millions of messages takes seconds), then the
// charts are drawn and the file written on it, behind a progress dialog whose Cancel abandons the export (no file is
// written). It deletes itself once it has finished.
class ReportExport : public QObject {
    Q_OBJECT
  public:
    // Starts at once; the dialog shows when reading takes more than a moment.
    static ReportExport* start(QWidget* parent, const QString& databasePath, qint64 id, const QString& format,
                               const QString& path, const QList<qint64>& compareWith = {});
    ~ReportExport() override;

    QProgressDialog* progress() const { return m_progress; }
    void cancel();

  signals:
    // ok: the report is at `path`; otherwise `error` says why (empty when cancelled).
    void finished(bool ok, const QString& path, const QString& error);

  private:
    struct Loaded;
    ReportExport(QWidget* parent, QString format, QString path);
    void onLoaded(const std::shared_ptr<Loaded>& loaded);
    void end(bool ok, const QString& error);

    QString m_format, m_path;
    QProgressDialog* m_progress = nullptr;
    bool m_ended = false; // finished() was emitted (written, failed or cancelled)
};

// Asks where (the format follows the file type chosen), exports with a ReportExport, then calls `written` with the
// path; a failure is shown in a message box.
void exportReportWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                            std::function<void(const QString& path)> written, const QList<qint64>& compareWith = {});

} // namespace coh::ui
