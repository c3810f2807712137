// The MSI directory protocol of Sorin, Hill & Wood's Primer (Tables 8.1 and 8.2), as data.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareMsiCacheStates(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IS^D", false, P::None, false, "sent GetS, waiting for data");
    c.state("IM^AD", false, P::None, false, "sent GetM, waiting for data and invalidation acks");
    c.state("IM^A", false, P::None, true, "has the data, waiting for the remaining invalidation acks");
    c.state("S", true, P::Read, true, "read-only copy; other caches may also hold one");
    c.state("SM^AD", false, P::Read, true, "readable copy, sent GetM to upgrade, waiting for data and acks");
    c.state("SM^A", false, P::Read, true, "readable copy, has the data, waiting for the remaining acks");
    c.state("M", true, P::ReadWrite, true, "the only copy, writable and possibly newer than memory");
    c.state("MI^A", false, P::None, true, "sent PutM with the data, waiting for Put-Ack (still answers Fwds)");
    c.state("SI^A", false, P::None, false, "sent PutS, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "lost the block while a Put was in flight, waiting for Put-Ack");
}

void addMsiCacheMRows(TableBuilder& c)
{
    using namespace act;
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);
    const Action dataToDir = c.send("Data", Target::Dir, DataSource::Cache);
    addMsiOwnerRows(c);
    c.on("M", "Fwd-GetS", {dataToReq, dataToDir}, "S",
         "{req} wants to read, so {self}, the owner, sends it the data and writes the data back to the directory, "
         "keeping a read-only copy");
    c.on("MI^A", "Fwd-GetS", {dataToReq, dataToDir}, "SI^A",
         "the directory ordered {req}'s read before {self}'s PutM; {self} still has the data, so it serves the read "
         "and writes back, and keeps waiting for its Put-Ack");
}

void declareMsiDirectory(TableBuilder& d)
{
    d.state("I", true, Permission::None, false, "no cache holds the block; memory is up to date");
    d.state("S", true, Permission::None, false, "caches hold read-only copies; memory is up to date");
    d.state("M", true, Permission::None, false, "one cache (the owner) holds the block in M; memory may be stale");
    d.state("S^D", false, Permission::None, false, "forwarded a GetS to the owner, waiting for its data");
    d.event("GetS", "GetS");
    d.event("GetM", "GetM");
    d.event("PutS-NotLast", "PutS", Guard::NotLastSharer);
    d.event("PutS-Last", "PutS", Guard::LastSharer);
    d.event("PutM-Owner", "PutM", Guard::FromOwner);
    d.event("PutM-NonOwner", "PutM", Guard::NotFromOwner);
    d.event("Data", "Data");
}

void addMsiDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    addMsiMemoryDirectoryRows(d);
    const char* staleS = "a stale PutS from {req}, whose copy was already invalidated; the directory just acks it";
    const char* staleM = "a stale PutM from {req}, which is no longer the owner; the directory acks it and "
                         "ignores the data";

    d.on({"I", "M"}, "PutS-Last", {putAck}, "", staleS);
    d.on({"I", "M"}, "PutM-NonOwner", {putAck}, "", staleM);

    d.on({"S", "S^D"}, "PutS-NotLast", {removeReqFromSharers, putAck}, "",
         "{req} drops its read-only copy; other sharers remain");
    d.on({"S", "S^D"}, "PutM-NonOwner", {removeReqFromSharers, putAck}, "",
         "a stale PutM from {req}, which was downgraded to a sharer before its write-back arrived; the directory "
         "drops it from the sharers and acks");

    d.on("M", "GetS", {d.send("Fwd-GetS", Target::Owner), addReqToSharers, addOwnerToSharers, clearOwner}, "S^D",
         "{req} asks to read a block {owner} holds in M, so the directory forwards the request to the owner {owner} "
         "and records both as sharers");

    d.stall({"S^D"}, {"GetS", "GetM"}, "the directory waits for the former owner's data before serving new requests");
    d.on("S^D", "PutS-Last", {removeReqFromSharers, putAck}, "",
         "{req} drops its copy while the directory waits for the former owner's data");
    d.on("S^D", "Data", {writeMemory}, "S",
         "the former owner's data arrives, so memory is up to date and the block is shared (S)");
}

} // namespace

Protocol buildMsiDirectory()
{
    Protocol p;
    p.name = "msi-directory";
    p.title = "MSI directory protocol (Primer Tables 8.1/8.2)";
    p.summary = "Three stable cache states (M, S, I) tracked by a directory with a sharer list and an owner. "
                "A read of a block another cache holds in M is forwarded to the owner, which supplies the data to "
                "the reader and writes it back to memory.";
    p.whenToPick = "The baseline: fewest states, easiest to verify and explain. Every read miss followed by a write "
                   "costs two transactions (GetS then GetM), so pick MESI when private read-then-write data "
                   "dominates, and MOESI when dirty data is read by others often.";
    addBaseMessages(p);

    TableBuilder c(p, false);
    declareMsiCacheStates(c);
    addBaseCacheEvents(c);
    addSharedCacheRows(c);
    addMsiCacheMRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareMsiDirectory(d);
    addMsiDirectoryRows(d);
    p.directory = d.build("I");
    return p;
}

} // namespace coh::core::coherence
