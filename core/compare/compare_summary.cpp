#include "core/compare/compare_summary.h"

#include "core/compare/run_comparison.h"
#include "core/engine/ttft_parts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>

namespace coh::core {

namespace {

// A part of TTFT that moved by less is no cause worth naming: under the last digit Compare shows, as its cells judge.
const double kTtftPartFloorMs = displayStep(MetricUnit::Milliseconds) / 2;

// The latencies a reader asks about first: typical and tail TTFT and TPOT.
constexpr std::string_view kKeyLatencies[] = {"TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99"};

const MetricRow* rowOf(const RunComparison& c, std::string_view label)
{
    for (const auto& row : c.metrics)
        if (row.spec->label == label)
            return &row;
    return nullptr;
}

double valueOf(const RunComparison& c, std::string_view label, std::size_t run)
{
    const MetricRow* row = rowOf(c, label);
    return row ? row->values[run] : 0.0;
}

std::string percent(double fraction)
{
    const double p = 100.0 * std::fabs(fraction);
    return p >= 10 ? fmt::format("{:.0f}%", p) : fmt::format("{:.1f}%", p);
}

// "12× messages", "2.6× fewer data bytes", "+35% messages", "the same messages".
std::string factorPhrase(const char* what, double base, double value, const std::string& baseTitle)
{
    if (value == base)
        return fmt::format("the same {}", what);
    if (base == 0)
        return fmt::format("{:.0f} {} ({} sends none)", value, what, baseTitle);
    const double r = value / base;
    const auto times = [](double x) { return x >= 10 ? fmt::format("{:.0f}×", x) : fmt::format("{:.1f}×", x); };
    if (r >= 1.5)
        return fmt::format("{} {}", times(r), what);
    if (r > 0 && r <= 1 / 1.5)
        return fmt::format("{} fewer {}", times(1 / r), what);
    return fmt::format("{}{} {}", r > 1 ? "+" : "−", percent(r - 1), what);
}

std::string stalePercent(double percentOfReads)
{
    return fmt::format("{:.2g}%", percentOfReads);
}

std::string latencyPhrase(const RunComparison& c, std::size_t run)
{
    std::vector<std::string> moved;
    double tolerance = 0;
    for (std::string_view label : kKeyLatencies) {
        const MetricRow* row = rowOf(c, label);
        if (!row)
            continue;
        tolerance = row->spec->tolerance;
        if (row->verdicts[run] == Verdict::Same)
            continue;
        moved.push_back(
            fmt::format("{} {} {}", label, percent(row->relative[run]), row->delta[run] < 0 ? "lower" : "higher"));
    }
    const std::string within = fmt::format("{:g}%", 100 * tolerance);
    if (moved.empty())
        return fmt::format("the same TTFT and TPOT (p50 and p99 within {} or their noise)", within);
    std::string text;
    for (const auto& m : moved)
        text += (text.empty() ? "" : ", ") + m;
    if (moved.size() < std::size(kKeyLatencies))
        text += fmt::format(" (the other percentiles within {} or their noise)", within);
    return text;
}

std::string stalenessPhrase(const RunComparison& c, std::size_t run)
{
    if (!rowOf(c, "Stale block reads"))
        return {};
    const double stale = valueOf(c, "Stale block reads", run), base = valueOf(c, "Stale block reads", 0);
    const double waited = valueOf(c, "Reads that waited for the update", run);
    std::string text;
    if (stale > 0)
        text = fmt::format("{} stale reads", stalePercent(valueOf(c, "Stale reads (of block reads)", run)));
    else if (base > 0)
        text = fmt::format("no stale reads ({} has {})", c.titles[0],
                           stalePercent(valueOf(c, "Stale reads (of block reads)", 0)));
    if (waited > 0)
        text += fmt::format("{}{:.0f} reads waited for the update", text.empty() ? "" : ", ", waited);
    return text;
}

std::string failurePhrase(const RunComparison& c, std::size_t run)
{
    const double missing = valueOf(c, "Requests not completed", run);
    return missing > 0 ? fmt::format("{:.0f} requests did not complete", missing) : std::string();
}

std::string runSentence(const RunComparison& c, std::size_t run)
{
    std::string text = fmt::format("{} against {}: {}", c.titles[run], c.titles[0], latencyPhrase(c, run));
    text += "; " + factorPhrase("messages", valueOf(c, "Messages", 0), valueOf(c, "Messages", run), c.titles[0]);
    text += ", " + factorPhrase("data bytes", valueOf(c, "Data bytes", 0), valueOf(c, "Data bytes", run), c.titles[0]);
    for (const std::string& part : {stalenessPhrase(c, run), failurePhrase(c, run)})
        if (!part.empty())
            text += "; " + part;
    return text + ".";
}

// Whether run `i` is as fast as the fastest of `eligible` on every key latency (within its threshold).
bool amongTheFastest(const RunComparison& c, const std::vector<std::size_t>& eligible, std::size_t i)
{
    for (std::string_view label : kKeyLatencies) {
        const MetricRow* row = rowOf(c, label);
        if (!row)
            continue;
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t j : eligible)
            best = std::min(best, row->values[j]);
        if (row->values[i] > best && !aboutTheSame(*row->spec, best, row->values[i]))
            return false;
    }
    return true;
}

// The cheapest of `runs`: fewest data bytes, then fewest messages.
std::size_t cheapest(const RunComparison& c, const std::vector<std::size_t>& runs)
{
    return *std::min_element(runs.begin(), runs.end(), [&](std::size_t a, std::size_t b) {
        const double da = valueOf(c, "Data bytes", a), db = valueOf(c, "Data bytes", b);
        return da != db ? da < db : valueOf(c, "Messages", a) < valueOf(c, "Messages", b);
    });
}

bool fewest(const RunComparison& c, std::string_view label, const std::vector<std::size_t>& runs, std::size_t i)
{
    for (std::size_t j : runs)
        if (valueOf(c, label, j) < valueOf(c, label, i))
            return false;
    return true;
}

constexpr const char* kLeftOut = " Runs that did not complete every request are left out of this verdict.";

// No run is as fast as the best on every key latency: say which run leads which, and which is cheapest.
std::string tradeOffSentence(const RunComparison& c, const std::vector<std::size_t>& runs)
{
    std::string leads;
    for (std::string_view label : kKeyLatencies) {
        const MetricRow* row = rowOf(c, label);
        if (!row)
            continue;
        const std::size_t best = *std::min_element(
            runs.begin(), runs.end(), [&](std::size_t a, std::size_t b) { return row->values[a] < row->values[b]; });
        bool clear = true; // every other run is beyond the threshold
        for (std::size_t j : runs)
            clear = clear && (j == best || !aboutTheSame(*row->spec, row->values[best], row->values[j]));
        if (clear)
            leads += fmt::format("{}{}: {}", leads.empty() ? "" : "; ", label, c.titles[best]);
    }
    std::string text = "No run is the fastest on every latency";
    if (!leads.empty())
        text += fmt::format(" (lowest {})", leads);
    return text + fmt::format("; {} sends the fewest data bytes.", c.titles[cheapest(c, runs)]);
}

std::string verdictSentence(const RunComparison& c)
{
    const std::size_t n = c.titles.size();
    bool allSame = true;
    for (const auto& row : c.metrics)
        for (Verdict v : row.verdicts)
            allSame = allSame && (v == Verdict::Baseline || v == Verdict::Same ||
                                  std::string_view(row.spec->group) == kTtftPartsGroup); // TTFT's explanation
    if (allSame)
        return "The runs are about the same on every metric here.";

    // Runs that completed every request are the candidates when there are any: a run that dropped requests
    // reports latencies of the ones it kept.
    std::vector<std::size_t> all, eligible, fast;
    for (std::size_t i = 0; i < n; ++i) {
        all.push_back(i);
        if (valueOf(c, "Requests not completed", i) == 0)
            eligible.push_back(i);
    }
    if (eligible.empty())
        eligible = all;
    for (std::size_t i : eligible)
        if (amongTheFastest(c, eligible, i))
            fast.push_back(i);
    if (fast.empty())
        return tradeOffSentence(c, eligible) + (eligible.size() < n ? kLeftOut : "");
    const std::size_t pick = cheapest(c, fast);
    const bool staleFree = valueOf(c, "Stale block reads", pick) == 0;
    bool othersStale = false;
    for (std::size_t i : fast)
        othersStale = othersStale || (i != pick && valueOf(c, "Stale block reads", i) > 0);

    std::string text;
    if (fast.size() > 1) {
        const bool fewestMessages = fewest(c, "Messages", fast, pick);
        text = fmt::format("{} is the cheaper choice here: the same latency with the fewest {}", c.titles[pick],
                           fewestMessages ? "messages and data bytes" : "data bytes");
        if (!fewestMessages) {
            const std::size_t chatty = *std::min_element(fast.begin(), fast.end(), [&](std::size_t a, std::size_t b) {
                return valueOf(c, "Messages", a) < valueOf(c, "Messages", b);
            });
            text += fmt::format(" ({} sends fewer messages)", c.titles[chatty]);
        }
    } else {
        text = fmt::format("{} is the fastest here", c.titles[pick]);
        if (!staleFree)
            text += fmt::format(", though {} of its reads are stale",
                                stalePercent(valueOf(c, "Stale reads (of block reads)", pick)));
        const std::size_t thrifty = cheapest(c, eligible);
        if (thrifty == pick)
            text += " and the cheapest";
        else
            text += fmt::format(
                "; {} sends {}, {}", c.titles[thrifty],
                factorPhrase("messages", valueOf(c, "Messages", pick), valueOf(c, "Messages", thrifty), c.titles[pick]),
                factorPhrase("data bytes", valueOf(c, "Data bytes", pick), valueOf(c, "Data bytes", thrifty),
                             c.titles[pick]));
    }
    if (fast.size() > 1 && staleFree && othersStale)
        text += ", and no stale reads";
    else if (fast.size() > 1 && !staleFree)
        text += fmt::format(", though {} of its reads are stale",
                            stalePercent(valueOf(c, "Stale reads (of block reads)", pick)));
    text += ".";
    if (eligible.size() < n)
        text += kLeftOut;
    return text;
}

// "+0.2%", "−17.6%"; "n/a" when the real value is 0 and the simulated one is not.
std::string signedPercent(const MetricRow& row)
{
    // Over pairs, the error is the median of theirs: zero only if that is (MetricRow::pairRelative).
    if (row.pairRelative.empty() ? row.delta[1] == 0 : row.relative[1] == 0)
        return "+0.0%";
    if (std::isnan(row.relative[1]))
        return "n/a";
    return fmt::format("{}{:.1f}%", row.relative[1] < 0 ? "−" : "+", 100 * std::fabs(row.relative[1]));
}

// "+5.20 ms", "−15.10 ms", "+0.003 ms".
std::string signedMs(double ms)
{
    // Two literal formats (fmt checks each at compile time; a format chosen at run time would need fmt::runtime).
    const char* sign = ms < 0 ? "−" : "+";
    return std::fabs(ms) < 0.1 ? fmt::format("{}{:.3f} ms", sign, std::fabs(ms))
                               : fmt::format("{}{:.2f} ms", sign, std::fabs(ms));
}

// Where the simulator's error in TTFT's mean comes from: its parts' differences add up to it (in each pair), so the
// largest name the cause (waiting for the step in progress, the first step, the transfer, ...).
std::string ttftPartsSentence(const RunComparison& c)
{
    const MetricRow* total = rowOf(c, "TTFT mean");
    if (!total)
        return {};
    // Over pairs, the mean of the pairs' differences (each pair's parts add up, so their means do; the cells' medians
    // would not), as compare-real's TTFT MEAN BY PART gives them.
    const auto differenceOf = [&](const MetricRow& row) {
        return c.pairs < 2 ? row.delta[1] : SimVsRealRow::mean(row.pairDelta);
    };
    std::vector<std::pair<double, const char*>> parts;
    for (const TtftPart& part : kTtftParts)
        if (const MetricRow* row = rowOf(c, part.label); row && std::fabs(differenceOf(*row)) > kTtftPartFloorMs)
            parts.emplace_back(differenceOf(*row), part.label);
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& a, const auto& b) { return std::fabs(a.first) > std::fabs(b.first); });
    const double difference = differenceOf(*total);
    if (!std::isfinite(difference))
        return {};
    if (parts.empty() && std::fabs(difference) <= kTtftPartFloorMs)
        return {}; // nothing worth a sentence
    std::string text = fmt::format("TTFT's mean is {} off{}", signedMs(difference),
                                   c.pairs > 1 ? " (the mean of the pairs' differences, which add up)" : "");
    if (parts.empty())
        return text + "; no part of it by the last digit shown.";
    std::string byPart;
    for (std::size_t i = 0; i < std::min<std::size_t>(parts.size(), 3); ++i)
        byPart += fmt::format("{}{} {}", i ? ", " : "", parts[i].second, signedMs(parts[i].first));
    if (parts.size() > 3)
        byPart += fmt::format(" and {} more", parts.size() - 3);
    return text + fmt::format("; by part: {}.", byPart);
}

