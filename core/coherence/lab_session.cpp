#include "core/coherence/lab_session.h"

#include "core/coherence/protocol_registry.h"
#include "core/coherence/protocol_table.h"
#include "core/coherence/step_render.h"

#include <fmt/format.h>

namespace coh::core::coherence {

namespace {

constexpr int kMaxStepsPerOp = 10000; // far beyond any transaction; stops a livelocking table

std::vector<InFlightMessage> inFlightOf(const BlockSystem& system)
{
    std::vector<InFlightMessage> out;
    for (int i = 0; i < system.messageCount(); ++i)
        out.push_back({i, viewMessage(system, system.message(i)), system.deliverable(i),
                       system.resolveMessage(i).status == StepStatus::Stalled});
    return out;
}

// Why `D:<i>` cannot be delivered now, or empty when it can.
std::string refusal(const BlockSystem& system, int i)
{
    const int n = system.messageCount();
    if (i >= n)
        return n == 0 ? fmt::format("no message {} in flight: nothing is in flight", i)
                      : fmt::format("no message {} in flight: {} in flight, D:0..D:{}", i, n, n - 1);
    const std::string what = messageToText(viewMessage(system, system.message(i)));
    if (!system.deliverable(i))
        return fmt::format("{} cannot arrive yet: an older message on its ordered channel must arrive first", what);
    if (system.resolveMessage(i).status == StepStatus::Stalled)
        return fmt::format("{} would wait at its receiver (the table stalls it in this state): deliver another first",
                           what);
    return {};
}

// The checker's words when messages are stuck, the lab's own when nothing is in flight at all.
std::string deadlockText(const BlockSystem& system)
{
    if (system.messageCount() == 0)
        return "deadlock: no message in flight but a controller is still in a transient state";
    return describeViolation(Violation::Deadlock, system, nullptr);
}

std::string inFlightText(const std::vector<InFlightMessage>& messages)
{
    if (messages.empty())
        return "nothing";
    std::string out;
    for (const InFlightMessage& m : messages)
        out += fmt::format("{}D:{} {}{}", out.empty() ? "" : ", ", m.index, messageToText(m.message),
                           m.canDeliver() ? ""
                           : m.stalls     ? " (would wait)"
                                          : " (behind an older one)");
    return out;
}

} // namespace

LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText)
{
    return runLab(protocol, caches, ops, opsText, deliveryOf(ops));
}

LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText,
              LabDelivery delivery)
{
    LabRun run;
    run.protocol = protocol.name;
    run.caches = caches;
    run.ops = opsText;
    run.delivery = delivery;
    BlockSystem system(protocol, caches);
    Value version = 0;

    // Applies one move, records it and checks every invariant; false stops the run.
    auto step = [&](const Move& move) {
        const BlockSystem before = system;
        const StepResult result = system.apply(move);
        run.steps.push_back(recordStep(before, move, result, system, static_cast<int>(run.steps.size()) + 1));
        run.script.push_back(move.deliver ? LabOp::deliver(move.index) : LabOp{move.index, move.op});
        run.inFlight.push_back(inFlightOf(system));
        if (move.deliver)
            ++run.messages;
        if (result.stored)
            version = result.value;
        Violation v = checkStep(result);
        if (v == Violation::None)
            v = checkState(system);
        // A manual run may pause with messages in flight; it is stuck only when nothing can ever move again.
        if (v == Violation::None && delivery == LabDelivery::Manual && isDeadlocked(system))
            v = Violation::Deadlock;
        if (v != Violation::None) {
            run.violation = v;
            run.error = v == Violation::Deadlock ? deadlockText(system) : describeViolation(v, system, &result);
        }
        return v == Violation::None;
    };
    auto deliver = [&](int i) {
        return step({true, static_cast<std::uint8_t>(i), ProcessorOp::Load, static_cast<Value>(version + 1)});
    };
    // Every message, oldest deliverable first, until nothing is in flight; false stops the run.
    auto drain = [&] {
        for (int n = 0; system.messageCount() > 0; ++n) {
            int next = -1;
            for (int i = 0; i < system.messageCount() && next < 0; ++i)
                if (system.canDeliver(i))
                    next = i;
            if (next < 0 || n == kMaxStepsPerOp) {
                run.violation = Violation::Deadlock;
                run.error = deadlockText(system);
                return false;
            }
            if (!deliver(next))
                return false;
        }
        if (system.anyTransient()) {
            run.violation = Violation::Deadlock;
            run.error = deadlockText(system);
            return false;
        }
        return true;
    };

    for (const LabOp& op : ops) {
        if (op.kind == LabOp::Kind::DeliverAll) {
            if (!drain())
                return run;
            continue;
        }
        if (op.kind == LabOp::Kind::Deliver) {
            if (const std::string why = refusal(system, op.message); !why.empty()) {
                run.error = fmt::format("D:{}: {}", op.message, why);
                return run;
            }
            if (!deliver(op.message))
                return run;
            continue;
        }
        const Resolution r = system.resolveOp(op.cache, op.op);
        if (r.status == StepStatus::Stalled) {
            // Auto: only after an op that never completed, which drain() already reports. Manual: the cache is
            // still in the middle of a transaction.
            run.error =
                fmt::format("{} cannot issue {} in state {}", nodeName(protocol, static_cast<std::uint8_t>(op.cache)),
                            processorOpName(op.op), protocol.cache.states[system.line(op.cache).state].name);
            return run;
        }
        if (!step({false, static_cast<std::uint8_t>(op.cache), op.op, static_cast<Value>(version + 1)}))
            return run;
        if (delivery == LabDelivery::Auto && !drain())
            return run;
    }
    return run;
}

