#pragma once
// The Protocol Lab's document: protocol, cache count and the script so far (ops, and in manual delivery the order
// messages arrive in). Every change re-runs core's runLab (microseconds), so the run and the step cursor are always
// consistent; views listen to changed().
#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_table.h"
#include "core/coherence/step_record.h"

#include <QObject>
#include <QString>

#include <vector>

namespace coh::ui {

class LabModel : public QObject {
    Q_OBJECT
  public:
    static constexpr int kMinCaches = 2;
    static constexpr int kMaxCaches = 4;

    explicit LabModel(QObject* parent = nullptr);

    // False (and nothing changes) when no protocol has that name; errorText() then names the valid ones.
    bool setProtocol(const QString& name);
    QString protocolName() const;
    const core::coherence::Protocol& protocol() const { return *m_protocol; }

    // Clamped to 2..4; ops naming a cache that no longer exists are dropped, and so is a chosen delivery order
    // (its message numbers described the old run): the remaining ops run to quiescence again.
    void setCaches(int caches);
    int caches() const { return m_caches; }

    // "P0:R,P1:W" (or with deliveries, "P0:R,D:0"); false when core rejects the text (errorText() carries core's
    // message, ops unchanged).
    bool setOps(const QString& opsText);
    // Everything at once, one re-run: what a lesson does.
    bool load(const QString& protocolName, int caches, const QString& opsText);
    QString opsText() const;
    int opCount() const { return static_cast<int>(m_ops.size()); }
    // True when the protocol defines `op` for the cache's state at the end of the run and the run is healthy.
    bool canIssue(int cache, core::coherence::ProcessorOp op) const;
    // Appends the op and moves to the last step, so the learner sees its whole transaction (or, delivering by
    // hand, the op's issue with its messages in flight).
    void appendOp(int cache, core::coherence::ProcessorOp op);
    void reset();

    // When on, an op only issues: its messages stay in flight until the learner delivers them (deliver()).
    void setDeliverByHand(bool byHand);
    bool deliverByHand() const { return m_byHand; }
    // The run names its delivery order (the learner chose one, or the ops contain D:<i>).
    bool isManual() const { return m_delivery == core::coherence::LabDelivery::Manual; }
    // The messages in flight after the current step, with what the network and the receiver allow (core's rule).
    const std::vector<core::coherence::InFlightMessage>& inFlight() const;
    // Delivers in-flight message `index` right after the current step; steps after it are replaced by that
    // delivery. False (nothing changes) when the message cannot be delivered now or a counterexample is shown.
    bool deliver(int index);
    // Delivers everything after the current step, oldest deliverable first, replacing the later steps.
    bool deliverAll();
    // Steps a delivery at the current step would replace.
    int laterSteps() const { return stepCount() - m_current; }

    // Shows a checker counterexample instead of a lab run; ops are frozen until the next setOps/reset/load.
    void showTrace(const std::vector<core::coherence::StepRecord>& trace, const QString& description);
    bool isTrace() const { return m_trace; }

    const core::coherence::LabRun& run() const { return m_run; }
    int stepCount() const { return static_cast<int>(m_run.steps.size()); }
    // 0 is the initial state; 1..stepCount() are the run's steps.
    int currentStep() const { return m_current; }
    void setCurrentStep(int step);
    void first() { setCurrentStep(0); }
    void back() { setCurrentStep(m_current - 1); }
    void forward() { setCurrentStep(m_current + 1); }
    void last() { setCurrentStep(stepCount()); }

    const core::coherence::StepRecord& step(int index) const;
    const core::coherence::StepRecord& current() const { return step(m_current); }
    // The step before the current one (the current one itself at step 0): what changed is current vs previous.
    const core::coherence::StepRecord& previous() const { return step(m_current > 0 ? m_current - 1 : 0); }

    // Core's text for a rejected input or for what stopped the run (a violation); empty when all is well.
    QString errorText() const;
    // True when errorText() is a rejected input rather than what stopped the run.
    bool hasInputError() const { return !m_inputError.isEmpty(); }

  signals:
    void changed();

  private:
    void rerun(int current);
    // The run so far, up to the current step, as an explicit script with deliveries by index; manual from now on.
    void takeScriptUpToCurrent();

    const core::coherence::Protocol* m_protocol;
    int m_caches = 3;
    std::vector<core::coherence::LabOp> m_ops;
    core::coherence::LabDelivery m_delivery = core::coherence::LabDelivery::Auto;
    bool m_byHand = false;
    core::coherence::LabRun m_run;
    core::coherence::StepRecord m_initial;
    int m_current = 0;
    bool m_trace = false;
    QString m_inputError;
};

} // namespace coh::ui
