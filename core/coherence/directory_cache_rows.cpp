// The cache-controller rows MSI, MESI and MOESI share: everything about I and S and the transient states on the
// way in and out of them (Sorin, Hill & Wood, A Primer on Memory Consistency and Cache Coherence, Table 8.1).
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

void addBaseMessages(Protocol& p)
{
    using V = VirtualNetwork;
    p.messages = {
        {"GetS", false, V::Request, "ask the directory for a read-only copy"},
        {"GetM", false, V::Request, "ask the directory for a writable copy"},
        {"PutS", false, V::Request, "tell the directory a read-only copy was dropped"},
        {"PutM", true, V::Request, "write a modified copy back to the directory"},
        {"Fwd-GetS", false, V::Forward, "the directory forwards a read request to the owner"},
        {"Fwd-GetM", false, V::Forward, "the directory forwards a write request to the owner"},
        {"Inv", false, V::Forward, "the directory tells a sharer to drop its copy and ack the requestor"},
        {"Put-Ack", false, V::Forward, "the directory acknowledges a Put"},
        {"Data", true, V::Response, "the block's data, with the number of Inv-Acks the requestor must collect"},
        {"Inv-Ack", false, V::Response, "a sharer confirms to the requestor that it dropped its copy"},
    };
    // The Primer's protocols rely on point-to-point order on the forward network only: an Inv or Fwd must not be
    // overtaken by a later Put-Ack to the same cache. Requests and responses may be reordered.
    p.ordered = {false, true, false};
}

void addBaseCacheEvents(TableBuilder& c)
{
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("Fwd-GetS", "Fwd-GetS");
    c.event("Fwd-GetM", "Fwd-GetM");
    c.event("Inv", "Inv");
    c.event("Put-Ack", "Put-Ack");
    c.event("Data(ack=0)", "Data", Guard::AckCountZero);
    c.event("Data(ack>0)", "Data", Guard::AckCountPositive);
    c.event("Inv-Ack", "Inv-Ack", Guard::NotLastAck);
    c.event("Last-Inv-Ack", "Inv-Ack", Guard::LastAck);
}

