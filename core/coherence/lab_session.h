#pragma once
// The teaching lab: run a script of processor ops and message deliveries on one block, recording every op issue
// and every delivery as a step with the states afterwards and an explanation. By default each op runs to
// quiescence (messages delivered oldest first); a script that names deliveries (`D:<i>`) chooses the order itself,
// so races such as Data and Inv-Ack arriving either way can be staged.
#include "core/coherence/invariants.h"
#include "core/coherence/step_record.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core::coherence {

// One item of a lab script.
struct LabOp {
    enum class Kind : std::uint8_t {
        Issue,      // "P<cache>:<R|W|E>": the cache issues the op
        Deliver,    // "D:<i>": deliver in-flight message i (0 = the oldest still in flight)
        DeliverAll, // "D:*": deliver everything, oldest deliverable first, until nothing is in flight
    };
    int cache = 0;
    ProcessorOp op = ProcessorOp::Load;
    Kind kind = Kind::Issue;
    int message = 0; // Deliver only

    static LabOp deliver(int message) { return {0, ProcessorOp::Load, Kind::Deliver, message}; }
    static LabOp deliverAll() { return {0, ProcessorOp::Load, Kind::DeliverAll, 0}; }
    bool operator==(const LabOp&) const = default;
};

// Auto: every op runs to quiescence before the next item. Manual: nothing is delivered unless the script says so.
enum class LabDelivery : std::uint8_t { Auto, Manual };

// "P0:R,P1:W,D:1,D:*" (R load, W store, E evict; D:<i> delivers in-flight message i, D:* all of them). Throws
// InputError naming each bad `--ops` item and the fix.
std::vector<LabOp> parseLabOps(const std::string& text, int caches);
std::string labOpText(const LabOp& op);
std::string labOpsText(const std::vector<LabOp>& ops);
// Manual as soon as the script names one delivery, else Auto.
LabDelivery deliveryOf(const std::vector<LabOp>& ops);
// A tour of the protocol's main transactions, using caches P0..P2 (fewer when there are fewer caches).
std::string defaultLabOps(int caches);

// A message in flight after a step, as the network model sees it.
struct InFlightMessage {
    int index = 0; // what `D:<index>` delivers
    MessageView message;
    bool headOfChannel = true; // false: an older message on the same ordered channel must arrive first
    bool stalls = false;       // the receiver's table says wait: delivering it now would change nothing
    bool canDeliver() const { return headOfChannel && !stalls; }
};

struct LabRun {
    std::string protocol;
    int caches = 0;
    std::string ops;
    LabDelivery delivery = LabDelivery::Auto;
    std::vector<StepRecord> steps;
    // script[s - 1] is what step s did, deliveries by index: replayed with LabDelivery::Manual it gives this run.
    std::vector<LabOp> script;
    // inFlight[s]: the messages in flight after step s (inFlight[0]: the initial state, nothing).
    std::vector<std::vector<InFlightMessage>> inFlight{{}};
    int messages = 0;                      // messages delivered
    Violation violation = Violation::None; // what stopped the run early, if anything
    std::string error;                     // its description; empty when every item completed cleanly
};

// Stores write versions 1, 2, 3, ... so every value in the output is traceable to its store.
LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText,
              LabDelivery delivery);
// With deliveryOf(ops): the CLI's rule.
LabRun runLab(const Protocol& protocol, int caches, const std::vector<LabOp>& ops, const std::string& opsText);

nlohmann::ordered_json labToJson(const LabRun& run);
std::string labToText(const LabRun& run);

} // namespace coh::core::coherence
