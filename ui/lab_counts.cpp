#include "ui/lab_counts.h"

#include "ui/qt_text.h"

#include <array>

namespace coh::ui {

namespace co = core::coherence;

namespace {

// Key of each role's count, in MessageRole order.
constexpr std::array<const char*, co::kMessageRoles> kRoleKeys = {
    "requests",   "forwards",   "invalidations", "acks",   "data_messages",
    "writebacks", "bias_flips", "migrations",    "leases", "other_messages",
};

bool readable(const co::Protocol& p, const std::string& state)
{
    const int s = p.cache.findState(state);
    return s >= 0 && p.cache.states[static_cast<std::size_t>(s)].permission != co::Permission::None;
}

} // namespace

QMap<QString, QString> labCounts(const co::Protocol& protocol, const co::LabRun& run)
{
    std::array<int, co::kMessageRoles> roles{};
    int sent = 0, dataToMemory = 0, memoryWrites = 0, ops = 0, silentOps = 0, staleSteps = 0, firstStale = 0;
    co::Value memory = 0, latest = 0;
    for (const co::StepRecord& step : run.steps) {
        if (!step.op.empty()) {
            ++ops;
            if (step.sent.empty())
                ++silentOps;
        }
        for (const co::MessageView& m : step.sent) {
            ++sent;
            const int type = protocol.findMessage(m.kind);
            if (type >= 0)
                ++roles[static_cast<std::size_t>(protocol.messages[static_cast<std::size_t>(type)].role)];
            if (m.to == co::homeName(protocol.home) && m.data)
                ++dataToMemory;
        }
        if (step.directory.memory != memory)
            ++memoryWrites;
        memory = step.directory.memory;
        if (step.stored)
            latest = *step.stored;
        // A readable copy holding an older version than the last store: the window a stale read could hit.
        bool stale = false;
        for (const co::CacheView& c : step.caches)
            stale = stale || (c.data && *c.data != latest && readable(protocol, c.state));
        if (stale) {
            ++staleSteps;
            if (firstStale == 0)
                firstStale = step.index;
        }
    }
    QMap<QString, QString> values;
    values[QStringLiteral("protocol")] = toQString(run.protocol);
    values[QStringLiteral("violation")] = toQString(co::violationName(run.violation));
    values[QStringLiteral("caches")] = QString::number(run.caches);
    values[QStringLiteral("staleness_bound")] = QString::number(protocol.stalenessBound);
    values[QStringLiteral("steps")] = QString::number(run.steps.size());
    values[QStringLiteral("ops")] = QString::number(ops);
    values[QStringLiteral("messages")] = QString::number(run.messages);
    values[QStringLiteral("messages_sent")] = QString::number(sent);
    values[QStringLiteral("data_to_memory")] = QString::number(dataToMemory);
    values[QStringLiteral("memory_writes")] = QString::number(memoryWrites);
    values[QStringLiteral("silent_ops")] = QString::number(silentOps);
    values[QStringLiteral("stale_steps")] = QString::number(staleSteps);
    values[QStringLiteral("first_stale_step")] = QString::number(firstStale);
    for (std::size_t r = 0; r < kRoleKeys.size(); ++r)
        values[QLatin1String(kRoleKeys[r])] = QString::number(roles[r]);
    return values;
}

QMap<QString, QString> lessonValues(const co::Protocol& protocol, const co::LabRun& run,
                                    const co::Protocol* compareProtocol, const co::LabRun* compare)
{
    QMap<QString, QString> values = labCounts(protocol, run);
    if (!compare || !compareProtocol)
        return values;
    const QMap<QString, QString> other = labCounts(*compareProtocol, *compare);
    for (auto it = other.cbegin(); it != other.cend(); ++it) {
        values[QStringLiteral("compare_") + it.key()] = it.value();
        bool okA = false, okB = false;
        const int a = values.value(it.key()).toInt(&okA);
        const int b = it.value().toInt(&okB);
        if (okA && okB) {
            values[QStringLiteral("saved_") + it.key()] = QString::number(b - a);
            values[QStringLiteral("extra_") + it.key()] = QString::number(a - b);
        }
    }
    return values;
}

} // namespace coh::ui
