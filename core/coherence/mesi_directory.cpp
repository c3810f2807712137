// MESI directory protocol: the Primer's MSI plus the Exclusive state (Primer section 8.5.1, Tables 8.3/8.4 style).
// A read miss on a block no one caches is answered with Exclusive-Data; the cache may then write silently.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IS^D", false, P::None, false, "sent GetS, waiting for data (shared or exclusive)");
    c.state("IM^AD", false, P::None, false, "sent GetM, waiting for data and invalidation acks");
    c.state("IM^A", false, P::None, true, "has the data, waiting for the remaining invalidation acks");
    c.state("S", true, P::Read, true, "read-only copy; other caches may also hold one");
    c.state("SM^AD", false, P::Read, true, "readable copy, sent GetM to upgrade, waiting for data and acks");
    c.state("SM^A", false, P::Read, true, "readable copy, has the data, waiting for the remaining acks");
    c.state("E", true, P::Read, true, "the only copy, clean; may become M without asking anyone");
    c.state("M", true, P::ReadWrite, true, "the only copy, writable and possibly newer than memory");
    c.state("MI^A", false, P::None, true, "sent PutM with the data, waiting for Put-Ack (still answers Fwds)");
    c.state("EI^A", false, P::None, true, "sent PutE (no data: clean), waiting for Put-Ack (still answers Fwds)");
    c.state("SI^A", false, P::None, false, "sent PutS, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "lost the block while a Put was in flight, waiting for Put-Ack");
    addBaseCacheEvents(c);
    c.event("Exclusive-Data", "Exclusive-Data");
}

void addOwnerRows(TableBuilder& c)
{
    using namespace act;
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);
    const Action dataToDir = c.send("Data", Target::Dir, DataSource::Cache);

    c.stall({"IS^D"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory may already have granted this cache the block exclusively; the forwarded request waits "
            "until the Exclusive-Data arrives");
    c.on("IS^D", "Exclusive-Data", {copyData, load}, "E",
         "no other cache holds the block, so {self} gets it exclusive and clean (E) and performs its load");
    c.on({"E", "M"}, "Load", {load}, "", "{self} holds the only copy, so the load hits");
    c.on("E", "Store", {store}, "M",
         "{self} holds the only copy, so it writes without any message: a silent upgrade from E to M");
    c.on("M", "Store", {store}, "", "{self} holds the only writable copy, so the store hits without any message");
    c.on("E", "Evict", {c.send("PutE", Target::Dir)}, "EI^A",
         "{self} drops its clean exclusive copy; memory is up to date, so PutE carries no data");
    c.on("M", "Evict", {c.send("PutM", Target::Dir, DataSource::Cache)}, "MI^A",
         "{self} writes its modified copy back to the directory (PutM with data) and waits for the Put-Ack");
    c.on({"E", "M"}, "Fwd-GetS", {dataToReq, dataToDir}, "S",
         "{req} wants to read, so {self}, the owner, sends it the data and writes it back to the directory, keeping "
         "a read-only copy");
    c.on({"E", "M"}, "Fwd-GetM", {dataToReq}, "I",
         "{req} wants to write, so {self}, the owner, hands it the data and invalidates its own copy");

    c.stall({"MI^A", "EI^A"}, {"Load", "Store", "Evict"}, "the eviction is in flight; the processor op waits");
    c.on({"MI^A", "EI^A"}, "Fwd-GetS", {dataToReq, dataToDir}, "SI^A",
         "the directory ordered {req}'s read before {self}'s Put; {self} still has the data, so it serves the read "
         "and writes back, and keeps waiting for its Put-Ack");
    c.on({"MI^A", "EI^A"}, "Fwd-GetM", {dataToReq}, "II^A",
         "the directory ordered {req}'s write before {self}'s Put; {self} hands over the data and waits for its "
         "Put-Ack");
    c.on({"MI^A", "EI^A"}, "Put-Ack", {}, "I", "the directory took the eviction; {self} no longer holds the block");
}