// The figures compare-real judges the simulator on (sim_vs_real.h), in its order: TTFT, TPOT and KV transfer at p50
// and p99; `f` hears each the comparison has, by label ("TPOT p99") and row.
template <class F> void forEachJudgedLatency(const RunComparison& c, F f)
{
    for (const char* figure : {"TTFT", "TPOT", "KV transfer"})
        for (const char* quantile : {"p50", "p99"}) {
            const std::string label = fmt::format("{} {}", figure, quantile);
            if (const MetricRow* row = rowOf(c, label))
                f(label, *row);
        }
}

// "TTFT p50 +12.0%, p99 −5.0%; TPOT p50 ...": `cell` of each judged latency, grouped by figure.
template <class Cell> std::string judgedLatencyList(const RunComparison& c, Cell cell)
{
    std::string text, figureNow;
    forEachJudgedLatency(c, [&](const std::string& label, const MetricRow& row) {
        const std::size_t space = label.rfind(' ');
        const std::string figure = label.substr(0, space), quantile = label.substr(space + 1);
        text += figure == figureNow ? fmt::format(", {} {}", quantile, cell(row))
                                    : fmt::format("{}{} {} {}", text.empty() ? "" : "; ", figure, quantile, cell(row));
        figureNow = figure;
    });
    return text;
}

