// Sealed blocks under leases (what production KV stores such as Mooncake Store do): a KV block is append-only;
// while it is open it has a single writer, which obtains write ownership from the metadata master (the home) and
// then appends with no message. The first load by another cache seals it: the master asks the writer to publish
// the block (Seal, Publish with the data) and from then on the block is immutable, so any load gets a replica
// under a lease straight from the master (Lease-Req, Lease-Grant) and no replica ever needs an invalidation.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy (or the lease was released / expired)");
    c.state("IR^D", false, P::None, false, "sent Lease-Req, waiting for the replica");
    c.state("IW^D", false, P::None, false, "sent GetW, waiting for the open block (or the master's refusal)");
    c.state("W", true, P::ReadWrite, true, "the single writer of the open block: appends and reads it silently");
    c.state("R", true, P::Read, true, "a replica of the sealed block under a lease: immutable, never invalidated");
    c.leased("R");
    c.state("WI^A", false, P::None, true, "sent Put with the open block's data, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "handed the block on while its Put was in flight, waiting for Put-Ack");
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("Fwd-GetW", "Fwd-GetW");
    c.event("Seal", "Seal");
    c.event("Put-Ack", "Put-Ack");
    c.event("Data", "Data");
    c.event("Lease-Grant", "Lease-Grant");
    c.event("Write-Refused", "Write-Refused");
}

void addCacheRows(TableBuilder& c)
{
    using namespace act;
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);
    const Action publish = c.send("Publish", Target::Dir, DataSource::Cache);

    c.on("I", "Load", {c.send("Lease-Req", Target::Dir)}, "IR^D",
         "{self} has no copy, so it asks the master for a replica under a lease (Lease-Req)");
    c.on("I", "Store", {c.send("GetW", Target::Dir)}, "IW^D",
         "{self} wants to append, so it asks the master for the open block's write ownership (GetW)");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to release");
    c.stall({"IR^D", "IW^D", "WI^A", "II^A"}, {"Load", "Store", "Evict"},
            "a request to the master is in flight; the processor op waits");
    c.on("IR^D", "Lease-Grant", {copyData, load}, "R",
         "the replica arrives: {self} performs its load and keeps the sealed block under its lease");
    c.stall({"IW^D"}, {"Fwd-GetW", "Seal"},
            "the master already made {self} the writer; the request waits until the block arrives and the append "
            "is done");
    c.on("IW^D", "Data", {copyData, store}, "W", "the open block arrives: {self} appends and is its single writer");
    c.on("IW^D", "Write-Refused", {}, "I",
         "the block is sealed and immutable, so the master refused the write: the store is not performed (KV "
         "never rewrites a full block, so the simulator never issues it)");

    c.on("W", "Load", {load}, "", "{self} is the writer, so it reads the open block without any message");
    c.on("W", "Store", {store}, "", "{self} is the single writer, so the append needs no message");
    c.on("W", "Evict", {c.send("Put", Target::Dir, DataSource::Cache)}, "WI^A",
         "{self} gives up the open block: it writes it back to the master (Put) and waits for the Put-Ack");
    c.on("W", "Fwd-GetW", {dataToReq}, "I",
         "{req} takes over the open block, so {self} hands it the data and gives up writing");
    c.on("W", "Seal", {publish}, "R",
         "{req} reads the block, so it is full: {self} publishes it to the master (Publish with the data) and "
         "keeps an immutable replica");
    c.on("WI^A", "Fwd-GetW", {dataToReq}, "II^A",
         "the master ordered {req}'s GetW before {self}'s Put; {self} still has the data, so it hands it over and "
         "keeps waiting for the Put-Ack");
    c.on("WI^A", "Seal", {publish}, "II^A",
         "the master ordered {req}'s read before {self}'s Put; {self} publishes the block and keeps waiting for "
         "the Put-Ack");
    c.on({"WI^A", "II^A"}, "Put-Ack", {}, "I", "the master took the Put; {self} no longer holds the block");

    c.on("R", "Load", {load}, "", "the replica is immutable and never invalidated, so every load hits");
    c.on("R", "Store", {}, "",
         "the block is sealed and immutable, so {self}'s store is refused: it is not performed and nothing is sent "
         "(KV never rewrites a full block, so the simulator never issues it)");
    c.on("R", "Evict", {}, "I",
         "{self} releases its lease (or it expires): silently, since the master does not track replicas");
}