void addSharedCacheRows(TableBuilder& c)
{
    using namespace act;
    const Action getS = c.send("GetS", Target::Dir);
    const Action getM = c.send("GetM", Target::Dir);
    const Action invAck = c.send("Inv-Ack", Target::Requestor);

    // I
    c.on("I", "Load", {getS}, "IS^D", "{self} has no copy, so it asks the directory for a readable copy (GetS)");
    c.on("I", "Store", {getM}, "IM^AD",
         "{self} has no copy, so it asks the directory for a writable copy (GetM) and waits for the data and acks");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to evict");

    // IS^D
    c.stall({"IS^D", "IM^AD", "IM^A", "SI^A", "II^A"}, {"Load", "Store", "Evict"},
            "the cache is waiting for a transaction to finish; the processor op waits");
    c.stall({"IS^D"}, {"Inv"}, "an Inv overtook the Data answering the GetS; it waits until the data arrives");
    c.on("IS^D", "Data(ack=0)", {copyData, load}, "S",
         "the data arrives, so {self} performs its load and keeps a read-only copy (S)");

    // IM^AD and IM^A
    c.stall({"IM^AD", "IM^A"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory already made this cache the owner; the forwarded request waits until the store is done");
    c.on("IM^AD", "Data(ack=0)", {copyData, addAcks, store}, "M",
         "the data arrives and no acks are owed, so {self} performs its store and holds the block in M");
    c.on("IM^AD", "Data(ack>0)", {copyData, addAcks}, "IM^A",
         "the data arrives, but {self} must still collect invalidation acks before it may write");
    c.on("IM^AD", "Inv-Ack", {decAcks}, "",
         "an Inv-Ack overtook the data; {self} counts it (the count goes negative until the data says how many)");
    c.on("IM^A", "Inv-Ack", {decAcks}, "", "{self} counts one more invalidation ack; more are still owed");
    c.on("IM^A", "Last-Inv-Ack", {decAcks, store}, "M",
         "the last invalidation ack arrives, so no other cache can read the block: {self} stores and holds it in M");

    // S
    c.on("S", "Load", {load}, "", "{self} holds a readable copy, so the load hits without any message");
    c.on("S", "Store", {getM}, "SM^AD",
         "{self} may only read its copy, so it asks the directory for write permission (GetM) and keeps reading");
    c.on("S", "Evict", {c.send("PutS", Target::Dir)}, "SI^A",
         "{self} drops its read-only copy and tells the directory (PutS) so it leaves the sharer list");
    c.on("S", "Inv", {invAck}, "I",
         "{req} wants to write, so {self} invalidates its copy and acknowledges directly to {req}");

    // SM^AD and SM^A: still readable while the upgrade is in flight
    c.on({"SM^AD", "SM^A"}, "Load", {load}, "", "{self} still holds a readable copy while its upgrade is pending");
    c.stall({"SM^AD", "SM^A"}, {"Store", "Evict"}, "the upgrade is in flight; the processor op waits");
    c.stall({"SM^AD", "SM^A"}, {"Fwd-GetS", "Fwd-GetM"},
            "the directory already made this cache the owner; the forwarded request waits until the store is done");
    c.on("SM^AD", "Inv", {invAck}, "IM^AD",
         "{req}'s write was ordered before {self}'s upgrade, so {self} acks to {req}, loses its copy and now needs "
         "the data too");
    c.on("SM^AD", "Data(ack=0)", {copyData, addAcks, store}, "M",
         "the data arrives and no acks are owed, so {self} performs its store and holds the block in M");
    c.on("SM^AD", "Data(ack>0)", {copyData, addAcks}, "SM^A",
         "the data arrives, but {self} must still collect invalidation acks from the other sharers");
    c.on("SM^AD", "Inv-Ack", {decAcks}, "", "an Inv-Ack overtook the data; {self} counts it");
    c.on("SM^A", "Inv-Ack", {decAcks}, "", "{self} counts one more invalidation ack; more are still owed");
    c.on("SM^A", "Last-Inv-Ack", {decAcks, store}, "M",
         "the last invalidation ack arrives, so {self} performs its store and holds the block in M");

    // SI^A and II^A: waiting for the Put-Ack
    c.on("SI^A", "Inv", {invAck}, "II^A",
         "{req}'s write was ordered before {self}'s PutS; {self} acks the invalidation and keeps waiting for its "
         "Put-Ack");
    c.on({"SI^A", "II^A"}, "Put-Ack", {}, "I", "the directory acknowledged the eviction; {self} no longer holds it");
}

void addExclusiveMessages(Protocol& p)
{
    p.messages.push_back({"Exclusive-Data", true, VirtualNetwork::Response,
                          "the block's data, granted exclusively: no other cache holds it"});
    p.messages.push_back(
        {"PutE", false, VirtualNetwork::Request, "tell the directory a clean exclusive copy was dropped"});
}

void addMsiOwnerRows(TableBuilder& c)
{
    using namespace act;
    const Action dataToReq = c.send("Data", Target::Requestor, DataSource::Cache);
    c.on("M", "Load", {load}, "", "{self} holds the only copy, so the load hits");
    c.on("M", "Store", {store}, "", "{self} holds the only writable copy, so the store hits without any message");
    c.on("M", "Evict", {c.send("PutM", Target::Dir, DataSource::Cache)}, "MI^A",
         "{self} writes its modified copy back to the directory (PutM with data) and waits for the Put-Ack");
    c.on("M", "Fwd-GetM", {dataToReq}, "I",
         "{req} wants to write, so {self}, the owner, hands it the data and invalidates its own copy");
    c.stall({"MI^A"}, {"Load", "Store", "Evict"}, "the write-back is in flight; the processor op waits");
    c.on("MI^A", "Fwd-GetM", {dataToReq}, "II^A",
         "the directory ordered {req}'s write before {self}'s PutM; {self} hands over the data and waits for its "
         "Put-Ack");
    c.on("MI^A", "Put-Ack", {}, "I", "the directory took the write-back; {self} no longer holds the block");
}

void addMsiMemoryDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    const Action memData = d.send("Data", Target::Requestor, DataSource::Memory);
    d.on("I", "GetS", {memData, addReqToSharers}, "S",
         "{req} asks to read a block no cache holds, so the directory sends the data from memory and records {req} "
         "as a sharer");
    d.on("I", "GetM", {memData, setOwnerToReq}, "M",
         "{req} asks to write a block no cache holds, so the directory sends the data from memory and records {req} "
         "as the owner");
    d.on("S", "GetS", {memData, addReqToSharers}, "",
         "{req} asks to read; memory is up to date, so the directory sends the data and adds {req} to the sharers");
    d.on("S", "GetM",
         {d.send("Data", Target::Requestor, DataSource::Memory, AckSource::SharersExceptRequestor),
          d.send("Inv", Target::SharersExceptRequestor), clearSharers, setOwnerToReq},
         "M",
         "{req} asks to write: the directory sends the data from memory, invalidates the other sharers ({others}), "
         "tells {req} to expect {acks} Inv-Ack(s) and records {req} as the owner");
    d.on("S", "PutS-Last", {removeReqFromSharers, putAck}, "I",
         "{req} drops the last read-only copy, so no cache holds the block any more");
    d.on("M", "GetM", {d.send("Fwd-GetM", Target::Owner), setOwnerToReq}, "",
         "{req} asks to write a block {owner} holds in M, so the directory forwards the request to {owner} and "
         "records {req} as the new owner");
    d.on("M", "PutM-Owner", {writeMemory, clearOwner, putAck}, "I",
         "{req}, the owner, writes the block back: memory is up to date again and no cache holds it");
}

} // namespace coh::core::coherence
