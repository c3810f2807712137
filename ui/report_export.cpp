#include "ui/report_export.h"

#include "core/base/input_error.h"
#include "core/store/run_store.h"
#include "ui/export_folder.h"
#include "ui/report_content.h"
#include "ui/report_writers.h"

#include <QApplication>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QtConcurrent/QtConcurrentRun>

#include <vector>

namespace coh::ui {

struct ReportExport::Loaded {
    RunReportInput run;
    std::vector<RunReportInput> others;
    QString error;
};

namespace {

// Throws what the store throws (no such run, not completed, a damaged file).
void load(const QString& databasePath, qint64 id, const QList<qint64>& compareWith, RunReportInput& run,
          std::vector<RunReportInput>& others)
{
    core::RunStore store(databasePath.toStdString());
    run = loadRunForReport(store, id);
    for (const qint64 other : compareWith)
        others.push_back(loadRunForReport(store, other));
}

} // namespace

bool exportReport(const QString& databasePath, qint64 id, const QString& format, const QString& path, QString* error,
                  const QList<qint64>& compareWith)
{
    try {
        RunReportInput run;
        std::vector<RunReportInput> others;
        load(databasePath, id, compareWith, run, others);
        return writeReport(buildRunReport(run, others), format, path, error);
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

ReportExport::ReportExport(QWidget* parent, QString format, QString path)
    : QObject(parent)
    , m_format(std::move(format))
    , m_path(std::move(path))
{
}

ReportExport::~ReportExport() = default;

ReportExport* ReportExport::start(QWidget* parent, const QString& databasePath, qint64 id, const QString& format,
                                  const QString& path, const QList<qint64>& compareWith)
{
    auto* job = new ReportExport(parent, format, path);
    job->m_progress =
        new QProgressDialog(tr("Reading run %1 from the run database…").arg(id), tr("Cancel"), 0, 3, parent);
    job->m_progress->setWindowTitle(tr("Export Report"));
    job->m_progress->setWindowModality(Qt::WindowModal);
    job->m_progress->setMinimumDuration(400);
    job->m_progress->setAutoClose(false);
    job->m_progress->setAutoReset(false);
    job->m_progress->setValue(0);
    connect(job->m_progress, &QProgressDialog::canceled, job, &ReportExport::cancel);

    auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(job);
    connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, job,
            [job, watcher] { job->onLoaded(watcher->result()); });
    // The thread keeps its own copies: a cancelled export's read may end after the job is gone.
    watcher->setFuture(QtConcurrent::run([databasePath, id, compareWith] {
        auto loaded = std::make_shared<Loaded>();
        try {
            load(databasePath, id, compareWith, loaded->run, loaded->others);
        } catch (const std::exception& e) {
            loaded->error = QString::fromStdString(e.what());
        }
        return loaded;
    }));
    return job;
}

void ReportExport::cancel()
{
    if (m_ended)
        return;
    end(false, {}); // the read under way ends on its own; its result is dropped with the job
}

void ReportExport::onLoaded(const std::shared_ptr<Loaded>& loaded)
{
    if (m_ended)
        return; // cancelled while reading
    if (!loaded->error.isEmpty()) {
        end(false, loaded->error);
        return;
    }
    // The charts are widgets: drawn here, on the GUI thread, with the dialog saying so.
    m_progress->setLabelText(tr("Drawing the charts…"));
    m_progress->setValue(1);
    QApplication::setOverrideCursor(Qt::BusyCursor);
    const ReportContent report = buildRunReport(loaded->run, loaded->others);
    m_progress->setLabelText(m_format == QLatin1String("pdf") ? tr("Writing the PDF…") : tr("Writing the report…"));
    m_progress->setValue(2);
    QString error;
    const bool ok = writeReport(report, m_format, m_path, &error);
    QApplication::restoreOverrideCursor();
    end(ok, error);
}

void ReportExport::end(bool ok, const QString& error)
{
    m_ended = true;
    m_progress->setValue(3);
    m_progress->hide();
    m_progress->deleteLater();
    emit finished(ok, m_path, error);
    deleteLater();
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
    ReportExport* job = ReportExport::start(parent, databasePath, id, format, path, compareWith);
    QPointer<QWidget> owner(parent);
    QObject::connect(job, &ReportExport::finished, parent,
                     [owner, written](bool ok, const QString& where, const QString& error) {
                         if (ok) {
                             if (written)
                                 written(where);
                         } else if (!error.isEmpty() && owner) {
                             QMessageBox::warning(owner, QApplication::tr("Export failed"), error);
                         }
                     });
}

} // namespace coh::ui
