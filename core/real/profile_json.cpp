#include "core/real/profile_json.h"

#include "core/net/step_size_buckets.h" // kLargestStepSizeBucket

#include "core/base/input_error.h"
#include "core/base/printable_text.h"
#include "core/scenario/json_reader.h" // closestName, readJsonFile

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

namespace coh::core::real {

namespace {

nlohmann::ordered_json copyRowsJson(const std::vector<CopyBenchRow>& rows)
{
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
        out.push_back(
            {{"bytes", r.bytes}, {"copy_ns", r.copyNs}, {"memcpy_ns", r.plainNs}, {"message_ns", r.messageNs}});
    return out;
}

nlohmann::ordered_json descriptorRowsJson(const std::vector<CopyBenchRow>& rows)
{
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
        out.push_back({{"bytes", r.bytes}, {"descriptors", r.descriptors}, {"copy_ns", r.copyNs}});
    return out;
}

} // namespace

nlohmann::ordered_json toJson(const HardwareProfile& p)
{
    const auto copies = copyRowsJson(p.copy.rows);
    const auto pieces = descriptorRowsJson(p.copy.descriptorRows);
    const auto rowsJson = [](const std::vector<AttentionBenchRow>& rows) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"context", r.context}, {"kv_bytes", r.kvBytes}, {"attention_ns", r.attentionNs}});
        return out;
    };
    const auto steps = rowsJson(p.attentionRows);
    const auto sequenceSteps = rowsJson(p.sequenceRows);
    nlohmann::ordered_json out = {{"profile", p.backend},
                                  {"host", p.host},
                                  {"cpu", p.cpu},
                                  {"cores", p.cores},
                                  {"copy",
                                   {{"latency_ns", p.copy.latencyNs},
                                    {"bandwidth_gbps", p.copy.bytesPerNs},
                                    {"message_overhead_ns", p.messageOverheadNs},
                                    {"descriptor_bytes", p.descriptorBytes},
                                    {"descriptor_ns", p.copy.descriptorNs},
                                    {"measured", copies},
                                    {"measured_in_descriptors", pieces}}},
                                  {"attention",
                                   {{"query_heads", p.attentionShape.queryHeads},
                                    {"kv_heads", p.attentionShape.kvHeads},
                                    {"head_dim", p.attentionShape.headDim},
                                    {"block_tokens", p.attentionShape.blockTokens},
                                    {"element_bytes", p.attentionElementBytes},
                                    {"sequence_bandwidth_gbps", p.attentionSequenceBytesPerNs},
                                    {"measured_one_sequence", sequenceSteps},
                                    {"step_ns", p.attentionStepNs},
                                    {"bandwidth_gbps", p.attentionBytesPerNs},
                                    {"measured", steps}}}};
    if (p.copiesCachesLeft)
        out["copy"]["caches_left"] = true;
    if (p.attentionWarmBytes > 0) {
        auto& attention = out["attention"];
        attention["warm_bytes"] = p.attentionWarmBytes;
        attention["warm_step_ns"] = p.attentionWarmStepNs;
        attention["warm_bandwidth_gbps"] = p.attentionWarmBytesPerNs;
        attention["measured_warm"] = rowsJson(p.warmRows);
    }
    if (!p.attentionCurve.empty()) {
        auto curve = nlohmann::ordered_json::array();
        for (const AttentionCurvePoint& point : p.attentionCurve)
            curve.push_back({{"bytes", point.bytes}, {"ns", point.ns}, {"in_cache", point.inCache}});
        out["attention"]["curve"] = std::move(curve);
    }
    if (!p.attentionAfterTraffic.empty()) {
        auto after = nlohmann::ordered_json::array();
        for (const TrafficFactorPoint& point : p.attentionAfterTraffic)
            after.push_back({{"from_bytes", point.fromBytes}, {"factor", point.factor}, {"steps", point.steps}});
        out["attention"]["after_traffic"] = std::move(after);
    }
    if (p.costsOfRun > 0)
        out["costs_of_run"] = p.costsOfRun;
    if (p.hostCopy.measured())
        out["host_copy"] = {{"latency_ns", p.hostCopy.latencyNs},
                            {"bandwidth_gbps", p.hostCopy.bytesPerNs},
                            {"descriptor_ns", p.hostCopy.descriptorNs},
                            {"measured", copyRowsJson(p.hostCopy.rows)},
                            {"measured_in_descriptors", descriptorRowsJson(p.hostCopy.descriptorRows)}};
    return out;
}

