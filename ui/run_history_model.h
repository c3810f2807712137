#pragma once
// The stored runs as a table (RunStore::listRuns, newest first): what ran (scenario, the protocol of each phase
// and tier, backend, seed) and what it measured, in the traffic words of core/engine/traffic_counts.h. The name
// column is editable (renameRun).
// A database that cannot be opened or read leaves the model empty and errorText() holds core's message.

#include "core/store/run_store.h"

#include <QAbstractTableModel>
#include <QString>

#include <map>
#include <vector>

namespace coh::ui {

class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Id,
        Name,
        Scenario,
        DecodeProtocol,
        PrefillProtocol,
        TierProtocols,
        Backend,
        Seed,
        Status,
        Created,
        Requests,
        TtftP50,
        TtftP99,
        TpotP50,
        TpotP99,
        Throughput,
        Messages,
        Flows,
        ColumnCount
    };
    static constexpr int RunIdRole = Qt::UserRole + 1;
    // The run's backend, in full (a real run's mapping, copies, K/V rows and own costs; the runs it pairs with), as
    // rich text: History shows it below the list for the selected run. Too long for a tooltip on a small screen.
    static constexpr int DetailsRole = Qt::UserRole + 2;

    explicit RunHistoryModel(QObject* parent = nullptr);

    void setDatabasePath(const QString& path); // reloads
    QString databasePath() const { return m_path; }
    QString errorText() const { return m_error; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    qint64 runId(int row) const;
    int rowOfRun(qint64 id) const; // -1 when absent
    const core::RunInfo* runInfo(int row) const;

    bool deleteRun(qint64 id, QString* error = nullptr);

  public slots:
    void refresh();

  signals:
    void errorChanged(const QString& error); // empty when the database reads fine again

  private:
    static QString headerToolTip(int section);
    QString runDetails(const core::RunInfo& run) const;
    void setError(const QString& error);

    QString m_path;
    QString m_error;
    std::vector<core::RunInfo> m_runs;
    mutable std::map<qint64, QString> m_details; // per run id, made when first asked for
};

} // namespace coh::ui
