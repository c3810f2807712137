#pragma once
// A coherence protocol as plain data: message types plus a cache-controller table and a directory-controller
// table, each a dense (state x event) array of transitions built from a fixed library of guards and actions.
// The interpreter (BlockSystem), the lab, the explorer, the docs and exporters all walk these same values.
#include "core/coherence/compiled_table.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core::coherence {

inline constexpr int kMaxCaches = 16;          // sharer sets are 16-bit masks
inline constexpr std::uint8_t kDirNode = 0xFF; // node id of the directory (home) in messages
inline constexpr std::uint8_t kNoNode = 0xFE;  // "no owner"

enum class Permission : std::uint8_t { None, Read, ReadWrite };

enum class ProcessorOp : std::uint8_t { Load, Store, Evict };
inline constexpr int kProcessorOps = 3;

// Virtual networks: a protocol says which of them keep point-to-point (per src, dst) FIFO order.
enum class VirtualNetwork : std::uint8_t { Request, Forward, Response };
inline constexpr int kVirtualNetworks = 3;

// Guards refine a trigger into events; all guards of an event must hold. Evaluated against the receiving
// controller (acks at a cache; owner and sharers at a directory; the caches' copies at a bus) and the message.
enum class Guard : std::uint8_t {
    None,
    AckCountZero,     // cache: message ack count + acks already counted == 0
    AckCountPositive, // cache: message ack count + acks already counted > 0
    LastAck,          // cache: this ack is the last one owed (acks == 1)
    NotLastAck,       // cache: acks != 1
    FromOwner,        // directory: the requestor is the recorded owner
    NotFromOwner,
    LastSharer, // directory: no sharer other than the requestor
    NotLastSharer,
    NoSharers, // directory: the sharer set is empty
    HasSharers,
    RequestorIsSharer, // directory: the requestor is in the sharer set
    RequestorNotSharer,
    // A bus keeps no sharer set: its caches drive a wired-OR line from their states, which the bus samples when
    // it orders the transaction. A copy is a cache state that holds data (StateInfo::holdsData).
    OtherCopy,        // bus: some cache other than the requestor holds a copy (the shared line is asserted)
    NoOtherCopy,      // bus: no other cache does
    RequestorHasCopy, // bus: the requestor still holds its copy (no earlier transaction invalidated it)
    RequestorNoCopy,
};

enum class ActionKind : std::uint8_t {
    Send,
    AddRequestorToSharers,
    AddOwnerToSharers,
    RemoveRequestorFromSharers,
    ClearSharers,
    SetOwnerToRequestor,
    ClearOwner,
    WriteMemoryFromMessage,
    CopyDataFromMessage,
    AddAcksFromMessage, // acks += message ack count (acks may be negative: Inv-Acks can beat the Data)
    DecrementAcks,
    PerformLoad,
    PerformStore,
    // Memory-side access (unified memory): the load or store takes effect at the home, which is its
    // linearization point; the cache only learns that its op completed.
    PerformLoadAtHome,  // directory: the load reads memory here; data-value is checked here (memory == latest)
    PerformStoreAtHome, // directory: memory := the message's value, which becomes the latest written value
    CompleteLoad,       // cache: the load completes with the value the home read (already checked there)
    CompleteStore,      // cache: the store the home performed is acknowledged
};

// Where a Send goes. Requestor is the requestor named by the message being handled (self for a processor op).
// AllExceptRequestor: a broadcast to every cache but the requestor, whatever the directory knows (snooping bus).
enum class Target : std::uint8_t { Dir, Requestor, Owner, SharersExceptRequestor, AllExceptRequestor };
// StoreValue: the value the processor's store writes (a cache's Store op only).
enum class DataSource : std::uint8_t { None, Cache, Memory, StoreValue };
// AllExceptRequestor: the number of caches other than the requestor (one answer per broadcast snoop).
enum class AckSource : std::uint8_t { None, SharersExceptRequestor, FromMessage, AllExceptRequestor };

struct Action {
    ActionKind kind = ActionKind::Send;
    std::uint8_t message = 0; // Send: message type index
    Target to = Target::Dir;
    DataSource data = DataSource::None;
    AckSource acks = AckSource::None;
};

// What a message does: run counters (invalidations, write-backs, bias flips, migrations) and the colours of
// views are keyed on it.
enum class MessageRole : std::uint8_t {
    Request,      // asks the home (or bus) for a copy, ownership or a drop
    Forward,      // the home passes a request on to a cache
    Invalidation, // tells a cache to drop its copy
    Ack,          // confirms; carries no data
    Data,         // answers a request with the block
    Writeback,    // returns a modified block to the home
    BiasFlip,     // moves a block between device and host bias
    Migration,    // moves a block and its ownership to the cache that uses it
    Lease,        // a replica handed out under a lease
    Other,
};
inline constexpr int kMessageRoles = 10;