nlohmann::ordered_json labToJson(const LabRun& run)
{
    nlohmann::ordered_json j;
    j["protocol"] = run.protocol;
    j["caches"] = run.caches;
    j["ops"] = run.ops;
    j["steps"] = nlohmann::ordered_json::array();
    for (const StepRecord& s : run.steps)
        j["steps"].push_back(stepToJson(s));
    j["messages_delivered"] = run.messages;
    // Only a manual run can end with messages in flight; they carry the index `D:<i>` would deliver.
    if (run.delivery == LabDelivery::Manual) {
        j["delivery"] = "manual";
        j["in_flight"] = nlohmann::ordered_json::array();
        for (const InFlightMessage& m : run.inFlight.back()) {
            nlohmann::ordered_json item = messageToJson(m.message);
            item["index"] = m.index;
            item["can_deliver"] = m.canDeliver();
            j["in_flight"].push_back(item);
        }
    }
    j["violation"] = run.violation == Violation::None ? nlohmann::ordered_json()
                                                      : nlohmann::ordered_json(violationName(run.violation));
    j["error"] = run.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(run.error);
    return j;
}

std::string labToText(const LabRun& run)
{
    std::string out = fmt::format("protocol {}, {} cache(s), ops {}\n", run.protocol, run.caches, run.ops);
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        const StepRecord& s = run.steps[i];
        if (s.message == std::nullopt)
            out += fmt::format("\n== {} ==\n", s.op);
        out += stepToText(s);
        // A manual run says what is in flight after every step: the numbers its next D:<i> can name.
        if (run.delivery == LabDelivery::Manual)
            out += "    flight: " + inFlightText(run.inFlight[i + 1]) + "\n";
    }
    // Bounded staleness checks a single writer and loads within the bound instead of SWMR and the latest value.
    std::string checks = "SWMR, data-value";
    for (const Protocol& p : allProtocols())
        if (p.name == run.protocol && p.consistency == Consistency::BoundedStaleness)
            checks = fmt::format("single writer, data-value (at most {} version(s) stale)", p.stalenessBound);
    const std::size_t waiting = run.inFlight.back().size();
    if (run.error.empty())
        out += fmt::format("\nok: {} steps, {} messages delivered{}; {} and no-lost-write held after every step\n",
                           run.steps.size(), run.messages,
                           waiting ? fmt::format(", {} still in flight", waiting) : std::string(), checks);
    else
        out += "\nerror: " + run.error + "\n";
    return out;
}

} // namespace coh::core::coherence
