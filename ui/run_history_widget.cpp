#include "ui/run_history_widget.h"

#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "ui/export_folder.h"
#include "ui/profile_job.h" // profileBeingMade
#include "ui/qt_text.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_costs_profile.h"
#include "ui/run_history_model.h"
#include "ui/theme.h"

#include <QAbstractItemDelegate>
#include <QApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <fstream>

namespace coh::ui {

RunHistoryWidget::RunHistoryWidget(QWidget* parent)
    : QWidget(parent)
{
    m_model = new RunHistoryModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1); // any column: name, scenario, status, id
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortRole(Qt::EditRole);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter runs (name, scenario, status, …)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTone(m_error, Tone::Error);
    m_error->hide();
    connect(m_model, &RunHistoryModel::errorChanged, this, &RunHistoryWidget::showError);

    m_view = new QTableView(this);
    m_view->setModel(m_proxy);
    connect(m_view->itemDelegate(), &QAbstractItemDelegate::closeEditor, this, [this] {
        if (m_refreshPending) // the editor goes away after this signal: refresh on the next turn
            QTimer::singleShot(0, this, &RunHistoryWidget::refresh);
    });
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunHistoryModel::Id, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    connect(m_view, &QWidget::customContextMenuRequested, this, &RunHistoryWidget::showContextMenu);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunHistoryWidget::updateButtons);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunHistoryWidget::showDetails);
    // What tells a real run from a simulated one sits beside its name, not scrolled off a small screen's right edge.
    QHeaderView* header = m_view->horizontalHeader();
    header->moveSection(header->visualIndex(RunHistoryModel::Backend), header->visualIndex(RunHistoryModel::Name) + 1);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        updateButtons();
        showDetails();
        m_view->resizeColumnsToContents();
        // A long name (a sim-vs-real pair's) would take the whole width: it is elided, and whole in its tooltip.
        constexpr int kNameWidth = 320;
        if (m_view->columnWidth(RunHistoryModel::Name) > kNameWidth)
            m_view->setColumnWidth(RunHistoryModel::Name, kNameWidth);
    });

    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setPlaceholderText(
        tr("Select a run to see how it ran: its backend, and for a real run what each node ran on, its copies, K/V "
           "rows and own costs"));

    auto makeButton = [this](const QString& text) { return new QPushButton(text, this); };
    auto* refresh = makeButton(tr("Refresh"));
    m_rename = makeButton(tr("Rename"));
    m_delete = makeButton(tr("Delete…"));
    m_export = makeButton(tr("Export"));
    m_open = makeButton(tr("Open in Replay"));
    m_compare = makeButton(tr("Compare"));
    auto* exportMenu = new QMenu(m_export);
    exportMenu->addAction(tr("Requests as CSV…"), this, [this] { exportSelected(ExportFormat::RequestsCsv); });
    exportMenu->addAction(tr("Summary as CSV…"), this, [this] { exportSelected(ExportFormat::SummaryCsv); });
    exportMenu->addAction(tr("Everything as JSON…"), this, [this] { exportSelected(ExportFormat::Json); });
    exportMenu->addSeparator();
    m_costsProfile =
        exportMenu->addAction(tr("Profile of Its Costs…"), this, &RunHistoryWidget::costsProfileOfSelected);
    m_costsProfile->setToolTip(
        tr("A real run: this machine calibrated for its scenario, with what the run's copies and "
           "decode steps cost under its own traffic in place of the calibration's, written as "
           "a profile for Simulator Against Real (cohsim calibrate --from-run)"));
    exportMenu->setToolTipsVisible(true);
    m_export->setMenu(exportMenu);
    m_compare->setToolTip(tr("Select two or more completed runs"));
    connect(refresh, &QPushButton::clicked, this, &RunHistoryWidget::refresh);
    connect(m_rename, &QPushButton::clicked, this, &RunHistoryWidget::renameSelected);
    connect(m_delete, &QPushButton::clicked, this, &RunHistoryWidget::deleteSelected);
    connect(m_open, &QPushButton::clicked, this, &RunHistoryWidget::openSelected);
    connect(m_compare, &QPushButton::clicked, this, &RunHistoryWidget::compareSelected);
    connect(m_view, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        if (index.column() != RunHistoryModel::Name)
            openSelected();
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(refresh);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_open, m_compare, m_rename, m_export, m_delete})
        buttons->addWidget(b);
    buttons->addStretch(1);
    // The list over the details, the list taking the most; either can be dragged to the other's room.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_view);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_error);
    layout->addWidget(split, 1);
    layout->addLayout(buttons);
    updateButtons();
}

void RunHistoryWidget::setDatabasePath(const QString& path)
{
    m_model->setDatabasePath(path);
}