namespace {

// The keys a profile holds, per section ("" the top level), as toJson writes them. A key outside these is a typo
// (`bandwith_gbps`) or a hand edit that would otherwise be read as if it were not there.
void refuseUnknownKeys(const nlohmann::json& j, const std::string& file, const std::string& fix,
                       std::vector<InputProblem>& problems)
{
    static const std::vector<std::pair<const char*, std::vector<std::string>>> kKeys = {
        {"", {"profile", "host", "cpu", "cores", "copy", "attention", "host_copy", "costs_of_run"}},
        {"copy",
         {"latency_ns", "bandwidth_gbps", "message_overhead_ns", "descriptor_bytes", "descriptor_ns", "measured",
          "measured_in_descriptors", "caches_left"}},
        {"host_copy", {"latency_ns", "bandwidth_gbps", "descriptor_ns", "measured", "measured_in_descriptors"}},
        {"attention",
         {"query_heads", "kv_heads", "head_dim", "block_tokens", "element_bytes", "sequence_bandwidth_gbps",
          "measured_one_sequence", "step_ns", "bandwidth_gbps", "measured", "warm_bytes", "warm_step_ns",
          "warm_bandwidth_gbps", "measured_warm", "curve", "after_traffic"}},
    };
    for (const auto& [section, known] : kKeys) {
        const nlohmann::json* object = &j;
        if (*section) {
            const auto it = j.find(section);
            if (it == j.end() || !it->is_object())
                continue;
            object = &*it;
        }
        for (const auto& [key, value] : object->items()) {
            if (std::find(known.begin(), known.end(), key) != known.end())
                continue;
            const std::string field = *section ? fmt::format("/{}/{}", section, key) : "/" + key;
            if (const auto near = closestName(key, known))
                problems.push_back({file, field, fmt::format("unknown key '{}'; did you mean '{}'?", key, *near),
                                    fmt::format("rename it to \"{}\"", *near)});
            else
                problems.push_back({file, field, fmt::format("unknown key '{}'", key),
                                    fmt::format("remove it; keys allowed here: {}; or {}", joinNames(known), fix)});
        }
    }
}

// What a measured row's field holds: a whole count (1 to kMaxRowCount), a context (1 to a sequence's most tokens), a
// byte count that may be a fraction (a mean, up to kMaxRowCount), or a median time (0 to kMaxRowNs: a clock too
// coarse for the smallest copy reads 0).
// Amount: a whole number from 0 (a count that may be none); Factor: a finite number from 0.
enum class RowField { Count, Tokens, Bytes, Time, Flag, Amount, Factor };

// A section's rows of `key` (none where the profile has none), each an object of exactly `fields`. One problem per
// row at most. Returns the rows that passed.
std::vector<nlohmann::json> rowsFromJson(const nlohmann::json& j, const char* section, const char* key,
                                         std::initializer_list<std::pair<const char*, RowField>> fields,
                                         const std::string& file, std::vector<InputProblem>& problems)
{
    const std::string fix = "make the profile again with `cohsim calibrate -o FILE`";
    std::vector<nlohmann::json> out;
    const auto s = j.find(section);
    if (s == j.end() || !s->is_object() || !s->contains(key))
        return out;
    const nlohmann::json& rows = s->at(key);
    if (!rows.is_array()) {
        problems.push_back(
            {file, fmt::format("/{}/{}", section, key), "the profile has no list of measured rows here", fix});
        return out;
    }
    if (rows.size() > kMaxProfileRows) {
        problems.push_back({file, fmt::format("/{}/{}", section, key),
                            fmt::format("{} rows; a calibration measures at most {}", rows.size(), kMaxProfileRows),
                            fix});
        return out;
    }
    std::string names;
    for (const auto& field : fields) {
        if (!names.empty())
            names += ", ";
        names += field.first;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const nlohmann::json& row = rows[i];
        const std::string at = fmt::format("/{}/{}/{}", section, key, i);
        if (!row.is_object() || row.size() != fields.size()) {
            problems.push_back(
                {file, at, fmt::format("a row is an object of exactly {} fields: {}", fields.size(), names), fix});
            continue;
        }
        bool good = true;
        for (const auto& [name, kind] : fields) {
            const auto v = row.find(name);
            const double x = v != row.end() && v->is_number() ? v->get<double>() : -1;
            // An amount of traffic is a bucket's, up to the largest a run keeps.
            const double most = kind == RowField::Tokens   ? std::numeric_limits<std::uint32_t>::max()
                                : kind == RowField::Time   ? kMaxRowNs
                                : kind == RowField::Amount ? static_cast<double>(kLargestStepSizeBucket)
                                                           : static_cast<double>(kMaxRowCount);
            const bool whole = kind == RowField::Count || kind == RowField::Tokens || kind == RowField::Amount;
            const double least = kind == RowField::Amount ? 0 : 1;
            const bool ok = kind == RowField::Flag ? v != row.end() && v->is_boolean()
                                                   : (whole ? v != row.end() && v->is_number_integer() && x >= least
                                                      : kind == RowField::Bytes ? x > 0
                                                                                : std::isfinite(x) && x >= 0) &&
                                                         x <= most;
            if (!ok) {
                const char* what = kind == RowField::Flag     ? "true or false"
                                   : kind == RowField::Time   ? "measured time (ns)"
                                   : kind == RowField::Tokens ? "context (tokens)"
                                   : kind == RowField::Count  ? "count"
                                   : kind == RowField::Amount ? "byte count"
                                   : kind == RowField::Factor ? "factor"
                                                              : "byte count";
                const bool fromZero = kind == RowField::Time || kind == RowField::Amount || kind == RowField::Factor;
                problems.push_back({file, fmt::format("{}/{}", at, name),
                                    kind == RowField::Flag ? fmt::format("the row has no {} here", what)
                                                           : fmt::format("the row has no {} here ({} to {:g})", what,
                                                                         fromZero ? 0 : 1, most),
                                    fix});
                good = false;
                break;
            }
        }
        if (good)
            out.push_back(row);
    }
    return out;
}

std::vector<CopyBenchRow> copyRowsFromJson(const nlohmann::json& j, const char* section, const std::string& file,
                                           std::vector<InputProblem>& problems)
{
    std::vector<CopyBenchRow> out;
    for (const nlohmann::json& r : rowsFromJson(j, section, "measured",
                                                {{"bytes", RowField::Count},
                                                 {"copy_ns", RowField::Time},
                                                 {"memcpy_ns", RowField::Time},
                                                 {"message_ns", RowField::Time}},
                                                file, problems))
        out.push_back({.bytes = r["bytes"].get<std::size_t>(),
                       .plainNs = r["memcpy_ns"].get<double>(),
                       .copyNs = r["copy_ns"].get<double>(),
                       .messageNs = r["message_ns"].get<double>()});
    return out;
}

std::vector<CopyBenchRow> descriptorRowsFromJson(const nlohmann::json& j, const char* section, const std::string& file,
                                                 std::vector<InputProblem>& problems)
{
    std::vector<CopyBenchRow> out;
    for (const nlohmann::json& r :
         rowsFromJson(j, section, "measured_in_descriptors",
                      {{"bytes", RowField::Count}, {"descriptors", RowField::Count}, {"copy_ns", RowField::Time}}, file,
                      problems))
        out.push_back({.bytes = r["bytes"].get<std::size_t>(),
                       .copyNs = r["copy_ns"].get<double>(),
                       .descriptors = r["descriptors"].get<std::size_t>()});
    return out;
}

std::vector<AttentionBenchRow> attentionRowsFromJson(const nlohmann::json& j, const char* key, const std::string& file,
                                                     std::vector<InputProblem>& problems)
{
    std::vector<AttentionBenchRow> out;
    for (const nlohmann::json& r :
         rowsFromJson(j, "attention", key,
                      {{"context", RowField::Tokens}, {"kv_bytes", RowField::Bytes}, {"attention_ns", RowField::Time}},
                      file, problems))
        out.push_back({.context = r["context"].get<std::uint32_t>(),
                       .kvBytes = r["kv_bytes"].get<double>(),
                       .attentionNs = r["attention_ns"].get<double>()});
    return out;
}

// A run's own list `key` of attention (its curve, its factors after traffic): each row a point (`make`), each checked
// after the one before it (`problemOf`), the first out of place ending the list, since every one after it is out of
// place too. No calibration makes these, so every problem's fix is `fix`: the run's own costs again, or none.
template <class Point, class Make, class ProblemOf>
std::vector<Point> runsOwnPoints(const nlohmann::json& j, const char* key,
                                 std::initializer_list<std::pair<const char*, RowField>> fields, Make make,
                                 ProblemOf problemOf, const std::string& file, const std::string& fix,
                                 std::vector<InputProblem>& problems)
{
    std::vector<Point> points;
    std::vector<InputProblem> found;
    for (const nlohmann::json& r : rowsFromJson(j, "attention", key, fields, file, found)) {
        const Point point = make(r);
        if (const auto problem = problemOf(point, points.empty() ? nullptr : &points.back())) {
            found.push_back({file, fmt::format("/attention/{}", key), *problem, fix});
            break;
        }
        points.push_back(point);
    }
    for (InputProblem& problem : found) {
        problem.fix = fix;
        problems.push_back(std::move(problem));
    }
    return points;
}

} // namespace

