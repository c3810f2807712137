#pragma once
// File > Export Report… in the desktop app: the run shown in Replay and Charts as an HTML, PDF or Markdown report,
// the same one `cohsim report` writes (docs/reports.md).
#include <QList>
#include <QString>

#include <functional>

class QWidget;

namespace coh::ui {

// Reads run `id` (and the runs to compare it with) from the database and writes its report to `path` in `format`
// ("html", "pdf", "md"); false with the reason in `error`. On the GUI thread: the charts are widgets.
bool exportReport(const QString& databasePath, qint64 id, const QString& format, const QString& path, QString* error,
                  const QList<qint64>& compareWith = {});
// Asks where (the format follows the file type chosen), writes, then calls `written` with the path.
void exportReportWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                            std::function<void(const QString& path)> written, const QList<qint64>& compareWith = {});

} // namespace coh::ui