QString RunHistoryWidget::databasePath() const
{
    return m_model->databasePath();
}

void RunHistoryWidget::refresh()
{
    // Resetting the model would close an open rename editor and drop what was typed: refresh once it closes.
    // (An open editor is a child of the view's viewport; the view's own editing state is not public.)
    if (QWidget* focus = QApplication::focusWidget(); focus && m_view->viewport()->isAncestorOf(focus)) {
        m_refreshPending = true;
        return;
    }
    m_refreshPending = false;
    const QList<qint64> selected = selectedRunIds();
    m_model->refresh();
    for (qint64 id : selected)
        selectRun(id);
}

QList<qint64> RunHistoryWidget::selectedRunIds() const
{
    QList<qint64> ids;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows(RunHistoryModel::Id);
    for (const QModelIndex& index : rows)
        ids << index.data(RunHistoryModel::RunIdRole).toLongLong();
    std::sort(ids.begin(), ids.end());
    return ids;
}

void RunHistoryWidget::selectRun(qint64 id)
{
    const int row = m_model->rowOfRun(id);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, RunHistoryModel::Name));
    if (!index.isValid())
        return;
    m_view->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->setCurrentIndex(index);
}

void RunHistoryWidget::updateButtons()
{
    const int count = static_cast<int>(m_view->selectionModel()->selectedRows().size());
    m_rename->setEnabled(count == 1);
    m_delete->setEnabled(count >= 1);
    m_export->setEnabled(count == 1);
    m_open->setEnabled(count == 1);
    m_compare->setEnabled(count >= 2 && !m_comparing);
    m_costsProfile->setEnabled(oneRealRunSelected() && !profileBeingMade());
}

bool RunHistoryWidget::oneRealRunSelected() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.size() != 1)
        return false;
    const core::RunInfo* run = m_model->runInfo(m_proxy->mapToSource(rows.first()).row());
    return run && run->backend != "simulated" && run->status == core::RunStatus::Completed;
}

void RunHistoryWidget::showDetails()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows(RunHistoryModel::Backend);
    if (rows.size() != 1) {
        m_details->clear();
        return;
    }
    const QModelIndex index = rows.first();
    const QString name = index.siblingAtColumn(RunHistoryModel::Name).data().toString().toHtmlEscaped();
    m_details->setHtml(QStringLiteral("<p><b>#%1 %2</b></p>%3")
                           .arg(index.data(RunHistoryModel::RunIdRole).toLongLong())
                           .arg(name, index.data(RunHistoryModel::DetailsRole).toString()));
}

void RunHistoryWidget::showError(const QString& error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
}

void RunHistoryWidget::renameSelected()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows(RunHistoryModel::Name);
    if (rows.size() == 1)
        m_view->edit(rows.first());
}

void RunHistoryWidget::deleteSelected()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty())
        return;
    QStringList names;
    for (qint64 id : ids)
        names << QStringLiteral("#%1").arg(id);
    QMessageBox box(QMessageBox::Question, tr("Delete runs"),
                    tr("Delete %n run(s) (%1) and everything stored with them? This cannot be undone.", nullptr,
                       static_cast<int>(ids.size()))
                        .arg(names.join(QStringLiteral(", "))),
                    QMessageBox::Yes | QMessageBox::Cancel, this);
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Yes)
        return;
    for (qint64 id : ids) {
        QString error;
        if (!m_model->deleteRun(id, &error) && !error.isEmpty()) {
            showError(error);
            return;
        }
    }
}

