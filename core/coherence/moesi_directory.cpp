// MOESI directory protocol: MESI plus the Owned state (Primer section 8.5.2 style). A read of a dirty block moves
// the owner to O without writing memory back; the directory keeps forwarding requests to the owner.
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
    c.state("O", true, P::Read, true, "owner of a possibly dirty block that others share read-only; answers Fwds");
    c.state("OM^AC", false, P::Read, true, "owner, sent GetM to upgrade, waiting for the ack count");
    c.state("OM^A", false, P::Read, true, "owner, upgrade granted, waiting for the remaining invalidation acks");
    c.state("MI^A", false, P::None, true, "sent PutM with the data, waiting for Put-Ack (still answers Fwds)");
    c.state("EI^A", false, P::None, true, "sent PutE (no data: clean), waiting for Put-Ack (still answers Fwds)");
    c.state("OI^A", false, P::None, true, "sent a Put as owner, waiting for Put-Ack (still answers Fwds)");
    c.state("SI^A", false, P::None, false, "sent PutS, waiting for Put-Ack");
    c.state("II^A", false, P::None, false, "lost the block while a Put was in flight, waiting for Put-Ack");
    addBaseCacheEvents(c);
    c.event("Exclusive-Data", "Exclusive-Data");
    c.event("AckCount(ack=0)", "AckCount", Guard::AckCountZero);
    c.event("AckCount(ack>0)", "AckCount", Guard::AckCountPositive);
}

