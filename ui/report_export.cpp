#include "ui/report_export.h"

#include "core/base/input_error.h"
#include "core/store/run_store.h"
#include "ui/export_folder.h"
#include "ui/report_content.h"
#include "ui/report_writers.h"

#include <QApplication>
#include <QFileDialog>
#include <QMessageBox>

#include <memory>
#include <vector>

namespace coh::ui {

bool exportReport(const QString& databasePath, qint64 id, const QString& format, const QString& path, QString* error,
                  const QList<qint64>& compareWith)
{
    try {
        core::RunStore store(databasePath.toStdString());
        const RunReportInput run = loadRunForReport(store, id);
        std::vector<RunReportInput> others;
        for (const qint64 other : compareWith)
            others.push_back(loadRunForReport(store, other));
        const ReportContent report = buildRunReport(run, others);
        return writeReport(report, format, path, error);
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

void exportReportWithDialog(QWidget* parent, const QString& databasePath, qint64 id,
                            std::function<void(const QString& path)> written, const QList<qint64>& compareWith)
{
    const QString html = QApplication::tr("Web page (*.html)"), pdf = QApplication::tr("PDF (*.pdf)"),
                  md = QApplication::tr("Markdown, charts as SVG files beside it (*.md)");
    QString filter = html;
    const QString path = QFileDialog::getSaveFileName(
        parent, QApplication::tr("Export the report of run %1").arg(id),
        suggestedExportPath(compareWith.isEmpty() ? QStringLiteral("run-%1-report.html").arg(id)
                                                  : QStringLiteral("run-%1-compared-report.html").arg(id)),
        QStringList{html, pdf, md}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    const QString format =
        filter == pdf || path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) ? QStringLiteral("pdf")
        : filter == md || path.endsWith(QLatin1String(".md"), Qt::CaseInsensitive) ? QStringLiteral("md")
                                                                                   : QStringLiteral("html");
    QApplication::setOverrideCursor(Qt::BusyCursor);
    QString error;
    const bool ok = exportReport(databasePath, id, format, path, &error, compareWith);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        QMessageBox::warning(parent, QApplication::tr("Export failed"), error);
        return;
    }
    if (written)
        written(path);
}

} // namespace coh::ui
