#pragma once
// The colour key of the replay: one swatch per message role, with how many messages of that role the run sent.
#include "core/engine/run_result.h"

#include <QWidget>

class QLabel;

namespace coh::ui {

class ReplayLegend : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayLegend(QWidget* parent = nullptr);
    // Counts come from core::trafficCounts(summary); roles the run never used are greyed out, not hidden.
    void setSummary(const core::RunSummary& summary);
    QString roleText(int role) const;

  private:
    QList<QLabel*> m_labels;
};

} // namespace coh::ui