// "+0.2%", "−17.6%", "n/a": an error as a share.
std::string signedShare(double relative)
{
    if (std::isnan(relative))
        return "n/a";
    if (relative == 0)
        return "+0.0%";
    return fmt::format("{}{:.1f}%", relative < 0 ? "−" : "+", 100 * std::fabs(relative));
}

// What compare-real kept beside the pair (cost_variant_errors.h): the error on the real runs' own costs, which leaves
// the machine's drift since the calibration out, and the latencies beyond the goal that the simulator reaches with its
// costs moved as far as a calibration drifts.
std::vector<std::string> costVariantSentences(const RunComparison& c)
{
    std::vector<std::string> sentences;
    std::vector<std::string> reached;
    int judged = 0, within = 0;
    forEachJudgedLatency(c, [&](const std::string& label, const MetricRow& row) {
        if (row.verdicts[1] == Verdict::Beyond && row.movedCostsReachReal())
            reached.push_back(label);
        ++judged;
        within += row.ownCostsVerdict == Verdict::Within ? 1 : 0;
    });
    const std::string errors =
        judgedLatencyList(c, [](const MetricRow& row) { return signedShare(row.ownCostsRelative); });
    if (c.ownCosts && judged > 0)
        sentences.push_back(fmt::format("On {} own costs (fitted over its copies and decode steps, so the machine's "
                                        "drift since the calibration is left out): {}; {} of {} within ±{:g}%.",
                                        c.pairs > 1 ? "each real run's" : "the real run's", errors, within, judged,
                                        100 * kSimulatorErrorGoal));
    if (!reached.empty())
        sentences.push_back(
            fmt::format("Beyond ±{:g}% but reached by the simulator with its costs moved {:g}% or less: "
                        "{} (its error there is not told apart from the calibration's own "
                        "uncertainty).",
                        100 * kSimulatorErrorGoal, 100 * c.costSensitivity, fmt::join(reached, ", ")));
    return sentences;
}