struct MessageType {
    std::string name;
    bool carriesData = false;
    VirtualNetwork network = VirtualNetwork::Request;
    std::string meaning;
    MessageRole role = MessageRole::Other; // set by assignMessageRoles()
};

struct StateInfo {
    std::string name;
    bool stable = true;
    Permission permission = Permission::None;
    bool holdsData = false; // the controller keeps a valid data copy in this state
    std::string meaning;
    // The copy is held under a lease that expires (coherence.lease): the cache may read it only until then.
    bool leased = false;
};

// A processor op (cache only) or the arrival of a message type.
struct Trigger {
    bool isMessage = false;
    std::uint8_t index = 0; // ProcessorOp or message type index

    // Dense index: processor ops first, then message types.
    int slot() const { return isMessage ? kProcessorOps + index : index; }
};

struct EventInfo {
    std::string name;
    Trigger trigger;
    std::array<Guard, 2> guards{Guard::None, Guard::None};
};

// Undefined: the protocol says this cannot happen; if it does, it is a protocol error reported loudly.
enum class EntryKind : std::uint8_t { Undefined, Stall, Fire };

struct Transition {
    EntryKind kind = EntryKind::Undefined;
    std::uint8_t next = 0;
    std::uint16_t firstAction = 0; // into ControllerTable::actions
    std::uint8_t actionCount = 0;
};

struct TriggerEvents {
    std::uint8_t first = 0; // into ControllerTable::eventOrder
    std::uint8_t count = 0;
};

struct ControllerTable {
    std::string name; // "cache" or "directory"
    bool isDirectory = false;
    std::vector<StateInfo> states;
    std::vector<EventInfo> events;
    std::vector<Transition> transitions;   // states.size() * events.size(), row-major by state
    std::vector<std::string> explanations; // parallel to transitions; {self} {req} {src} {owner} {others} {acks}
    std::vector<Action> actions;           // pool the transitions index
    std::vector<std::uint8_t> eventOrder;  // event indices grouped by trigger slot, in declaration order
    std::vector<TriggerEvents> byTrigger;  // indexed by Trigger::slot()
    std::uint8_t initial = 0;
    CompiledTable compiled; // the same table laid out for the interpreter, derived by TableBuilder::build()

    int index(int state, int event) const { return state * static_cast<int>(events.size()) + event; }
    const Transition& at(int state, int event) const { return transitions[index(state, event)]; }
    int findState(const std::string& name) const;
    int findEvent(const std::string& name) const;
};

// What a load may return. Strong: the latest write (SWMR). BoundedStaleness: one writer at a time while readable
// replicas lag it by at most stalenessBound versions; values are then versions mod stalenessBound + 2.
enum class Consistency : std::uint8_t { Strong, BoundedStaleness };

// What the home controller is. A directory records the sharers and the owner. A snooping bus, with memory behind
// it, records at most the owner: who else holds the block it learns from the shared line (Guard::OtherCopy), so
// its table may not use the sharer set, and a directory's may not read the caches' copies.
enum class Home : std::uint8_t { Directory, Bus };

struct Protocol {
    std::string name;       // registry key, e.g. "msi-directory"
    std::string title;      // "MSI directory protocol (Primer Tables 8.1/8.2)"
    std::string summary;    // one paragraph
    std::string whenToPick; // one paragraph
    bool bugHunt = false;   // deliberately broken, for exercising the explorer
    // Set before the tables are built: TableBuilder checks their guards and actions against it.
    Home home = Home::Directory;
    // Simulator mapping only: at the KV transfer decode acquires the open tail block with a Store (it will append
    // to it) instead of reading it, since a read would close the block to writes (sealed-lease).
    bool acquireTailForWrite = false;
    Consistency consistency = Consistency::Strong;
    std::uint8_t stalenessBound = 0; // BoundedStaleness: versions a load may be behind the latest write
    std::vector<MessageType> messages;
    std::array<bool, kVirtualNetworks> ordered{}; // point-to-point FIFO per virtual network
    ControllerTable cache;
    ControllerTable directory;

    int findMessage(const std::string& name) const;
    // Distinct values the checkers use: 0/1 tell stale from latest (Strong), versions mod bound + 2 otherwise.
    int modelValues() const { return consistency == Consistency::Strong ? 2 : stalenessBound + 2; }
};

const char* permissionName(Permission p);
const char* processorOpName(ProcessorOp op);
const char* networkName(VirtualNetwork n);
const char* guardName(Guard g);
const char* messageRoleName(MessageRole r);
// The home's node name in steps, messages and views: "Dir" for a directory, "Bus" for a snooping bus.
const char* homeName(Home h);
// Whether the home keeps a sharer set, which views then show (a bus keeps none).
inline bool homeTracksSharers(Home h)
{
    return h == Home::Directory;
}

// Gives every message of `p` its role from the shared vocabulary of message names (Inv is an invalidation in
// every protocol, PutM a write-back, ...). A name not in the vocabulary keeps Other, which a test forbids.
void assignMessageRoles(Protocol& p);

} // namespace coh::core::coherence
