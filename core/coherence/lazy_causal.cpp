// Lazy causal replicas with bounded staleness: one writer at a time (W, obtained from the home with GetW), while
// other caches keep readable replicas (V) that are never invalidated. Each store is performed by the writer at once
// and sent to the home as an Update, which the home applies to memory and forwards to every replica holder on an
// ordered network, so each replica sees the writer's versions in order. The writer counts the replicas' Update-Acks
// and stalls its next store while one Update is unacknowledged: no replica is ever more than one version behind.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IV^D", false, P::None, false, "sent GetS, waiting for the replica (Read-Data)");
    c.state("IW^D", false, P::None, false, "sent GetW, waiting for the block (Data)");
    c.state("V", true, P::Read, true, "a readable replica: updated lazily, at most one version behind the writer");
    c.state("W", true, P::ReadWrite, true, "the single writer, every Update it sent acknowledged");
    c.state(
        "W^AC", false, P::ReadWrite, true,
        "the writer, its last Update unacknowledged: waiting for the home's AckCount and the replicas' Update-Acks");
    c.state("W^A", false, P::ReadWrite, true,
            "the writer, its last Update unacknowledged: AckCount known, waiting for the remaining Update-Acks");
    c.state("WI^A", false, P::None, true, "sent Put with the block's data, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "handed the block on while its Put was in flight, waiting for Put-Ack");
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("Fwd-GetW", "Fwd-GetW");
    c.event("Fwd-Update", "Fwd-Update");
    c.event("Put-Ack", "Put-Ack");
    c.event("Read-Data", "Read-Data");
    c.event("Data", "Data");
    c.event("AckCount(0)", "AckCount", Guard::AckCountZero);
    c.event("AckCount(>0)", "AckCount", Guard::AckCountPositive);
    c.event("Update-Ack", "Update-Ack", Guard::NotLastAck);
    c.event("Last-Update-Ack", "Update-Ack", Guard::LastAck);
}

void addReaderRows(TableBuilder& c)
{
    using namespace act;
    const Action ack = c.send("Update-Ack", Target::Requestor);
    c.on("I", "Load", {c.send("GetS", Target::Dir)}, "IV^D", "{self} has no copy, so it asks the home for a replica");
    c.on({"I", "V"}, "Store", {c.send("GetW", Target::Dir)}, "IW^D",
         "{self} wants to write, so it asks the home to become the single writer (GetW)");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to drop");
    c.on("I", "Fwd-Update", {ack}, "",
         "{self} dropped its replica silently, so it acknowledges {req}'s Update and ignores the data");
    c.stall({"IV^D", "IW^D", "WI^A", "II^A"}, {"Load", "Store", "Evict"},
            "a request to the home is in flight; the processor op waits");
    c.on("IV^D", "Read-Data", {copyData, load}, "V",
         "the replica arrives: {self} performs its load; the home will forward it every later Update");
    c.on("IV^D", "Fwd-Update", {ack}, "",
         "an Update for {self}'s old replica: the Read-Data behind it on the same ordered channel is at least as "
         "new, so {self} acknowledges and ignores it");

    c.on("V", "Load", {load}, "",
         "the replica is readable while a writer writes: the load hits (at most one version stale)");
    c.on("V", "Evict", {}, "I", "{self} drops its replica silently; Updates that still come are acknowledged");
    c.on("V", "Fwd-Update", {copyData, ack}, "",
         "{req}'s next version arrives: {self} applies it in order and acknowledges it to {req}, never invalidated");
}

void addWriterRows(TableBuilder& c)
{
    using namespace act;
    const Action ack = c.send("Update-Ack", Target::Requestor);
    const Action update = c.send("Update", Target::Dir, DataSource::Cache);
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);

    c.on("IW^D", "Data", {copyData, store, update}, "W^AC",
         "the block arrives: {self} is the single writer, performs its store and sends the new version to the "
         "home (Update)");
    // The old writer waits for this ack before it hands the block over, so such an Update always arrives here.
    c.on("IW^D", "Fwd-Update", {ack}, "",
         "an Update from {req}, the writer {self} replaces, sent while {self} still had a replica: the block "
         "{self} is about to get is at least as new, so it acknowledges and ignores the data");
    c.stall({"IW^D", "W^AC", "W^A"}, {"Fwd-GetW"},
            "{req} takes over the writer role only once {self}'s store is done and acknowledged by every replica");

    c.on("W", "Load", {load}, "", "{self} is the writer and holds the latest version");
    c.on("W", "Store", {store, update}, "W^AC",
         "{self} performs the store at once and sends the new version to the home (Update), without waiting");
    c.on("W", "Evict", {c.send("Put", Target::Dir, DataSource::Cache)}, "WI^A",
         "{self} gives up writing: it writes the block back to the home (Put) and waits for the Put-Ack");
    c.on("W", "Fwd-GetW", {dataToReq}, "I", "{req} becomes the writer, so {self} hands it the block and drops it");

    c.on({"W^AC", "W^A"}, "Load", {load}, "", "{self} is the writer and holds the latest version");
    c.stall({"W^AC", "W^A"}, {"Store", "Evict"},
            "one version is still unacknowledged: a second store now could leave a replica two versions behind, "
            "so the writer waits (a reader never does)");
    c.on("W^AC", "AckCount(0)", {addAcks}, "W", "the home says no replica holds the block: the Update is done");
    c.on("W^AC", "AckCount(>0)", {addAcks}, "W^A",
         "the home says how many replicas must acknowledge the Update ({acks} still owed)");
    c.on("W^AC", "Update-Ack", {decAcks}, "", "a replica's ack beat the home's AckCount: {self} counts it");
    c.on("W^A", "Update-Ack", {decAcks}, "", "a replica applied the Update; more acks are owed");
    c.on("W^A", "Last-Update-Ack", {decAcks}, "W",
         "the last replica applied the Update: every replica holds the latest version, so the next store may go");

    c.on("WI^A", "Fwd-GetW", {dataToReq}, "II^A",
         "the home ordered {req}'s GetW before {self}'s Put; {self} hands {req} the block and waits for the Put-Ack");
    c.on({"WI^A", "II^A"}, "Put-Ack", {}, "I", "the home took the Put; {self} no longer holds the block");
}