// A real run and the simulator's model of it: the simulator's error on the figures compare-real judges it on
// (sim_vs_real.h), how many are within its goal, and whether the protocol's counts came out equal.
std::vector<std::string> simulatorErrorSentences(const RunComparison& c)
{
    std::vector<std::string> beyond, withinNoise;
    int judged = 0;
    forEachJudgedLatency(c, [&](const std::string& label, const MetricRow& row) {
        ++judged;
        if (row.verdicts[1] != Verdict::Beyond)
            return;
        beyond.push_back(label);
        // The real run's own percentile is uncertain by its noise: an error inside it is no finding yet.
        if (row.noise[0] > 0 && std::fabs(row.delta[1]) <= row.noise[0])
            withinNoise.push_back(label);
    });
    const std::string errors = judgedLatencyList(c, signedPercent);
    std::vector<std::string> sentences;
    sentences.push_back(
        c.pairs > 1
            ? fmt::format("The simulator's error against {}, the median of its errors in {} pairs (each real run "
                          "against the simulated run that models it): {}.",
                          c.titles[0], c.pairs, errors)
            : fmt::format("The simulator's error against {}: {}.", c.titles[0], errors));
    const std::string goal = fmt::format("±{:g}%", 100 * kSimulatorErrorGoal);
    if (beyond.empty()) {
        sentences.push_back(fmt::format("All {} within its goal of {}.", judged, goal));
    } else {
        std::string text = fmt::format("{} of these {} within its goal of {}; beyond it: {}.",
                                       judged - static_cast<int>(beyond.size()), judged, goal, fmt::join(beyond, ", "));
        if (!withinNoise.empty()) {
            const bool all = withinNoise.size() == beyond.size();
            const std::string who =
                all ? (beyond.size() == 1 ? "It is" : "Each is")
                    : fmt::format("{}{}", fmt::join(withinNoise, ", "), withinNoise.size() == 1 ? " is" : " are");
            text += fmt::format(" {} within the real run's own sampling noise (its 95% interval): more requests would "
                                "tell.",
                                who);
        }
        sentences.push_back(text);
    }
    for (std::string& sentence : costVariantSentences(c))
        sentences.push_back(std::move(sentence));
    if (std::string parts = ttftPartsSentence(c); !parts.empty())
        sentences.push_back(std::move(parts));
    std::string differ;
    std::vector<bool> anyDiffers(c.pairs, false); // per pair: some count differs
    for (const char* label : {"Messages", "Network flows", "Data bytes", "Control bytes"}) {
        const MetricRow* row = rowOf(c, label);
        if (!row || row->verdicts[1] != Verdict::Beyond)
            continue;
        std::string name = label;
        name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
        // Over pairs the median difference may be none: name the figure, and count the pairs below.
        differ += fmt::format("{}{}", differ.empty() ? "" : ", ",
                              c.pairs > 1 ? name : fmt::format("{} {}", name, signedPercent(*row)));
        for (std::size_t p = 0; p < row->pairDelta.size(); ++p)
            anyDiffers[p] = anyDiffers[p] || pairDiffers(*row, p);
    }
    const auto differing = static_cast<std::size_t>(std::count(anyDiffers.begin(), anyDiffers.end(), true));
    if (differ.empty())
        sentences.push_back(c.pairs > 1 ? std::string("Messages, flows and bytes are equal in every pair.")
                                        : std::string("Messages, flows and bytes are equal on both."));
    else
        sentences.push_back(fmt::format("Messages, flows or bytes differ{} ({}): most likely transfers raced, and the "
                                        "real run's order of events followed its measured times.",
                                        c.pairs < 2 ? std::string()
                                        : differing == c.pairs
                                            ? std::string(" in every pair")
                                            : fmt::format(" in {} of the {} pairs", differing, c.pairs),
                                        differ));
    return sentences;
}

} // namespace

std::vector<std::string> summarizeComparison(const RunComparison& c)
{
    std::vector<std::string> sentences;
    if (c.titles.size() < 2)
        return sentences;
    if (c.simulatorError)
        return simulatorErrorSentences(c);
    // Runs of different machines are no choice between them: say so first, and name no fastest.
    if (c.otherMachines)
        sentences.push_back(fmt::format(
            "These runs ran on different backends ({}): a simulated run's times are of the scenario's hardware, a "
            "real run's were measured on this machine, so neither is the better choice. For the simulator's error, "
            "compare a real run with the simulated run that models it (Run > Execute On > Simulator Against "
            "Real CPU, or cohsim "
            "compare-real).",
            fmt::join(c.backends, ", ")));
    for (std::size_t i = 1; i < c.titles.size(); ++i)
        sentences.push_back(runSentence(c, i));
    if (!c.otherMachines)
        sentences.push_back(verdictSentence(c));
    return sentences;
}

} // namespace coh::core
