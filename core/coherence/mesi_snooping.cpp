// MESI snooping on an ordered bus (Illinois MESI). The home controller is the bus and memory: it orders one
// transaction at a time, broadcasts every bus request to all other caches, and supplies the data from memory unless
// a cache owns the block (E or M), in which case the owner flushes it. The bus keeps no sharer list: whether a read
// miss may take E is the shared line, the wired-OR of the other caches' copies sampled when the bus orders the
// BusRd (Guard::OtherCopy), so a copy dropped silently no longer counts. Every snooper answers the requestor, so
// each transaction costs one message per cache: the price of not keeping a directory.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IS^AD", false, P::None, false, "sent BusRd, waiting for the data and every snooper's answer");
    c.state("IS^A", false, P::None, true, "has shared data, waiting for the remaining snoop answers");
    c.state("IE^A", false, P::None, true, "has exclusive data, waiting for the remaining snoop answers");
    c.state("IM^AD", false, P::None, false, "sent BusRdX, waiting for the data and every snooper's answer");
    c.state("IM^A", false, P::None, true, "has the data, waiting for the remaining snoop answers");
    c.state("S", true, P::Read, true, "read-only copy; other caches may also hold one");
    c.state("SM^AD", false, P::Read, true, "readable copy, sent BusUpgr, waiting for the grant and the answers");
    c.state("SM^A", false, P::Read, true, "readable copy, granted, waiting for the remaining snoop answers");
    c.state("E", true, P::Read, true, "the only copy, clean; may become M without a bus transaction");
    c.state("M", true, P::ReadWrite, true, "the only copy, writable and possibly newer than memory");
    c.state("MI^A", false, P::None, true, "sent PutM with the data, waiting for Put-Ack (still flushes on snoops)");
    c.state("EI^A", false, P::None, true, "sent PutE, waiting for Put-Ack (still flushes on snoops)");
    c.state("II^A", false, P::None, false, "flushed the block to a snooped request while its Put was in flight");
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("Snoop-Rd", "Snoop-Rd");
    c.event("Snoop-RdX", "Snoop-RdX");
    c.event("Snoop-Upgr", "Snoop-Upgr");
    c.event("Data(ack=0)", "Data", Guard::AckCountZero);
    c.event("Data(ack>0)", "Data", Guard::AckCountPositive);
    c.event("Exclusive-Data(ack=0)", "Exclusive-Data", Guard::AckCountZero);
    c.event("Exclusive-Data(ack>0)", "Exclusive-Data", Guard::AckCountPositive);
    c.event("Flush(ack=0)", "Flush", Guard::AckCountZero);
    c.event("Flush(ack>0)", "Flush", Guard::AckCountPositive);
    c.event("Upgr-Ack(ack=0)", "Upgr-Ack", Guard::AckCountZero);
    c.event("Upgr-Ack(ack>0)", "Upgr-Ack", Guard::AckCountPositive);
    c.event("Snoop-Ack", "Snoop-Ack", Guard::NotLastAck);
    c.event("Last-Snoop-Ack", "Snoop-Ack", Guard::LastAck);
    c.event("Put-Ack", "Put-Ack");
}