void declareDirectory(TableBuilder& d)
{
    d.state("I", true, Permission::None, false, "no cache holds the block; memory is up to date");
    d.state("S", true, Permission::None, false, "caches hold read-only copies; memory is up to date");
    d.state("E", true, Permission::None, false,
            "one cache (the owner) got it exclusive; it may have written it "
            "silently, so memory may be stale");
    d.state("M", true, Permission::None, false, "one cache (the owner) holds the block in M; memory may be stale");
    d.state("S^D", false, Permission::None, false, "forwarded a GetS to the owner, waiting for its data");
    d.event("GetS", "GetS");
    d.event("GetM", "GetM");
    d.event("PutS-NotLast", "PutS", Guard::NotLastSharer);
    d.event("PutS-Last", "PutS", Guard::LastSharer);
    d.event("PutM-Owner", "PutM", Guard::FromOwner);
    d.event("PutM-NonOwner", "PutM", Guard::NotFromOwner);
    d.event("PutE-Owner", "PutE", Guard::FromOwner);
    d.event("PutE-NonOwner", "PutE", Guard::NotFromOwner);
    d.event("Data", "Data");
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    const Action memData = d.send("Data", Target::Requestor, DataSource::Memory);
    const char* staleS = "a stale PutS from {req}, whose copy was already invalidated; the directory just acks it";
    const char* stalePut = "a stale Put from {req}, which is no longer the owner; the directory just acks it";

    d.on("I", "GetS", {d.send("Exclusive-Data", Target::Requestor, DataSource::Memory), setOwnerToReq}, "E",
         "{req} asks to read a block no cache holds, so the directory grants it exclusively (E) from memory and "
         "records {req} as the owner");
    d.on("I", "GetM", {memData, setOwnerToReq}, "M",
         "{req} asks to write a block no cache holds, so the directory sends the data from memory and records {req} "
         "as the owner");
    d.on({"I", "E", "M"}, "PutS-Last", {putAck}, "", staleS);
    d.on({"I", "E", "M"}, "PutM-NonOwner", {putAck}, "", stalePut);
    d.on({"I", "E", "M"}, "PutE-NonOwner", {putAck}, "", stalePut);

    d.on("S", "GetS", {memData, addReqToSharers}, "",
         "{req} asks to read; memory is up to date, so the directory sends the data and adds {req} to the sharers");
    d.on("S", "GetM",
         {d.send("Data", Target::Requestor, DataSource::Memory, AckSource::SharersExceptRequestor),
          d.send("Inv", Target::SharersExceptRequestor), clearSharers, setOwnerToReq},
         "M",
         "{req} asks to write: the directory sends the data from memory, invalidates the other sharers ({others}), "
         "tells {req} to expect {acks} Inv-Ack(s) and records {req} as the owner");
    d.on({"S", "S^D"}, "PutS-NotLast", {removeReqFromSharers, putAck}, "",
         "{req} drops its read-only copy; other sharers remain");
    d.on("S", "PutS-Last", {removeReqFromSharers, putAck}, "I",
         "{req} drops the last read-only copy, so no cache holds the block any more");
    d.on({"S", "S^D"}, "PutM-NonOwner", {removeReqFromSharers, putAck}, "",
         "a stale PutM from {req}, which was downgraded to a sharer before its write-back arrived");
    d.on({"S", "S^D"}, "PutE-NonOwner", {removeReqFromSharers, putAck}, "",
         "a stale PutE from {req}, which was downgraded to a sharer before its eviction arrived");

    d.on({"E", "M"}, "GetS", {d.send("Fwd-GetS", Target::Owner), addReqToSharers, addOwnerToSharers, clearOwner}, "S^D",
         "{req} asks to read a block {owner} holds exclusively (perhaps already modified), so the directory forwards "
         "the request to the owner {owner} and records both as sharers");
    d.on({"E", "M"}, "GetM", {d.send("Fwd-GetM", Target::Owner), setOwnerToReq}, "M",
         "{req} asks to write a block {owner} holds exclusively, so the directory forwards the request to {owner} "
         "and records {req} as the new owner");
    d.on({"E", "M"}, "PutM-Owner", {writeMemory, clearOwner, putAck}, "I",
         "{req}, the owner, writes the block back: memory is up to date again and no cache holds it");
    d.on("E", "PutE-Owner", {clearOwner, putAck}, "I",
         "{req}, the owner, drops its clean copy; memory was never stale, so nothing is written");

    d.stall({"S^D"}, {"GetS", "GetM"}, "the directory waits for the former owner's data before serving new requests");
    d.on("S^D", "PutS-Last", {removeReqFromSharers, putAck}, "",
         "{req} drops its copy while the directory waits for the former owner's data");
    d.on("S^D", "Data", {writeMemory}, "S",
         "the former owner's data arrives, so memory is up to date and the block is shared (S)");
}

} // namespace

Protocol buildMesiDirectory()
{
    Protocol p;
    p.name = "mesi-directory";
    p.title = "MESI directory protocol (Primer section 8.5.1)";
    p.summary = "MSI plus E: a read miss on a block no other cache holds returns Exclusive-Data, and the cache may "
                "later write it with no message (silent E to M upgrade). Clean exclusive copies are evicted with a "
                "data-less PutE.";
    p.whenToPick = "Pick it when most blocks are private (read, then written by the same cache): the write after "
                   "the read costs nothing. For KV blocks, a decode instance that reads a sequence and appends to it "
                   "is exactly that pattern. It costs one more state and forces the directory to forward reads of "
                   "E blocks to the owner, since the owner may have written silently.";
    addBaseMessages(p);
    addExclusiveMessages(p);

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