void addOwnerRows(TableBuilder& c)
{
    using namespace act;
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);
    // The directory put the requestor's ack count in the Fwd-GetM; the owner passes it on with the data.
    const Action dataAcksToReq = c.send("Data", Target::Requestor, DataSource::Cache, AckSource::FromMessage);
    const char* serveRead = "{req} wants to read, so {self} sends it the data and stays the owner (O): memory is not "
                            "updated";
    const char* handOver = "{req} wants to write, so {self}, the owner, hands it the data (with the ack count from "
                           "the directory) and invalidates its own copy";

    c.stall({"IS^D"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory may already have granted this cache the block exclusively; the forwarded request waits "
            "until the Exclusive-Data arrives");
    c.on("IS^D", "Exclusive-Data", {copyData, load}, "E",
         "no other cache holds the block, so {self} gets it exclusive and clean (E) and performs its load");
    c.on({"E", "M", "O", "OM^AC", "OM^A"}, "Load", {load}, "", "{self} holds a readable copy, so the load hits");
    c.on("E", "Store", {store}, "M",
         "{self} holds the only copy, so it writes without any message: a silent upgrade from E to M");
    c.on("M", "Store", {store}, "", "{self} holds the only writable copy, so the store hits without any message");
    c.on("O", "Store", {c.send("GetM", Target::Dir)}, "OM^AC",
         "{self} owns the data but others share it, so it asks the directory to invalidate them (GetM)");
    c.on("E", "Evict", {c.send("PutE", Target::Dir)}, "EI^A",
         "{self} drops its clean exclusive copy; memory is up to date, so PutE carries no data");
    c.on("M", "Evict", {c.send("PutM", Target::Dir, DataSource::Cache)}, "MI^A",
         "{self} writes its modified copy back to the directory (PutM with data) and waits for the Put-Ack");
    c.on("O", "Evict", {c.send("PutO", Target::Dir, DataSource::Cache)}, "OI^A",
         "{self} gives up ownership and writes the data back (PutO with data); the sharers keep their copies");
    c.on({"E", "M"}, "Fwd-GetS", {dataToReq}, "O", serveRead);
    c.on({"O", "OM^AC", "OI^A"}, "Fwd-GetS", {dataToReq}, "", serveRead);
    c.on({"E", "M", "O"}, "Fwd-GetM", {dataAcksToReq}, "I", handOver);

    c.stall({"OM^AC", "OM^A"}, {"Store", "Evict"}, "the upgrade is in flight; the processor op waits");
    c.on("OM^AC", "Fwd-GetM", {dataAcksToReq}, "IM^AD",
         "the directory ordered {req}'s write before {self}'s upgrade, so {self} hands over the data and now waits "
         "for the data itself");
    c.on("OM^AC", "AckCount(ack=0)", {addAcks, store}, "M",
         "the directory granted the upgrade and no acks are owed, so {self} performs its store and holds it in M");
    c.on("OM^AC", "AckCount(ack>0)", {addAcks}, "OM^A",
         "the directory granted the upgrade; {self} must collect invalidation acks from the sharers first");
    c.on("OM^AC", "Inv-Ack", {decAcks}, "", "an Inv-Ack overtook the ack count; {self} counts it");
    c.stall({"OM^A"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory already made this cache the owner in M; the forwarded request waits until the store");
    c.on("OM^A", "Inv-Ack", {decAcks}, "", "{self} counts one more invalidation ack; more are still owed");
    c.on("OM^A", "Last-Inv-Ack", {decAcks, store}, "M",
         "the last invalidation ack arrives, so {self} performs its store and holds the block in M");

    c.stall({"MI^A", "EI^A", "OI^A"}, {"Load", "Store", "Evict"}, "the eviction is in flight; the processor op waits");
    c.on({"MI^A", "EI^A"}, "Fwd-GetS", {dataToReq}, "OI^A",
         "the directory ordered {req}'s read before {self}'s Put, so {self} serves it and is now an owner whose Put "
         "is in flight");
    c.on({"MI^A", "EI^A", "OI^A"}, "Fwd-GetM", {dataAcksToReq}, "II^A",
         "the directory ordered {req}'s write before {self}'s Put; {self} hands over the data and waits for its "
         "Put-Ack");
    c.on({"MI^A", "EI^A", "OI^A"}, "Put-Ack", {}, "I",
         "the directory took the eviction; {self} no longer holds the block");
}

void declareDirectory(TableBuilder& d)
{
    d.state("I", true, Permission::None, false, "no cache holds the block; memory is up to date");
    d.state("S", true, Permission::None, false, "caches hold read-only copies; memory is up to date");
    d.state("E", true, Permission::None, false,
            "one cache (the owner) got it exclusive; it may have written it "
            "silently, so memory may be stale");
    d.state("O", true, Permission::None, false,
            "the owner holds a possibly dirty copy and answers requests; sharers "
            "hold read-only copies; memory may be stale");
    d.state("M", true, Permission::None, false, "one cache (the owner) holds the block in M; memory may be stale");
    d.event("GetS", "GetS");
    d.event("GetM-Owner", "GetM", Guard::FromOwner);
    d.event("GetM-NonOwner", "GetM", Guard::NotFromOwner);
    d.event("PutS-NotLast", "PutS", Guard::NotLastSharer);
    d.event("PutS-Last", "PutS", Guard::LastSharer);
    for (const char* put : {"PutM", "PutE", "PutO"}) {
        const std::string name = put;
        d.event(name + "-Owner", name, Guard::FromOwner, Guard::NoSharers);
        d.event(name + "-Owner+Sharers", name, Guard::FromOwner, Guard::HasSharers);
        d.event(name + "-NonOwner", name, Guard::NotFromOwner);
    }
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    const Action memData = d.send("Data", Target::Requestor, DataSource::Memory);
    const Action invOthers = d.send("Inv", Target::SharersExceptRequestor);
    const Action fwdGetM = d.send("Fwd-GetM", Target::Owner, DataSource::None, AckSource::SharersExceptRequestor);
    const char* staleS = "a stale PutS from {req}, whose copy was already invalidated; the directory just acks it";
    const char* stalePut = "a stale Put from {req}, which is no longer the owner; the directory just acks it";

    d.on("I", "GetS", {d.send("Exclusive-Data", Target::Requestor, DataSource::Memory), setOwnerToReq}, "E",
         "{req} asks to read a block no cache holds, so the directory grants it exclusively (E) from memory and "
         "records {req} as the owner");
    d.on("I", "GetM-NonOwner", {memData, setOwnerToReq}, "M",
         "{req} asks to write a block no cache holds, so the directory sends the data from memory and records {req} "
         "as the owner");
    d.on({"I", "E", "M"}, "PutS-Last", {putAck}, "", staleS);
    d.on({"I", "E", "M"}, "PutM-NonOwner", {putAck}, "", stalePut);
    d.on({"I", "E", "M"}, "PutE-NonOwner", {putAck}, "", stalePut);
    d.on({"I", "E", "M"}, "PutO-NonOwner", {putAck}, "", stalePut);

    d.on("S", "GetS", {memData, addReqToSharers}, "",
         "{req} asks to read; memory is up to date, so the directory sends the data and adds {req} to the sharers");
    d.on("S", "GetM-NonOwner",
         {d.send("Data", Target::Requestor, DataSource::Memory, AckSource::SharersExceptRequestor), invOthers,
          clearSharers, setOwnerToReq},
         "M",
         "{req} asks to write: the directory sends the data from memory, invalidates the other sharers ({others}), "
         "tells {req} to expect {acks} Inv-Ack(s) and records {req} as the owner");
    d.on({"S", "O"}, "PutS-NotLast", {removeReqFromSharers, putAck}, "",
         "{req} drops its read-only copy; other copies remain");
    d.on("S", "PutS-Last", {removeReqFromSharers, putAck}, "I",
         "{req} drops the last read-only copy, so no cache holds the block any more");
    d.on("O", "PutS-Last", {removeReqFromSharers, putAck}, "",
         "{req} drops the last read-only copy; the owner still holds the block");
    for (const char* put : {"PutM-NonOwner", "PutE-NonOwner", "PutO-NonOwner"})
        d.on({"S", "O"}, put, {removeReqFromSharers, putAck}, "",
             "a stale Put from {req}, which lost ownership before its Put arrived; the directory drops it from the "
             "sharers and acks");

    d.on({"E", "M"}, "GetS", {d.send("Fwd-GetS", Target::Owner), addReqToSharers}, "O",
         "{req} asks to read a block {owner} holds exclusively, so the directory forwards the request to {owner}, "
         "which stays the owner (O); memory is not updated");
    d.on("O", "GetS", {d.send("Fwd-GetS", Target::Owner), addReqToSharers}, "",
         "{req} asks to read; the owner {owner} holds the current data, so the directory forwards the request to it");
    d.on({"E", "M"}, "GetM-NonOwner", {fwdGetM, setOwnerToReq}, "M",
         "{req} asks to write a block {owner} holds exclusively, so the directory forwards the request to {owner} "
         "and records {req} as the new owner");
    d.on("O", "GetM-NonOwner", {fwdGetM, invOthers, clearSharers, setOwnerToReq}, "M",
         "{req} asks to write, so the directory forwards the request to the owner {owner} with the ack count "
         "({acks}), invalidates the other sharers ({others}) and records {req} as the owner");
    d.on("O", "GetM-Owner",
         {d.send("AckCount", Target::Requestor, DataSource::None, AckSource::SharersExceptRequestor), invOthers,
          clearSharers},
         "M",
         "the owner {req} already has the data and wants to write, so the directory invalidates the sharers "
         "({others}) and tells {req} to expect {acks} ack(s)");

    d.on({"E", "M"}, "PutM-Owner", {writeMemory, clearOwner, putAck}, "I",
         "{req}, the owner, writes the block back: memory is up to date again and no cache holds it");
    d.on("E", "PutE-Owner", {clearOwner, putAck}, "I",
         "{req}, the owner, drops its clean copy; memory was never stale, so nothing is written");
    d.on("O", "PutM-Owner", {writeMemory, clearOwner, putAck}, "I",
         "{req}, the owner, writes the block back and no sharer is left, so no cache holds it");
    d.on("O", "PutO-Owner", {writeMemory, clearOwner, putAck}, "I",
         "{req}, the owner, writes the block back and no sharer is left, so no cache holds it");
    d.on("O", "PutE-Owner", {clearOwner, putAck}, "I",
         "{req}, the owner of a clean block, drops it and no sharer is left; memory is up to date");
    d.on("O", "PutM-Owner+Sharers", {writeMemory, clearOwner, putAck}, "S",
         "{req}, the owner, writes the block back; memory is up to date and the sharers keep read-only copies");
    d.on("O", "PutO-Owner+Sharers", {writeMemory, clearOwner, putAck}, "S",
         "{req}, the owner, writes the block back; memory is up to date and the sharers keep read-only copies");
    d.on("O", "PutE-Owner+Sharers", {clearOwner, putAck}, "S",
         "{req}, the owner of a clean block, drops it; memory is up to date and the sharers keep their copies");
}

} // namespace

Protocol buildMoesiDirectory()
{
    Protocol p;
    p.name = "moesi-directory";
    p.title = "MOESI directory protocol (Primer section 8.5.2 style)";
    p.summary = "MESI plus O: when another cache reads a block held in M or E, the owner sends the data directly and "
                "keeps it as Owned, without writing memory back. The directory forwards later reads and writes to "
                "the owner; the owner writes back only when it evicts (PutO).";
    p.whenToPick = "Pick it when dirty data is read by other caches and later written again, and the link to memory "
                   "(the home) is the expensive one: the read costs one Data message instead of two, and memory "
                   "sees no write-back until the owner evicts. For KV blocks: a prefill instance that keeps "
                   "serving several decode readers of a sequence. It has the most states and transient races.";
    addBaseMessages(p);
    addExclusiveMessages(p);
    p.messages.push_back({"PutO", true, VirtualNetwork::Request,
                          "the owner writes its data back and gives up "
                          "ownership"});
    // On the ordered forward network, so an owner that upgrades (O to M) hears about the grant before any later
    // Fwd the directory sends it.
    p.messages.push_back({"AckCount", false, VirtualNetwork::Forward,
                          "the directory grants an owner's upgrade and says how many Inv-Acks to collect"});

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