void declareDirectory(TableBuilder& d)
{
    d.state("O", true, Permission::None, false, "open, no writer: the master's copy is the block so far");
    d.state("W", true, Permission::None, false,
            "open with a single writer (the owner); the master's copy may be "
            "stale");
    d.state("Seal^D", false, Permission::None, false, "asked the writer to seal, waiting for its Publish");
    d.state("Sealed", true, Permission::None, false,
            "sealed and immutable: the master holds it and grants leases "
            "to any reader; replicas are not tracked");
    d.event("GetW", "GetW");
    d.event("Lease-Req", "Lease-Req");
    d.event("Put-Owner", "Put", Guard::FromOwner);
    d.event("Put-NonOwner", "Put", Guard::NotFromOwner);
    d.event("Publish", "Publish");
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    const Action grant = d.send("Lease-Grant", Target::Requestor, DataSource::Memory);
    const char* stale = "a stale Put from {req}, which handed the block on before its Put arrived; the master acks "
                        "it and ignores the data";

    d.on("O", "GetW", {d.send("Data", Target::Requestor, DataSource::Memory), setOwnerToReq}, "W",
         "{req} asks to append to the open block: the master sends it the block and records {req} as its writer");
    d.on("O", "Lease-Req", {grant}, "Sealed",
         "{req} reads a block nobody is writing: the block is done, so the master seals it and grants {req} a "
         "lease on a replica");
    d.on({"O", "W", "Sealed"}, "Put-NonOwner", {putAck}, "", stale);

    d.on("W", "GetW", {d.send("Fwd-GetW", Target::Owner), setOwnerToReq}, "",
         "{req} takes over the open block from {owner}: the master forwards the request to {owner} and records "
         "{req} as the writer");
    d.on("W", "Lease-Req", {d.send("Seal", Target::Owner), clearOwner}, "Seal^D",
         "{req} reads the open block, so the writer {owner} is done: the master tells {owner} to seal and publish it");
    d.on("W", "Put-Owner", {writeMemory, clearOwner, putAck}, "O",
         "{req}, the writer, gives the open block back: the master's copy is up to date and nobody writes it");

    d.stall({"Seal^D"}, {"GetW", "Lease-Req", "Put-Owner", "Put-NonOwner"},
            "the master waits for the published block before it serves anything else");
    d.on("Seal^D", "Publish", {writeMemory, grant}, "Sealed",
         "the published block arrives: it is sealed and immutable, and the master grants {req} a lease on it");

    d.on("Sealed", "Lease-Req", {grant}, "",
         "{req} reads a sealed block: the master grants a lease on a replica, with no one to ask or invalidate");
    d.on("Sealed", "GetW", {d.send("Write-Refused", Target::Requestor)}, "",
         "{req} asks to write a sealed block, which is immutable: the master refuses");
}

} // namespace

Protocol buildSealedLease()
{
    Protocol p;
    p.name = "sealed-lease";
    p.title = "Sealed append-only blocks with read leases (Mooncake Store style)";
    p.summary = "KV blocks are append-only. An open block has a single writer, which gets write ownership from the "
                "metadata master (GetW) and then appends with no message; a second writer takes the block over "
                "through the master (Fwd-GetW). The first load by another cache seals the block: the master asks "
                "the writer to publish it (Seal, Publish with the data), the writer keeps a replica, and from then "
                "on every load gets a replica under a lease from the master (Lease-Req, Lease-Grant). Sealed blocks "
                "are immutable, so replicas are never invalidated and their release (or expiry) is silent.";
    p.whenToPick = "Pick it for a KV cache shared the way production stores share it: prefill writes whole blocks "
                   "once and any number of decode instances read them. After sealing, each reader pays one request "
                   "and one response and nothing ever invalidates it; only the open tail needs a protocol. It cannot "
                   "express rewriting a full block (the master refuses), so it fits only append-only data.";
    using V = VirtualNetwork;
    p.messages = {
        {"GetW", false, V::Request, "ask the master for write ownership of the open block"},
        {"Lease-Req", false, V::Request, "ask the master for a replica under a lease"},
        {"Put", true, V::Request, "the writer gives the open block back to the master, with its data"},
        {"Fwd-GetW", false, V::Forward, "the master tells the writer to hand the open block to a new writer"},
        {"Seal", false, V::Forward, "the master tells the writer the block is full: publish it"},
        {"Put-Ack", false, V::Forward, "the master acknowledges a Put"},
        {"Data", true, V::Response, "the open block's data, for its new writer"},
        {"Publish", true, V::Response, "the writer publishes the sealed block's data to the master"},
        {"Lease-Grant", true, V::Response, "a replica of the sealed block under a lease"},
        {"Write-Refused", false, V::Response, "the block is sealed: the master refuses a write"},
    };
    // A Seal or Fwd-GetW must not be overtaken by a later Put-Ack to the same cache, as in the Primer's protocols.
    p.ordered = {false, true, false};
    p.acquireTailForWrite = true;

    TableBuilder c(p, false);
    declareCache(c);
    addCacheRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareDirectory(d);
    addDirectoryRows(d);
    p.directory = d.build("O");
    return p;
}

} // namespace coh::core::coherence