void addRequestorRows(TableBuilder& c)
{
    using namespace act;
    const Action unblock = c.send("Unblock", Target::Dir);
    const char* waiting[] = {"IS^AD", "IS^A", "IE^A", "IM^AD", "IM^A", "SM^AD", "SM^A", "MI^A", "EI^A", "II^A"};
    for (const char* s : waiting)
        c.stall({s}, {"Store", "Evict"}, "a bus transaction is in flight; the processor op waits");
    c.stall({"IS^AD", "IS^A", "IE^A", "IM^AD", "IM^A", "MI^A", "EI^A", "II^A"}, {"Load"},
            "a bus transaction is in flight; the processor op waits");

    c.on("I", "Load", {c.send("BusRd", Target::Dir)}, "IS^AD",
         "{self} has no copy, so it puts a read (BusRd) on the bus; every other cache will snoop it");
    c.on("I", "Store", {c.send("BusRdX", Target::Dir)}, "IM^AD",
         "{self} has no copy, so it puts a read-for-ownership (BusRdX) on the bus; every other cache will snoop it");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to evict");

    // Reads: the data from memory (shared or exclusive) or from the owner's flush, plus one answer per snooper.
    const char* early = "a snoop answer overtook the data; {self} counts it (negative until the data says how many)";
    c.on({"IS^AD", "IM^AD", "SM^AD"}, "Snoop-Ack", {decAcks}, "", early);
    c.on("IS^AD", "Data(ack=0)", {copyData, addAcks, load, unblock}, "S",
         "another cache holds a copy, so memory's data comes shared; every snooper has answered: {self} loads, keeps "
         "a shared copy and frees the bus");
    c.on("IS^AD", "Data(ack>0)", {copyData, addAcks}, "IS^A",
         "memory's data arrives shared (another cache holds a copy); {self} still waits for snoop answers");
    c.on("IS^AD", "Flush(ack=0)", {copyData, addAcks, load, unblock}, "S",
         "the former owner's flush arrives and every snooper has answered: {self} loads, shares it and frees the bus");
    c.on("IS^AD", "Flush(ack>0)", {copyData, addAcks}, "IS^A",
         "the former owner flushed the data to {self}; it still waits for snoop answers");
    c.on("IS^AD", "Exclusive-Data(ack=0)", {copyData, addAcks, load, unblock}, "E",
         "no other cache holds the block: {self} loads, keeps it exclusive (E) and frees the bus");
    c.on("IS^AD", "Exclusive-Data(ack>0)", {copyData, addAcks}, "IE^A",
         "no other cache holds the block, so memory grants it exclusively; {self} still waits for snoop answers");
    c.on({"IS^A", "IE^A", "IM^A", "SM^A"}, "Snoop-Ack", {decAcks}, "", "{self} counts one more snoop answer");
    c.on("IS^A", "Last-Snoop-Ack", {decAcks, load, unblock}, "S",
         "the last snooper answered: {self} loads, keeps a shared copy and frees the bus");
    c.on("IE^A", "Last-Snoop-Ack", {decAcks, load, unblock}, "E",
         "the last snooper answered: {self} loads, keeps its exclusive copy (E) and frees the bus");

    // Writes: BusRdX from I, BusUpgr from S (which becomes a BusRdX at the bus if the copy was lost meanwhile).
    for (const char* data : {"Data", "Flush"}) {
        c.on("IM^AD", std::string(data) + "(ack=0)", {copyData, addAcks, store, unblock}, "M",
             "the data arrives and every other cache has dropped its copy: {self} stores (M) and frees the bus");
        c.on("IM^AD", std::string(data) + "(ack>0)", {copyData, addAcks}, "IM^A",
             "the data arrives; {self} still waits for the other caches to answer the snoop");
    }
    c.on("IM^A", "Last-Snoop-Ack", {decAcks, store, unblock}, "M",
         "the last snooper answered: no other copy remains, so {self} stores (M) and frees the bus");
    c.on("S", "Store", {c.send("BusUpgr", Target::Dir)}, "SM^AD",
         "{self} may only read its copy, so it asks the bus for an upgrade (BusUpgr): no data, just invalidations");
    c.on({"SM^AD", "SM^A"}, "Load", {load}, "", "{self} still holds a readable copy while its upgrade is pending");
    c.on("SM^AD", "Upgr-Ack(ack=0)", {addAcks, store, unblock}, "M",
         "the bus granted the upgrade and every other cache answered: {self} stores (M) and frees the bus");
    c.on("SM^AD", "Upgr-Ack(ack>0)", {addAcks}, "SM^A", "the bus granted the upgrade; {self} waits for the answers");
    c.on("SM^A", "Last-Snoop-Ack", {decAcks, store, unblock}, "M",
         "the last snooper dropped its copy: {self} stores (M) and frees the bus");
}

