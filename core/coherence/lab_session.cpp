#include "core/coherence/lab_session.h"

#include "core/coherence/protocol_registry.h"
#include "core/coherence/protocol_table.h"
#include "core/coherence/step_render.h"
#include "core/scenario/input_error.h"

#include <fmt/format.h>

#include <cctype>

namespace coh::core::coherence {

namespace {

constexpr int kMaxStepsPerOp = 10000; // far beyond any transaction; stops a livelocking table

std::string trim(const std::string& s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return s.substr(b, e - b);
}

} // namespace

std::vector<LabOp> parseLabOps(const std::string& text, int caches)
{
    const std::string format = "write each op as P<cache>:<R|W|E> (R load, W store, E evict), separated by commas, "
                               "e.g. P0:R,P1:W,P0:E";
    std::vector<LabOp> ops;
    std::vector<InputProblem> problems;
    std::size_t start = 0;
    for (int item = 1; start <= text.size(); ++item) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string::npos)
            comma = text.size();
        const std::string op = trim(text.substr(start, comma - start));
        start = comma + 1;
        const std::string field = fmt::format("--ops item {} (\"{}\")", item, op);
        const std::size_t colon = op.find(':');
        if (op.size() < 4 || (op[0] != 'P' && op[0] != 'p') || colon == std::string::npos || colon + 2 != op.size()) {
            problems.push_back({"", field, "not an op", format});
            continue;
        }
        const std::string digits = op.substr(1, colon - 1);
        const bool numeric =
            !digits.empty() && digits.size() <= 3 && digits.find_first_not_of("0123456789") == std::string::npos;
        const int cache = numeric ? std::stoi(digits) : -1;
        if (!numeric || cache >= caches) {
            problems.push_back(
                {"", field,
                 fmt::format("cache P{} does not exist: there are {} cache(s), P0..P{}", digits, caches, caches - 1),
                 fmt::format("use P0..P{} or raise --caches", caches - 1)});
            continue;
        }
        const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(op[colon + 1])));
        if (letter != 'R' && letter != 'W' && letter != 'E') {
            problems.push_back(
                {"", field, fmt::format("unknown op '{}'", op[colon + 1]), "use R (load), W (store) or E (evict)"});
            continue;
        }
        ops.push_back({cache, letter == 'R'   ? ProcessorOp::Load
                              : letter == 'W' ? ProcessorOp::Store
                                              : ProcessorOp::Evict});
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
    return ops;
}

std::string defaultLabOps(int caches)
{
    // Read miss, upgrade, read of a dirty block, second reader, write with sharers, read of the new writer's
    // block, then evictions.
    const int p[] = {0, 0, 1, 2, 2, 0, 2, 0};
    const char op[] = {'R', 'W', 'R', 'R', 'W', 'R', 'E', 'E'};
    std::string s;
    for (int i = 0; i < 8; ++i)
        s += fmt::format("{}P{}:{}", i ? "," : "", p[i] % caches, op[i]);
    return s;
}

LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText)
{
    LabRun run;
    run.protocol = protocol.name;
    run.caches = caches;
    run.ops = opsText;
    BlockSystem system(protocol, caches);
    Value version = 0;

    // Applies one move, records it and checks every invariant; false stops the run.
    auto step = [&](const Move& move) {
        const BlockSystem before = system;
        const StepResult result = system.apply(move);
        run.steps.push_back(recordStep(before, move, result, system, static_cast<int>(run.steps.size()) + 1));
        if (result.stored)
            version = result.value;
        Violation v = checkStep(result);
        if (v == Violation::None)
            v = checkState(system);
        if (v != Violation::None) {
            run.violation = v;
            run.error = describeViolation(v, system, &result);
        }
        return v == Violation::None;
    };

    for (const LabOp& op : ops) {
        const Resolution r = system.resolveOp(op.cache, op.op);
        if (r.status == StepStatus::Stalled) {
            // Only possible when a previous op never completed, which the loop below already reports.
            run.error =
                fmt::format("{} cannot issue {} in state {}", nodeName(protocol, static_cast<std::uint8_t>(op.cache)),
                            processorOpName(op.op), protocol.cache.states[system.line(op.cache).state].name);
            return run;
        }
        if (!step({false, static_cast<std::uint8_t>(op.cache), op.op, static_cast<Value>(version + 1)}))
            return run;
        for (int n = 0; system.messageCount() > 0; ++n) {
            int next = -1;
            for (int i = 0; i < system.messageCount() && next < 0; ++i)
                if (system.deliverable(i) && system.resolveMessage(i).status != StepStatus::Stalled)
                    next = i;
            if (next < 0 || n == kMaxStepsPerOp) {
                run.violation = Violation::Deadlock;
                run.error = describeViolation(Violation::Deadlock, system, nullptr);
                return run;
            }
            ++run.messages;
            if (!step({true, static_cast<std::uint8_t>(next), ProcessorOp::Load, static_cast<Value>(version + 1)}))
                return run;
        }
        if (system.anyTransient()) {
            run.violation = Violation::Deadlock;
            run.error = "deadlock: no message in flight but a controller is still in a transient state";
            return run;
        }
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
    j["violation"] = run.violation == Violation::None ? nlohmann::ordered_json()
                                                      : nlohmann::ordered_json(violationName(run.violation));
    j["error"] = run.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(run.error);
    return j;
}

std::string labToText(const LabRun& run)
{
    std::string out = fmt::format("protocol {}, {} cache(s), ops {}\n", run.protocol, run.caches, run.ops);
    for (const StepRecord& s : run.steps) {
        if (s.message == std::nullopt)
            out += fmt::format("\n== {} ==\n", s.op);
        out += stepToText(s);
    }
    // Bounded staleness checks a single writer and loads within the bound instead of SWMR and the latest value.
    std::string checks = "SWMR, data-value";
    for (const Protocol& p : allProtocols())
        if (p.name == run.protocol && p.consistency == Consistency::BoundedStaleness)
            checks = fmt::format("single writer, data-value (at most {} version(s) stale)", p.stalenessBound);
    if (run.error.empty())
        out += fmt::format("\nok: {} steps, {} messages delivered; {} and no-lost-write held after every step\n",
                           run.steps.size(), run.messages, checks);
    else
        out += "\nerror: " + run.error + "\n";
    return out;
}

} // namespace coh::core::coherence