bool RunHistoryWidget::exportRun(const QString& databasePath, qint64 id, ExportFormat format, const QString& filePath,
                                 QString* error)
{
    try {
        core::RunStore store(toStdString(databasePath));
        const auto info = store.runInfo(id);
        if (!info) {
            if (error)
                *error = tr("Run %1 is not in %2.").arg(id).arg(databasePath);
            return false;
        }
        const core::RunResult result = store.loadRun(id);
        std::ofstream file(toStdString(filePath), std::ios::binary | std::ios::trunc);
        if (!file) {
            if (error)
                *error = tr("Cannot write %1: check that its folder exists and is writable.").arg(filePath);
            return false;
        }
        switch (format) {
        case ExportFormat::Json:
            file << core::exportJson(*info, store.scenarioJson(id).value_or(""), result, store.costVariants(id)).dump(2)
                 << '\n';
            break;
        case ExportFormat::SummaryCsv:
            core::writeSummaryCsv(file, result.summary);
            break;
        case ExportFormat::RequestsCsv:
            core::writeRequestsCsv(file, result);
            break;
        }
        file.close();
        if (!file) {
            if (error)
                *error = tr("Writing %1 failed (disk full?).").arg(filePath);
            return false;
        }
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

void RunHistoryWidget::exportWithDialog(QWidget* parent, const QString& databasePath, qint64 id, ExportFormat preferred,
                                        std::function<void(const QString& path)> written)
{
    const QString csv = tr("Requests as CSV (*.csv)"), summary = tr("Summary as CSV (*.csv)"),
                  json = tr("Everything as JSON (*.json)");
    QString filter = preferred == ExportFormat::Json ? json : preferred == ExportFormat::SummaryCsv ? summary : csv;
    const QString suggested = QStringLiteral("run-%1%2")
                                  .arg(id)
                                  .arg(preferred == ExportFormat::Json         ? QStringLiteral(".json")
                                       : preferred == ExportFormat::SummaryCsv ? QStringLiteral("-summary.csv")
                                                                               : QStringLiteral(".csv"));
    const QString path =
        QFileDialog::getSaveFileName(parent, tr("Export run %1").arg(id), suggestedExportPath(suggested),
                                     QStringList{csv, summary, json}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    const ExportFormat format = filter == json      ? ExportFormat::Json
                                : filter == summary ? ExportFormat::SummaryCsv
                                                    : ExportFormat::RequestsCsv;
    // The worker returns the error, empty on success; its own RunStore connection keeps SQLite on one thread.
    QtConcurrent::run([databasePath, id, format, path] {
        QString error;
        if (exportRun(databasePath, id, format, path, &error))
            return QString();
        return error.isEmpty() ? tr("Exporting run %1 to %2 failed.").arg(id).arg(path) : error;
    }).then(parent, [parent, path, written = std::move(written)](const QString& error) {
        if (!error.isEmpty()) {
            QMessageBox::warning(parent, tr("Export failed"), error);
            return;
        }
        if (written)
            written(path);
    });
}

void RunHistoryWidget::exportSelected(ExportFormat format)
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() != 1)
        return;
    const qint64 id = ids.first();
    exportWithDialog(this, databasePath(), id, format, [this, id](const QString& path) { emit exported(id, path); });
}

void RunHistoryWidget::costsProfileOfSelected()
{
    if (!oneRealRunSelected())
        return;
    if (const QString why = m_calibrationBlocker ? m_calibrationBlocker() : QString(); !why.isEmpty()) {
        QMessageBox::information(this, tr("Profile of Its Costs"), why);
        return;
    }
    // One at a time (profileBeingMade): two calibrations side by side would each measure the other.
    runCostsProfileWithDialog(
        this, databasePath(), selectedRunIds().first(),
        [this](const QString& path) { emit useProfileForSimVsReal(path); }, [this] { updateButtons(); });
    updateButtons();
}

void RunHistoryWidget::openSelected()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() == 1)
        emit openRun(ids.first());
}

void RunHistoryWidget::compareSelected()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() < 2 || m_comparing)
        return;
    // Reading several runs with their event records can take a moment: off the GUI thread, one at a time.
    m_comparing = true;
    updateButtons();
    setCursor(Qt::BusyCursor);
    QtConcurrent::run(&RunCompareDialog::loadRuns, databasePath(), ids)
        .then(this, [this](RunCompareDialog::Loaded loaded) {
            m_comparing = false;
            unsetCursor();
            updateButtons();
            auto* dialog = new RunCompareDialog(std::move(loaded), this);
            dialog->setDatabasePath(databasePath());
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->show();
        });
}

void RunHistoryWidget::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    const int count = static_cast<int>(selectedRunIds().size());
    menu.addAction(tr("Open in Replay"), this, &RunHistoryWidget::openSelected)->setEnabled(count == 1);
    menu.addAction(tr("Compare"), this, &RunHistoryWidget::compareSelected)->setEnabled(count >= 2);
    menu.addAction(tr("Rename"), this, &RunHistoryWidget::renameSelected)->setEnabled(count == 1);
    QMenu* exportMenu = menu.addMenu(tr("Export"));
    exportMenu->setEnabled(count == 1);
    exportMenu->addAction(tr("Requests as CSV…"), this, [this] { exportSelected(ExportFormat::RequestsCsv); });
    exportMenu->addAction(tr("Summary as CSV…"), this, [this] { exportSelected(ExportFormat::SummaryCsv); });
    exportMenu->addAction(tr("Everything as JSON…"), this, [this] { exportSelected(ExportFormat::Json); });
    exportMenu->addSeparator();
    exportMenu->addAction(m_costsProfile);
    menu.addSeparator();
    menu.addAction(tr("Delete…"), this, &RunHistoryWidget::deleteSelected)->setEnabled(count >= 1);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

} // namespace coh::ui
