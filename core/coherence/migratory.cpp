// Migratory sharing on a directory MSI protocol: a read of a block another cache holds in M moves the block,
// writable, to the reader (the COMA idea that data migrates to the node that uses it). The owner hands its data
// to the reader and invalidates itself; nothing is written back and the directory just records the new owner.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IS^D", false, P::None, false, "sent GetS, waiting for shared data or the migrating block");
    c.state("IM^AD", false, P::None, false, "sent GetM, waiting for data and invalidation acks");
    c.state("IM^A", false, P::None, true, "has the data, waiting for the remaining invalidation acks");
    c.state("S", true, P::Read, true, "read-only copy; other caches may also hold one");
    c.state("SM^AD", false, P::Read, true, "readable copy, sent GetM to upgrade, waiting for data and acks");
    c.state("SM^A", false, P::Read, true, "readable copy, has the data, waiting for the remaining acks");
    c.state("M", true, P::ReadWrite, true, "the only copy, writable and possibly newer than memory");
    c.state("MI^A", false, P::None, true, "sent PutM with the data, waiting for Put-Ack (still answers Fwds)");
    c.state("SI^A", false, P::None, false, "sent PutS, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "lost the block while a Put was in flight, waiting for Put-Ack");
    addBaseCacheEvents(c);
    c.event("Migratory-Data", "Migratory-Data");
}

void addOwnerRows(TableBuilder& c)
{
    using namespace act;
    const Action migrate = c.send("Migratory-Data", Target::Requestor, DataSource::Cache);

    c.stall({"IS^D"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory already made this cache the owner of the migrating block; the forwarded request waits "
            "until the Migratory-Data arrives");
    addMsiOwnerRows(c);
    c.on("IS^D", "Migratory-Data", {copyData, load}, "M",
         "the block migrates from its former owner: {self} performs its load and holds the block writable (M)");
    c.on("M", "Fwd-GetS", {migrate}, "I",
         "{req} wants to read, so {self}, the owner, hands it the whole block writable and invalidates its own copy; "
         "nothing is written back");
    c.on("MI^A", "Fwd-GetS", {migrate}, "II^A",
         "the directory ordered {req}'s read before {self}'s PutM; {self} still has the data, so it migrates the "
         "block to {req} and keeps waiting for its Put-Ack");
}

void declareDirectory(TableBuilder& d)
{
    d.state("I", true, Permission::None, false, "no cache holds the block; memory is up to date");
    d.state("S", true, Permission::None, false, "caches hold read-only copies; memory is up to date");
    d.state("M", true, Permission::None, false, "one cache (the owner) holds the block in M; memory may be stale");
    d.event("GetS", "GetS");
    d.event("GetM", "GetM");
    d.event("PutS-NotLast", "PutS", Guard::NotLastSharer);
    d.event("PutS-Last", "PutS", Guard::LastSharer);
    d.event("PutM-Owner", "PutM", Guard::FromOwner);
    d.event("PutM-NonOwner", "PutM", Guard::NotFromOwner);
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);

    addMsiMemoryDirectoryRows(d);
    d.on({"I", "M"}, "PutS-Last", {putAck}, "",
         "a stale PutS from {req}, whose copy was already invalidated; the directory just acks it");
    d.on({"I", "M"}, "PutM-NonOwner", {putAck}, "",
         "a stale PutM from {req}, whose block migrated away before its write-back arrived; the directory acks it "
         "and ignores the data");

    d.on("S", "PutS-NotLast", {removeReqFromSharers, putAck}, "",
         "{req} drops its read-only copy; other sharers remain");
    d.on("S", "PutM-NonOwner", {removeReqFromSharers, putAck}, "",
         "a stale PutM from {req}, which lost the block before its write-back arrived; the directory acks it");

    d.on("M", "GetS", {d.send("Fwd-GetS", Target::Owner), setOwnerToReq}, "",
         "{req} asks to read a block {owner} holds in M: the block migrates, so the directory forwards the request "
         "to {owner} and records {req} as the new owner, with no sharers and no write-back");
}

} // namespace

Protocol buildMigratory()
{
    Protocol p;
    p.name = "migratory";
    p.title = "Migratory-sharing MSI directory protocol";
    p.summary = "MSI with the migratory-sharing optimisation: a read of a block another cache holds in M moves the "
                "block, writable, to the reader. The owner sends Migratory-Data to the reader and invalidates itself; "
                "memory is not written and the directory only records the reader as the new owner, so the reader's "
                "next write hits with no message.";
    p.whenToPick = "Pick it when blocks are read and then written by one node at a time, handed from node to node: "
                   "a KV block written by prefill and then read and extended by decode is exactly that. It saves the "
                   "write-back and the GetM upgrade MSI needs for each hand-over. It hurts truly read-shared data: "
                   "two readers of a dirty block take it from each other in turn instead of sharing it.";
    addBaseMessages(p);
    p.messages[p.findMessage("Fwd-GetS")].meaning =
        "the directory forwards a read request to the owner, which migrates the block to the reader";
    p.messages.push_back({"Migratory-Data", true, VirtualNetwork::Response,
                          "the owner hands the block to a reader with write permission, invalidating its own copy"});

    TableBuilder c(p, false);
    declareCache(c);
    addSharedCacheRows(c);
    addOwnerRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareDirectory(d);
    addDirectoryRows(d);
    p.directory = d.build("I");
    return p;
}

} // namespace coh::core::coherence
