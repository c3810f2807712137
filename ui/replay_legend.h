#pragma once
// The colour key of the replay: one entry per message role with how many messages of that role the run sent
// (click to hide or show the role's markers and rows; hover for what the role does), then the protocol states
// the nodes' block counts use, each in its colour with its meaning on hover. Entries wrap in a narrow window.
#include "core/coherence/protocol_table.h"
#include "core/engine/run_result.h"
#include "ui/message_roles.h"

#include <QWidget>

#include <array>
#include <vector>

class QLabel;
class QToolButton;

namespace coh::ui {

class ReplayLegend : public QWidget {
    Q_OBJECT
  public:
    explicit ReplayLegend(QWidget* parent = nullptr);
    // Counts come from core::trafficCounts(summary); roles the run never used are greyed out, not hidden.
    void setSummary(const core::RunSummary& summary);
    // The states the nodes' badges show (ReplayModel::heldStates()); none for a plain-copy run.
    void setStates(const std::vector<const core::coherence::StateInfo*>& states);
    QString roleText(int role) const;
    QToolButton* roleButton(MessageRole role) const { return m_roles[static_cast<std::size_t>(role)]; }
    const std::vector<QLabel*>& stateLabels() const { return m_stateLabels; }
    // "Block states:" and the state entries, kept together: they wrap as one unit among the roles.
    QWidget* statesGroup() const { return m_statesGroup; }
    QLabel* statesTitle() const { return m_statesTitle; }

    std::array<bool, kMessageRoleCount> hiddenRoles() const;
    void setRoleHidden(MessageRole role, bool hidden);

  signals:
    void hiddenRolesChanged();

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void restyle();

    std::array<QToolButton*, kMessageRoleCount> m_roles{};
    std::array<std::uint64_t, kMessageRoleCount> m_counts{};
    QWidget* m_statesGroup = nullptr;
    QLabel* m_statesTitle = nullptr;
    std::vector<QLabel*> m_stateLabels;
    std::vector<const core::coherence::StateInfo*> m_states;
};

} // namespace coh::ui
