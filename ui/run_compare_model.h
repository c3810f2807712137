#pragma once
// A run comparison (core/compare) as a table: the metric, each run's value, then each later run's difference
// from the first ("+5.28 ms (+13.6%)", or "about the same" within the metric's threshold). Rows come in groups
// (what ran, latency, throughput, traffic, ...), each opened by a group row that the view spans. A difference
// beyond the threshold is tinted good or bad (theme tones, recomputed when the palette changes). A real run and its
// model add the simulator's error on the real runs' own costs and with its costs moved, where compare-real kept them.
#include "core/compare/run_comparison.h"

#include <QAbstractTableModel>

#include <vector>

namespace coh::ui {

class RunCompareModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    static constexpr int ValueRole = Qt::UserRole + 1;   // the number behind a value or difference cell
    static constexpr int VerdictRole = Qt::UserRole + 2; // core::Verdict of a cell, as int; -1 where none
    static constexpr int GroupRole = Qt::UserRole + 3;   // true on group rows

    explicit RunCompareModel(core::RunComparison comparison, QObject* parent = nullptr);

    const core::RunComparison& comparison() const { return m_comparison; }
    int runCount() const { return static_cast<int>(m_comparison.titles.size()); }
    // The column of run `run`'s value, and of its difference from the first run (run >= 1).
    int valueColumn(int run) const { return 1 + run; }
    int deltaColumn(int run) const { return runCount() + run; }
    // A real run and its model kept by compare-real with the simulator's figures on other costs
    // (core::RunComparison::ownCosts, costSensitivity): the error on the real runs' own costs, and its range with the
    // model's costs moved, each a column after the error's; -1 where not kept.
    int ownCostsColumn() const { return m_comparison.ownCosts ? 2 * runCount() : -1; }
    int movedCostsColumn() const
    {
        return m_comparison.costSensitivity > 0 ? 2 * runCount() + (m_comparison.ownCosts ? 1 : 0) : -1;
    }
    // The row of a metric or property by its label, or of a group by its name; -1 when absent.
    int rowOf(const QString& label) const;
    bool isGroupRow(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        enum Kind { Group, Property, Metric } kind;
        QString label;
        int index = -1; // into properties or metrics
    };
    QVariant metricData(const core::MetricRow& metric, int column, int role) const;
    QVariant propertyData(const core::PropertyRow& property, int column, int role) const;
    QVariant ownCostsData(const core::MetricRow& metric, int role) const;
    QVariant movedCostsData(const core::MetricRow& metric, int role) const;

    core::RunComparison m_comparison;
    std::vector<Row> m_rows;
};

} // namespace coh::ui