void declareDirectory(TableBuilder& d)
{
    d.state("V", true, Permission::None, false, "no writer: memory is the latest version; replicas are the sharers");
    d.state("W", true, Permission::None, false, "a single writer (the owner); memory is the last Update applied");
    d.event("GetS", "GetS");
    d.event("GetW", "GetW");
    d.event("Update", "Update");
    d.event("Put-Owner", "Put", Guard::FromOwner);
    d.event("Put-NonOwner", "Put", Guard::NotFromOwner);
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);

    d.on({"V", "W"}, "GetS", {d.send("Read-Data", Target::Requestor, DataSource::Memory), addReqToSharers}, "",
         "{req} gets a replica of memory and is recorded as a sharer, so it receives every later Update");
    d.on("V", "GetW", {d.send("Data", Target::Requestor, DataSource::Memory), removeReqFromSharers, setOwnerToReq}, "W",
         "{req} becomes the single writer: the home sends it the block; the replicas stay readable");
    d.on("W", "GetW", {d.send("Fwd-GetW", Target::Owner), removeReqFromSharers, setOwnerToReq}, "",
         "{req} takes over writing from {owner}: the home forwards the request and records {req} as the writer");
    d.on("W", "Update",
         {writeMemory, d.send("Fwd-Update", Target::SharersExceptRequestor, DataSource::Memory),
          d.send("AckCount", Target::Requestor, DataSource::None, AckSource::SharersExceptRequestor)},
         "",
         "{req}'s new version: the home applies it to memory, forwards it to every replica ({others}) and tells "
         "{req} how many acks to expect");
    d.on("W", "Put-Owner", {writeMemory, clearOwner, putAck}, "V",
         "{req}, the writer, gives the block back: memory is the latest version and nobody writes it");
    d.on({"V", "W"}, "Put-NonOwner", {putAck}, "",
         "a stale Put from {req}, which handed the block on before its Put arrived; the home acks it and ignores "
         "the data");
}

} // namespace

Protocol buildLazyCausal()
{
    Protocol p;
    p.name = "lazy-causal";
    p.title = "Lazy causal replicas with bounded staleness (one writer, updates not invalidations)";
    p.summary = "One writer at a time gets the block from the home (GetW, Data) while other caches keep readable "
                "replicas that are never invalidated. Each store is performed by the writer at once and sent to "
                "the home as an Update; the home applies it to memory and forwards it to every replica on an "
                "ordered network, so each replica applies the writer's versions in order (monotonic reads, causal "
                "order for one writer). The replicas acknowledge to the writer, which stalls its next store until "
                "the last Update is acknowledged: a load may return a value at most one version stale "
                "(stalenessBound = 1), and a reader never waits for the writer.";
    p.whenToPick = "Pick it when readers must never block on a writer and may read a slightly old version: a "
                   "writer appends while many decode instances keep reading their replicas, and the staleness bound "
                   "is paid by the writer (one round trip per store through the home) instead of by invalidating "
                   "and re-fetching every reader. Do not pick it when a load must see the latest write: it is not "
                   "SWMR coherence.";
    p.consistency = Consistency::BoundedStaleness;
    p.stalenessBound = 1;
    using V = VirtualNetwork;
    p.messages = {
        {"GetS", false, V::Request, "ask the home for a readable replica"},
        {"GetW", false, V::Request, "ask the home to become the single writer"},
        {"Update", true, V::Request, "the writer sends its new version to the home"},
        {"Put", true, V::Request, "the writer gives the block back to the home, with its data"},
        {"Fwd-GetW", false, V::Forward, "the home tells the writer to hand the block to a new writer"},
        {"Fwd-Update", true, V::Forward, "the home forwards the writer's new version to a replica"},
        {"Read-Data", true, V::Forward, "a replica of memory for a reader (ordered with the Updates behind it)"},
        {"Put-Ack", false, V::Forward, "the home acknowledges a Put"},
        {"Data", true, V::Response, "the block, for its new writer"},
        {"AckCount", false, V::Response, "the home tells the writer how many replicas will acknowledge its Update"},
        {"Update-Ack", false, V::Response, "a replica acknowledges an Update to the writer"},
    };
    // Forward is FIFO per channel: a replica sees Read-Data and the Updates after it in the home's order.
    p.ordered = {false, true, false};

    TableBuilder c(p, false);
    declareCache(c);
    addReaderRows(c);
    addWriterRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareDirectory(d);
    addDirectoryRows(d);
    p.directory = d.build("V");
    return p;
}

} // namespace coh::core::coherence