void addSnoopRows(TableBuilder& c)
{
    using namespace act;
    const Action ack = c.send("Snoop-Ack", Target::Requestor);
    const Action flushToReq = c.send("Flush", Target::Requestor, DataSource::Cache, AckSource::FromMessage);
    const Action flushToMem = c.send("Flush", Target::Dir, DataSource::Cache);

    // Snoops reach a waiting requestor only before its own request is ordered: the bus serves one transaction
    // at a time, and an earlier transaction needs this cache's answer to finish.
    c.on({"I", "IS^AD", "IM^AD", "II^A"}, "Snoop-Rd", {ack}, "", "{self} holds no copy; it answers the snoop");
    c.on({"I", "IS^AD", "IM^AD", "II^A"}, "Snoop-RdX", {ack}, "", "{self} holds no copy; it answers the snoop");
    c.on({"I", "IS^AD", "IM^AD", "II^A"}, "Snoop-Upgr", {ack}, "", "{self} holds no copy; it answers the snoop");
    c.on({"S", "SM^AD"}, "Snoop-Rd", {ack}, "", "{self} keeps its shared copy and answers the snoop");
    c.on("S", "Snoop-RdX", {ack}, "I", "{req} is about to write: {self} drops its shared copy and answers");
    c.on("S", "Snoop-Upgr", {ack}, "I", "{req} upgrades to write: {self} drops its shared copy and answers");
    c.on("SM^AD", "Snoop-RdX", {ack}, "IM^AD",
         "{req}'s write was ordered before {self}'s upgrade: {self} drops its copy, answers, and now needs the data");
    c.on("SM^AD", "Snoop-Upgr", {ack}, "IM^AD",
         "{req}'s upgrade was ordered before {self}'s: {self} drops its copy, answers, and now needs the data");

    c.on({"E", "M"}, "Load", {load}, "", "{self} holds the only copy, so the load hits");
    c.on("E", "Store", {store}, "M", "{self} holds the only copy, so it writes silently: E becomes M");
    c.on("M", "Store", {store}, "", "{self} holds the only writable copy, so the store hits without a bus transaction");
    c.on("S", "Load", {load}, "", "{self} holds a readable copy, so the load hits");
    c.on("S", "Evict", {}, "I",
         "{self} drops its clean shared copy silently: the bus keeps no sharer list, and from now on this cache no "
         "longer asserts the shared line");
    c.on("E", "Evict", {c.send("PutE", Target::Dir)}, "EI^A",
         "{self} drops its clean exclusive copy and tells the bus, which must supply the data from memory again");
    c.on("M", "Evict", {c.send("PutM", Target::Dir, DataSource::Cache)}, "MI^A",
         "{self} writes its modified copy back (PutM) and waits for the Put-Ack");
    c.on({"E", "M"}, "Snoop-Rd", {flushToReq, flushToMem, ack}, "S",
         "{req} reads a block {self} owns: {self} flushes the data to {req} and to memory, keeps a shared copy and "
         "answers");
    c.on({"E", "M"}, "Snoop-RdX", {flushToReq, ack}, "I",
         "{req} is about to write a block {self} owns: {self} flushes the data to {req}, drops its copy and answers");
    c.on({"MI^A", "EI^A"}, "Snoop-Rd", {flushToReq, flushToMem, ack}, "II^A",
         "the bus ordered {req}'s read before {self}'s Put: {self} still flushes the data, then waits for its Put-Ack");
    c.on({"MI^A", "EI^A"}, "Snoop-RdX", {flushToReq, ack}, "II^A",
         "the bus ordered {req}'s write before {self}'s Put: {self} flushes the data, then waits for its Put-Ack");
    c.on({"MI^A", "EI^A", "II^A"}, "Put-Ack", {}, "I", "the bus took the eviction; {self} no longer holds the block");
}

void declareBus(TableBuilder& d)
{
    // Named like the Primer's snooping memory controller (IorS): memory cannot tell I from S, since shared copies
    // are dropped silently, only whether a cache owns the block (E or M) and must flush it.
    d.state("IorS", true, Permission::None, false,
            "no cache owns the block; caches may hold shared copies, which the bus does not track");
    d.state("EorM", true, Permission::None, false, "one cache (the owner) holds it in E or M; it flushes on a snoop");
    d.state("IorS^U", false, Permission::None, false, "a read is being served; waiting for the requestor's Unblock");
    d.state("EorM^U", false, Permission::None, false, "a cache is becoming owner; waiting for its Unblock");
    d.state("IorS^DU", false, Permission::None, false,
            "the owner is flushing to a reader; waiting for the Flush and the Unblock");
    d.state("IorS^D", false, Permission::None, false, "the reader is done; waiting for the owner's Flush to memory");
    // The shared line is sampled when the bus orders the request: the copies held at that moment decide E or S.
    d.event("BusRd-Shared", "BusRd", Guard::OtherCopy);
    d.event("BusRd-Unshared", "BusRd", Guard::NoOtherCopy);
    d.event("BusRdX", "BusRdX");
    d.event("BusUpgr-Holder", "BusUpgr", Guard::RequestorHasCopy);
    d.event("BusUpgr-NonHolder", "BusUpgr", Guard::RequestorNoCopy);
    d.event("PutM-Owner", "PutM", Guard::FromOwner);
    d.event("PutM-NonOwner", "PutM", Guard::NotFromOwner);
    d.event("PutE-Owner", "PutE", Guard::FromOwner);
    d.event("PutE-NonOwner", "PutE", Guard::NotFromOwner);
    d.event("Flush", "Flush");
    d.event("Unblock", "Unblock");
}

