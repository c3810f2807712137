#include "ui/lab_model.h"

#include "core/base/input_error.h"
#include "core/coherence/block_system.h"
#include "core/coherence/protocol_registry.h"
#include "ui/qt_text.h"

#include <algorithm>

namespace coh::ui {

namespace co = core::coherence;

LabModel::LabModel(QObject* parent)
    : QObject(parent)
    , m_protocol(&co::allProtocols().front())
{
    rerun(0);
}

bool LabModel::setProtocol(const QString& name)
{
    return load(name, m_caches, opsText());
}

QString LabModel::protocolName() const
{
    return toQString(m_protocol->name);
}

void LabModel::setCaches(int caches)
{
    caches = std::clamp(caches, kMinCaches, kMaxCaches);
    if (caches == m_caches && !m_trace)
        return;
    m_caches = caches;
    std::erase_if(m_ops,
                  [caches](const co::LabOp& op) { return op.kind != co::LabOp::Kind::Issue || op.cache >= caches; });
    m_delivery = co::LabDelivery::Auto;
    m_inputError.clear();
    rerun(stepCount() > 0 ? m_current : 0);
}

bool LabModel::setOps(const QString& opsText)
{
    return load(protocolName(), m_caches, opsText);
}

bool LabModel::load(const QString& protocolName, int caches, const QString& opsText)
{
    // Validate everything before changing anything, so a bad lesson or a typo leaves the lab as it was.
    try {
        const co::Protocol& protocol = co::findProtocol(toStdString(protocolName), "protocol");
        const int clamped = std::clamp(caches, kMinCaches, kMaxCaches);
        std::vector<co::LabOp> ops;
        if (!opsText.trimmed().isEmpty())
            ops = co::parseLabOps(toStdString(opsText), clamped);
        m_protocol = &protocol;
        m_caches = clamped;
        m_delivery = co::deliveryOf(ops);
        m_ops = std::move(ops);
    } catch (const core::InputError& e) {
        m_inputError = toQString(e.what());
        emit changed();
        return false;
    }
    m_inputError.clear();
    rerun(0);
    return true;
}

QString LabModel::opsText() const
{
    return toQString(co::labOpsText(m_ops));
}

bool LabModel::canIssue(int cache, co::ProcessorOp op) const
{
    if (m_trace || cache < 0 || cache >= m_caches || m_run.violation != co::Violation::None || !m_run.error.empty())
        return false;
    const co::StepRecord& end = step(stepCount());
    const co::ControllerTable& table = m_protocol->cache;
    const int state = table.findState(end.caches[static_cast<std::size_t>(cache)].state);
    if (state < 0)
        return false;
    const co::Trigger trigger{false, static_cast<std::uint8_t>(op)};
    const co::TriggerEvents events = table.byTrigger[static_cast<std::size_t>(trigger.slot())];
    for (int i = 0; i < events.count; ++i)
        if (table.at(state, table.eventOrder[static_cast<std::size_t>(events.first + i)]).kind == co::EntryKind::Fire)
            return true;
    return false;
}

void LabModel::appendOp(int cache, co::ProcessorOp op)
{
    if (!canIssue(cache, op))
        return;
    if (m_byHand || isManual()) {
        m_current = stepCount();
        takeScriptUpToCurrent();
    }
    m_ops.push_back({cache, op});
    // A manual run with the preference off still completes the learner's op, as an automatic run would.
    if (isManual() && !m_byHand)
        m_ops.push_back(co::LabOp::deliverAll());
    rerun(-1);
}

void LabModel::reset()
{
    m_ops.clear();
    m_delivery = co::LabDelivery::Auto;
    m_inputError.clear();
    rerun(0);
}

void LabModel::setDeliverByHand(bool byHand)
{
    if (byHand == m_byHand)
        return;
    m_byHand = byHand;
    emit changed();
}

const std::vector<co::InFlightMessage>& LabModel::inFlight() const
{
    static const std::vector<co::InFlightMessage> none;
    const auto step = static_cast<std::size_t>(m_current);
    return m_trace || step >= m_run.inFlight.size() ? none : m_run.inFlight[step];
}

bool LabModel::deliver(int index)
{
    const auto& flight = inFlight();
    const auto it =
        std::find_if(flight.begin(), flight.end(), [index](const co::InFlightMessage& m) { return m.index == index; });
    if (it == flight.end() || !it->canDeliver())
        return false;
    takeScriptUpToCurrent();
    m_ops.push_back(co::LabOp::deliver(index));
    rerun(-1);
    return true;
}

bool LabModel::deliverAll()
{
    if (inFlight().empty())
        return false;
    takeScriptUpToCurrent();
    m_ops.push_back(co::LabOp::deliverAll());
    rerun(-1);
    return true;
}

void LabModel::takeScriptUpToCurrent()
{
    m_ops.assign(m_run.script.begin(), m_run.script.begin() + std::min<std::ptrdiff_t>(m_current, m_run.script.size()));
    m_delivery = co::LabDelivery::Manual;
    m_inputError.clear();
}

void LabModel::showTrace(const std::vector<co::StepRecord>& trace, const QString& description)
{
    m_trace = true;
    m_inputError.clear();
    m_run = co::LabRun{};
    m_run.protocol = m_protocol->name;
    m_run.caches = m_caches;
    m_run.steps = trace;
    for (const co::StepRecord& s : trace)
        if (s.message)
            ++m_run.messages;
    m_run.error = toStdString(description);
    // The trace is indexed from 1 like a lab run, whatever the checker numbered it.
    for (std::size_t i = 0; i < m_run.steps.size(); ++i)
        m_run.steps[i].index = static_cast<int>(i) + 1;
    m_current = 0;
    emit changed();
}

void LabModel::setCurrentStep(int step)
{
    step = std::clamp(step, 0, stepCount());
    if (step == m_current)
        return;
    m_current = step;
    emit changed();
}

const co::StepRecord& LabModel::step(int index) const
{
    if (index <= 0 || m_run.steps.empty())
        return m_initial;
    return m_run.steps[static_cast<std::size_t>(std::min(index, stepCount()) - 1)];
}

QString LabModel::errorText() const
{
    if (!m_inputError.isEmpty())
        return m_inputError;
    return toQString(m_run.error);
}

void LabModel::rerun(int current)
{
    m_trace = false;
    m_run = co::runLab(*m_protocol, m_caches, m_ops, toStdString(opsText()), m_delivery);
    const co::BlockSystem initial(*m_protocol, m_caches);
    m_initial = co::StepRecord{};
    co::snapshot(initial, m_initial);
    m_initial.index = 0;
    m_initial.explanation =
        toStdString(tr("Every cache starts in %1 and the directory in %2 with memory %3; nothing is in flight.")
                        .arg(toQString(m_initial.caches.front().state), toQString(m_initial.directory.state))
                        .arg(m_initial.directory.memory));
    m_current = current < 0 ? stepCount() : std::clamp(current, 0, stepCount());
    emit changed();
}

} // namespace coh::ui