HardwareProfile profileFromJson(const nlohmann::json& j, const std::string& file)
{
    if (!j.is_object())
        throw InputError(file, "", "a hardware profile is a JSON object", "make it with `cohsim calibrate -o FILE`");
    // A scenario given where a profile goes would be refused field by field, none of which says what is wrong.
    if (!j.contains("copy") && !j.contains("attention") && (j.contains("topology") || j.contains("workload")))
        throw InputError(file, "", "this is a scenario, not a hardware profile",
                         "give --profile the file `cohsim calibrate -o FILE` wrote, and the scenario as the argument");
    std::vector<InputProblem> problems;
    const std::string fix = "make the profile again with `cohsim calibrate -o FILE`";
    const auto member = [&](const char* section, const char* key) -> const nlohmann::json* {
        const auto s = j.find(section);
        if (s == j.end() || !s->is_object())
            return nullptr;
        const auto v = s->find(key);
        return v == s->end() ? nullptr : &*v;
    };
    // A figure: a number in [lo, hi], both within what a memory or a copy engine measures. A time past `hi` or a
    // bandwidth outside its range is no measurement of this machine, and would carry the simulator's clock past
    // its end (or leave a run with nothing to do for years of simulated time).
    // None, with the problem recorded, when it is missing or out of range (the profile is then refused below, so the
    // fields take 0).
    const auto inRange = [&](const char* section, const char* key, double lo, double hi,
                             const char* what) -> std::optional<double> {
        const std::string field = fmt::format("/{}/{}", section, key);
        const nlohmann::json* v = member(section, key);
        if (!v || !v->is_number()) {
            problems.push_back({file, field, "the profile has no number here", fix});
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (!std::isfinite(x) || x < lo || x > hi) {
            problems.push_back({file, field, fmt::format("{:g} is not {} ({:g} to {:g})", x, what, lo, hi), fix});
            return std::nullopt;
        }
        return x;
    };
    const auto time = [&](const char* section, const char* key) {
        return inRange(section, key, 0, kMaxProfileNs, "a time a copy or a step takes, in ns");
    };
    const auto bandwidth = [&](const char* section, const char* key) {
        return inRange(section, key, kMinProfileGBps, kMaxProfileGBps, "a bandwidth in GB/s");
    };
    // A count of the attention shape: a positive integer.
    const auto count = [&](const char* key) {
        const nlohmann::json* v = member("attention", key);
        if (!v || !v->is_number_unsigned() || v->get<std::uint64_t>() == 0 || v->get<std::uint64_t>() > 1u << 20) {
            problems.push_back(
                {file, fmt::format("/attention/{}", key), "the profile has no positive count here", fix});
            return 1u;
        }
        return static_cast<unsigned>(v->get<std::uint64_t>());
    };
    // The machine's names are shown with the profile: a name, or none.
    const auto text = [&](const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null())
            return std::string();
        // Printed with every run simulated on the profile: a control character would break its line or recolour
        // the terminal.
        const auto control = [](const std::string& t) {
            return std::any_of(t.begin(), t.end(), [](char c) { return isControl(static_cast<unsigned char>(c)); });
        };
        if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxProfileNameBytes ||
            control(it->get_ref<const std::string&>())) {
            problems.push_back({file, fmt::format("/{}", key),
                                fmt::format("the profile has no name here (text of up to {} bytes, no control "
                                            "characters)",
                                            kMaxProfileNameBytes),
                                fix});
            return std::string();
        }
        return it->get<std::string>();
    };
    HardwareProfile p;
    // Profiles made before real-cuda name no backend: they are real-cpu's.
    if (const auto it = j.find("profile"); it != j.end()) {
        if (it->is_string() && (*it == "real-cpu" || *it == "real-cuda"))
            p.backend = it->get<std::string>();
        else
            problems.push_back({file, "/profile", "a profile is of \"real-cpu\" or \"real-cuda\"", fix});
    }
    p.attentionElementBytes = p.backend == "real-cuda" ? 2 : 4;
    if (const nlohmann::json* v = member("attention", "element_bytes")) {
        if (v->is_number() && (v->get<double>() == 2 || v->get<double>() == 4))
            p.attentionElementBytes = v->get<double>();
        else
            problems.push_back(
                {file, "/attention/element_bytes", "K and V elements are of 2 (fp16) or 4 (fp32) bytes", fix});
    }
    p.host = text("host");
    p.cpu = text("cpu");
    // The cores are informative (no figure of the simulator's), but shown as the machine's: a count, or 0 for not
    // known.
    if (const auto it = j.find("cores"); it != j.end()) {
        if (it->is_number_unsigned() && it->get<std::uint64_t>() <= kMaxProfileCores)
            p.cores = static_cast<unsigned>(it->get<std::uint64_t>());
        else
            problems.push_back({file, "/cores",
                                fmt::format("the profile has no count of cores here (0 to {})", kMaxProfileCores),
                                fix});
    }
    // The stored run whose costs these are: a run's id, shown with the profile (none: measured by a calibration).
    if (const auto it = j.find("costs_of_run"); it != j.end()) {
        if (it->is_number_unsigned() && it->get<std::uint64_t>() > 0 &&
            it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            p.costsOfRun = it->get<std::uint64_t>();
        else
            problems.push_back({file, "/costs_of_run",
                                "the profile names no stored run here (a run's id, a positive whole number)",
                                "write the id `cohsim runs list` shows, or remove costs_of_run for a profile a "
                                "calibration measured"});
    }
    // A control message's hand-over is shown as a measured time: an absurd one is no measurement. Profiles written
    // before it was clamped at 0 may hold a small negative (two medians' noise): that reads as 0.
    if (const nlohmann::json* v = member("copy", "message_overhead_ns")) {
        if (v->is_number() && std::isfinite(v->get<double>()) && std::abs(v->get<double>()) <= kMaxProfileNs)
            p.messageOverheadNs = std::max(0.0, v->get<double>());
        else
            problems.push_back({file, "/copy/message_overhead_ns",
                                fmt::format("the profile has no time here ({:g} to {:g} ns)", 0.0, kMaxProfileNs),
                                fix});
    }
    // How the copies were measured (a profile made before says nothing: not so).
    if (const nlohmann::json* v = member("copy", "caches_left")) {
        if (v->is_boolean())
            p.copiesCachesLeft = v->get<bool>();
        else
            problems.push_back({file, "/copy/caches_left",
                                "true where the copies were measured after other memory filled the copying threads' "
                                "caches, false or absent where not",
                                fix});
    }
    // The descriptor size is the profile's; the descriptor cost came later: a profile without it copies whole.
    const bool descriptors = member("copy", "descriptor_bytes") != nullptr;
    if (descriptors) {
        const nlohmann::json* d = member("copy", "descriptor_bytes");
        if (d->is_number_integer() && d->get<std::int64_t>() >= 0 &&
            static_cast<std::uint64_t>(d->get<std::int64_t>()) <= kMaxDescriptorBytes)
            p.descriptorBytes = static_cast<std::size_t>(d->get<std::int64_t>());
        else
            problems.push_back({file, "/copy/descriptor_bytes",
                                fmt::format("the profile has no byte count here (0 to {})", kMaxDescriptorBytes), fix});
    }
    // A copy path's figures, read alike for every path: its fit and descriptor cost, which must leave its copies a
    // bandwidth (when both were figures).
    // `descriptorCost`: the path must have one (the host path always does; the copies' came later, with the size).
    const auto readPath = [&](const char* section, CopyPathFit& path, bool descriptorCost) {
        path.latencyNs = time(section, "latency_ns").value_or(0);
        const auto pathBandwidth = bandwidth(section, "bandwidth_gbps");
        path.bytesPerNs = pathBandwidth.value_or(0);
        if (!descriptorCost)
            return;
        const auto descriptorNs = time(section, "descriptor_ns");
        path.descriptorNs = descriptorNs.value_or(0);
        if (pathBandwidth && descriptorNs && p.descriptorBytes > 0 &&
            path.effectiveBytesPerNs(p.descriptorBytes) < kMinProfileGBps)
            problems.push_back({file, fmt::format("/{}/descriptor_ns", section),
                                fmt::format("{:g} ns per descriptor of {} B leaves copies at {:.3g} GB/s, below {:g} "
                                            "GB/s",
                                            path.descriptorNs, p.descriptorBytes,
                                            path.effectiveBytesPerNs(p.descriptorBytes), kMinProfileGBps),
                                fix});
    };
    readPath("copy", p.copy, descriptors);
    // The host path (real-cuda's copies to and from pinned host memory), where the profile has one.
    if (j.contains("host_copy")) {
        readPath("host_copy", p.hostCopy, true);
        if (p.backend != "real-cuda")
            problems.push_back({file, "/host_copy",
                                "only a real-cuda profile has a host path: on real-cpu every memory is the host's",
                                fix});
    }
    p.attentionStepNs = time("attention", "step_ns").value_or(0);
    // 0: none measured (real-cpu, one thread).
    if (const nlohmann::json* v = member("attention", "sequence_bandwidth_gbps"); v && !(v->is_number() && *v == 0))
        p.attentionSequenceBytesPerNs = bandwidth("attention", "sequence_bandwidth_gbps").value_or(0);
    p.attentionBytesPerNs = bandwidth("attention", "bandwidth_gbps").value_or(0);
    // Warm steps came later: a profile without them costs every step on the line above.
    if (const nlohmann::json* v = member("attention", "warm_bytes"); v && !(v->is_number() && *v == 0)) {
        if (v->is_number_unsigned() && v->get<std::uint64_t>() <= kMaxWarmBytes)
            p.attentionWarmBytes = static_cast<std::size_t>(v->get<std::uint64_t>());
        else
            problems.push_back({file, "/attention/warm_bytes",
                                fmt::format("the profile has no cache size here (0 to {} bytes)", kMaxWarmBytes), fix});
        p.attentionWarmStepNs = time("attention", "warm_step_ns").value_or(0);
        p.attentionWarmBytesPerNs = bandwidth("attention", "warm_bandwidth_gbps").value_or(0);
        if (p.backend != "real-cpu")
            problems.push_back({file, "/attention/warm_bytes",
                                "only a real-cpu profile has warm steps: a GPU's cache is not modelled", fix});
    }
    // The rows each fit was made from, shown with the profile and kept with it: what a hand edit left of them is
    // checked as the figures are.
    p.copy.rows = copyRowsFromJson(j, "copy", file, problems);
    p.copy.descriptorRows = descriptorRowsFromJson(j, "copy", file, problems);
    p.hostCopy.rows = copyRowsFromJson(j, "host_copy", file, problems);
    p.hostCopy.descriptorRows = descriptorRowsFromJson(j, "host_copy", file, problems);
    p.attentionRows = attentionRowsFromJson(j, "measured", file, problems);
    p.sequenceRows = attentionRowsFromJson(j, "measured_one_sequence", file, problems);
    p.warmRows = attentionRowsFromJson(j, "measured_warm", file, problems);
    // Warm rows are a warm line's: without one (a real-cuda profile, or none measured) they would be read and then
    // dropped when the profile is written again.
    if (!p.warmRows.empty() && p.attentionWarmBytes == 0)
        problems.push_back(
            {file, "/attention/measured_warm",
             "rows of warm steps, and no warm line (warm_bytes, warm_bandwidth_gbps) they were fitted to", fix});
    // A run's own curve (ownCostProfile), as compare-real prints its own costs: each point a size's mean bytes and a
    // layer's time there, in order of bytes, each a bandwidth a memory gives, on its side of the cache. It is no
    // calibration's, so the fix is the run's own costs again or none.
    const std::string curveFix = "take own_costs_profiles from `cohsim compare-real --json` again, or remove "
                                 "attention.curve to cost attention on the lines";
    p.attentionCurve = runsOwnPoints<AttentionCurvePoint>(
        j, "curve", {{"bytes", RowField::Bytes}, {"ns", RowField::Time}, {"in_cache", RowField::Flag}},
        [](const nlohmann::json& r) {
            return AttentionCurvePoint{r["bytes"].get<double>(), r["ns"].get<double>(), r["in_cache"].get<bool>()};
        },
        [&](const AttentionCurvePoint& point, const AttentionCurvePoint* before) {
            return curvePointProblem(point, before, p.attentionWarmBytes);
        },
        file, curveFix, problems);
    // Its steps' factor after each amount of other traffic (ownAttention), in order of the amount.
    const std::string trafficFix = "take own_costs_profiles from `cohsim compare-real --json` again, or remove "
                                   "attention.after_traffic to cost every step as if nothing had moved before it";
    p.attentionAfterTraffic = runsOwnPoints<TrafficFactorPoint>(
        j, "after_traffic",
        {{"from_bytes", RowField::Amount}, {"factor", RowField::Factor}, {"steps", RowField::Count}},
        [](const nlohmann::json& r) {
            return TrafficFactorPoint{r["from_bytes"].get<std::uint64_t>(), r["factor"].get<double>(),
                                      r["steps"].get<std::uint64_t>()};
        },
        [](const TrafficFactorPoint& point, const TrafficFactorPoint* before) {
            return trafficPointProblem(point, before);
        },
        file, trafficFix, problems);
    refuseUnknownKeys(j, file, fix, problems);
    p.attentionShape.queryHeads = count("query_heads");
    p.attentionShape.kvHeads = count("kv_heads");
    p.attentionShape.headDim = count("head_dim");
    p.attentionShape.blockTokens = count("block_tokens");
    if (!problems.empty())
        throw InputError(std::move(problems));
    return p;
}

HardwareProfile readProfile(const std::string& path)
{
    nlohmann::json j;
    try {
        j = readJsonFile(path);
    } catch (const InputError& e) {
        std::vector<InputProblem> problems = e.problems();
        for (InputProblem& p : problems)
            if (p.field.empty())
                p.fix = "give the profile `cohsim calibrate -o FILE` wrote (a JSON object of a few KiB)";
        throw InputError(std::move(problems));
    }
    return profileFromJson(j, path);
}

} // namespace coh::core::real
