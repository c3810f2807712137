// The lab's script grammar: "P0:R,P1:W,D:1,D:*", parsed with every bad item named, and printed back.
#include "core/base/input_error.h"
#include "core/coherence/lab_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace coh::core::coherence {

namespace {

std::string trim(const std::string& s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return s.substr(b, e - b);
}

bool isNumber(const std::string& digits)
{
    return !digits.empty() && digits.size() <= 3 && digits.find_first_not_of("0123456789") == std::string::npos;
}

} // namespace

std::vector<LabOp> parseLabOps(const std::string& text, int caches)
{
    const std::string format = "write each op as P<cache>:<R|W|E> (R load, W store, E evict), or D:<i> to deliver "
                               "in-flight message i (D:* delivers them all), separated by commas, e.g. P0:R,P1:W,P0:E";
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
        if (op.size() >= 3 && (op[0] == 'D' || op[0] == 'd') && colon == 1) {
            const std::string what = op.substr(2);
            if (what == "*")
                ops.push_back(LabOp::deliverAll());
            else if (isNumber(what))
                ops.push_back(LabOp::deliver(std::stoi(what)));
            else
                problems.push_back({"", field, "not a delivery",
                                    "write D:<i> with i the in-flight message's number (0 = the oldest), or D:*"});
            continue;
        }
        if (op.size() < 4 || (op[0] != 'P' && op[0] != 'p') || colon == std::string::npos || colon + 2 != op.size()) {
            problems.push_back({"", field, "not an op", format});
            continue;
        }
        const std::string digits = op.substr(1, colon - 1);
        const bool numeric = isNumber(digits);
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

std::string labOpText(const LabOp& op)
{
    switch (op.kind) {
    case LabOp::Kind::Issue:
        return opLabel(op.cache, op.op);
    case LabOp::Kind::Deliver:
        return fmt::format("D:{}", op.message);
    case LabOp::Kind::DeliverAll:
        return "D:*";
    }
    return {};
}

std::string labOpsText(const std::vector<LabOp>& ops)
{
    std::string s;
    for (const LabOp& op : ops) {
        if (!s.empty())
            s += ',';
        s += labOpText(op);
    }
    return s;
}

LabDelivery deliveryOf(const std::vector<LabOp>& ops)
{
    const bool names =
        std::any_of(ops.begin(), ops.end(), [](const LabOp& op) { return op.kind != LabOp::Kind::Issue; });
    return names ? LabDelivery::Manual : LabDelivery::Auto;
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

} // namespace coh::core::coherence