void addBusRows(TableBuilder& d)
{
    using namespace act;
    const Action putAck = d.send("Put-Ack", Target::Requestor);
    const Action memData = d.send("Data", Target::Requestor, DataSource::Memory, AckSource::AllExceptRequestor);
    const Action snoopRd = d.send("Snoop-Rd", Target::AllExceptRequestor);
    const Action snoopRdX = d.send("Snoop-RdX", Target::AllExceptRequestor);
    const Action ownedRd =
        d.send("Snoop-Rd", Target::AllExceptRequestor, DataSource::None, AckSource::AllExceptRequestor);
    const Action ownedRdX =
        d.send("Snoop-RdX", Target::AllExceptRequestor, DataSource::None, AckSource::AllExceptRequestor);
    const char* rdx = "{req} wants to write: memory sends the data, every other cache snoops the BusRdX and drops its "
                      "copy, and {req} becomes the owner once it has all the answers";
    const char* ownedWrite = "{req} wants to write a block {owner} owns: every other cache snoops the request, the "
                             "owner flushes the data to {req}, and {req} becomes the owner";

    d.on("IorS", "BusRd-Unshared",
         {d.send("Exclusive-Data", Target::Requestor, DataSource::Memory, AckSource::AllExceptRequestor), snoopRd,
          setOwnerToReq},
         "EorM^U",
         "{req} reads a block no other cache holds (the shared line stays low): memory grants it exclusively (E), "
         "and every other cache still snoops the BusRd and answers");
    d.on("IorS", "BusRd-Shared", {memData, snoopRd}, "IorS^U",
         "{req} reads a block another cache holds (the shared line is asserted): memory supplies a shared copy, and "
         "every other cache snoops the BusRd and answers");
    d.on("IorS", "BusRdX", {memData, snoopRdX, setOwnerToReq}, "EorM^U", rdx);
    d.on("IorS", "BusUpgr-Holder",
         {d.send("Upgr-Ack", Target::Requestor, DataSource::None, AckSource::AllExceptRequestor),
          d.send("Snoop-Upgr", Target::AllExceptRequestor), setOwnerToReq},
         "EorM^U",
         "{req} upgrades its shared copy: no data moves, every other cache snoops the BusUpgr and drops its copy");
    d.on("IorS", "BusUpgr-NonHolder", {memData, snoopRdX, setOwnerToReq}, "EorM^U",
         "{req} lost its copy before its upgrade was ordered, so the bus serves it as a BusRdX from memory");
    // The owner's copy asserts the shared line, so a BusRd of an owned block is always BusRd-Shared, and only a
    // cache that lost its copy to the owner's write can still have an upgrade queued.
    d.on("EorM", "BusRd-Shared", {ownedRd, clearOwner}, "IorS^DU",
         "{req} reads a block {owner} owns: every other cache snoops the BusRd, and the owner flushes the data to "
         "{req} and to memory");
    d.on("EorM", "BusRdX", {ownedRdX, setOwnerToReq}, "EorM^U", ownedWrite);
    d.on("EorM", "BusUpgr-NonHolder", {ownedRdX, setOwnerToReq}, "EorM^U", ownedWrite);
    d.on("EorM", "PutM-Owner", {writeMemory, clearOwner, putAck}, "IorS",
         "{req}, the owner, writes the block back: memory is up to date and no cache holds it");
    d.on("EorM", "PutE-Owner", {clearOwner, putAck}, "IorS", "{req}, the owner, drops its clean copy");
    d.on({"IorS", "EorM"}, "PutM-NonOwner", {putAck}, "",
         "a stale PutM from {req}, which flushed the block to a snooped request first; the bus just acks it");
    d.on({"IorS", "EorM"}, "PutE-NonOwner", {putAck}, "",
         "a stale PutE from {req}, which flushed the block to a snooped request first; the bus just acks it");

    d.stall({"IorS^U", "EorM^U", "IorS^DU", "IorS^D"},
            {"BusRd-Shared", "BusRd-Unshared", "BusRdX", "BusUpgr-Holder", "BusUpgr-NonHolder", "PutM-Owner",
             "PutM-NonOwner", "PutE-Owner", "PutE-NonOwner"},
            "the bus serves one transaction at a time; the request waits until this one is done");
    d.on("IorS^U", "Unblock", {}, "IorS", "the reader has its data and every answer; the bus is free");
    d.on("EorM^U", "Unblock", {}, "EorM", "the new owner has its data and every answer; the bus is free");
    d.on("IorS^DU", "Flush", {writeMemory}, "IorS^U",
         "the former owner's flush updates memory; the reader is not done yet");
    d.on("IorS^DU", "Unblock", {}, "IorS^D",
         "the reader is done; the former owner's flush to memory is still on its way");
    d.on("IorS^D", "Flush", {writeMemory}, "IorS", "the former owner's flush updates memory; the bus is free");
}

} // namespace

