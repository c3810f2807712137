#pragma once
// The History tab: every stored run, filterable and sortable, with rename, delete, export (the same output as
// `cohsim export`; a real run's costs as a profile, as `cohsim calibrate --from-run`), open in Replay and compare. A
// database that cannot be read shows core's error here.

#include <QList>
#include <QString>
#include <QWidget>
#include <functional>

class QAction;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace coh::ui {

class RunHistoryModel;

class RunHistoryWidget : public QWidget {
    Q_OBJECT
  public:
    enum class ExportFormat { RequestsCsv, SummaryCsv, Json };

    explicit RunHistoryWidget(QWidget* parent = nullptr);

    void setDatabasePath(const QString& path);
    QString databasePath() const;

    RunHistoryModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    // The selected run's details (its backend: a real run's mapping, copies, K/V rows and own costs), below the list.
    QTextBrowser* details() const { return m_details; }
    QLineEdit* filterEdit() const { return m_filter; }
    QList<qint64> selectedRunIds() const;
    void selectRun(qint64 id);
    // Export ▸ Profile of Its Costs…: enabled for one completed real run, while no other profile is being made.
    QAction* costsProfileAction() const { return m_costsProfile; }
    // Why a profile may not be measured now (a run is going, whose traffic it would measure); empty when it may.
    void setCalibrationBlocker(std::function<QString()> why) { m_calibrationBlocker = std::move(why); }

    // Writes one run as `cohsim export ID [--summary] [--format json]` would; false with core's message on error.
    static bool exportRun(const QString& databasePath, qint64 id, ExportFormat format, const QString& filePath,
                          QString* error);
    // Asks for a file (the format follows the chosen filter) and exports on a worker thread, since a run's
    // event record can take a moment to read; `written` gets the path on the GUI thread once the file is
    // complete, and a failure is shown in a message box over `parent`.
    static void exportWithDialog(QWidget* parent, const QString& databasePath, qint64 id, ExportFormat preferred,
                                 std::function<void(const QString& path)> written = {});

  public slots:
    void refresh();
    void renameSelected();
    void deleteSelected(); // asks for confirmation
    void exportSelected(ExportFormat format);
    void openSelected();
    void compareSelected();
    // A profile of the selected real run's own costs (runCostsProfileWithDialog), offered to Simulator Against Real.
    void costsProfileOfSelected();

  signals:
    void openRun(qint64 id);
    void exported(qint64 id, const QString& path);
    // The user chose to run Simulator Against Real on the profile of a run's costs just written at `path`.
    void useProfileForSimVsReal(const QString& path);

  private:
    void updateButtons();
    bool oneRealRunSelected() const; // completed, so it may have kept its costs
    void showDetails();
    void showError(const QString& error);
    void showContextMenu(const QPoint& pos);

    RunHistoryModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QTextBrowser* m_details = nullptr;
    bool m_refreshPending = false; // a refresh waits for the rename editor to close
    bool m_comparing = false;      // the compare dialog's runs are being read
    QLineEdit* m_filter = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_rename = nullptr;
    QPushButton* m_delete = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_compare = nullptr;
    QAction* m_costsProfile = nullptr;
    std::function<QString()> m_calibrationBlocker;
};

} // namespace coh::ui