Protocol buildMesiSnooping()
{
    Protocol p;
    p.name = "mesi-snooping";
    p.home = Home::Bus;
    p.title = "MESI snooping on an ordered bus (BusRd, BusRdX, BusUpgr, Flush)";
    p.summary = "No directory: the bus orders one transaction at a time and broadcasts each bus request (BusRd, "
                "BusRdX, BusUpgr) to every other cache, which snoops it and answers the requestor: a Snoop-Ack, "
                "and a Flush of the data from the owner (E or M). Memory supplies the data when no cache owns the "
                "block, exclusively (E) when no other cache holds a copy: the shared line, sampled from the caches' "
                "states when the bus orders the read, as in Illinois MESI. The bus keeps no sharer list, so shared "
                "copies are dropped silently; the requestor frees the bus with an Unblock once it has the data and "
                "every answer.";
    p.whenToPick = "Pick it for a handful of caches on a shared medium where a broadcast costs no more than a "
                   "message: no directory state and no indirection, since the owner answers the requestor "
                   "directly. Every transaction costs a snoop and an answer per cache, so traffic grows with the "
                   "number of caches; with more than a few, or over a switched fabric, a directory protocol "
                   "sends far less.";
    using V = VirtualNetwork;
    p.messages = {
        {"BusRd", false, V::Request, "a read put on the bus"},
        {"BusRdX", false, V::Request, "a read-for-ownership put on the bus"},
        {"BusUpgr", false, V::Request, "a sharer's request for write permission, without data"},
        {"PutM", true, V::Request, "write a modified copy back to memory"},
        {"PutE", false, V::Request, "tell the bus a clean exclusive copy was dropped"},
        {"Unblock", false, V::Request, "the requestor has its data and every answer: the bus is free"},
        {"Snoop-Rd", false, V::Forward, "the bus broadcasts a BusRd to every other cache"},
        {"Snoop-RdX", false, V::Forward, "the bus broadcasts a BusRdX to every other cache"},
        {"Snoop-Upgr", false, V::Forward, "the bus broadcasts a BusUpgr to every other cache"},
        {"Put-Ack", false, V::Forward, "the bus acknowledges a Put"},
        {"Data", true, V::Response, "memory's data, with the number of snoop answers to collect"},
        {"Exclusive-Data", true, V::Response, "memory's data, granted exclusively, with the answers to collect"},
        {"Upgr-Ack", false, V::Response, "the bus granted an upgrade, with the number of answers to collect"},
        {"Flush", true, V::Response, "the owner's data, to the requestor (with the answer count) or to memory"},
        {"Snoop-Ack", false, V::Response, "a snooper answers the requestor"},
    };
    // A bus delivers its broadcasts in one order: the forward network keeps point-to-point order.
    p.ordered = {false, true, false};

    TableBuilder c(p, false);
    declareCache(c);
    addRequestorRows(c);
    addSnoopRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareBus(d);
    addBusRows(d);
    p.directory = d.build("IorS");
    return p;
}

} // namespace coh::core::coherence
