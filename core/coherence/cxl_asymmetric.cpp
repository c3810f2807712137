// CXL.cache / CXL.mem style asymmetric coherence: the host's home agent keeps the directory and a per-block bias;
// the caches are device caching agents. In host bias every device miss goes to the host (RdShared, RdOwn), which
// snoops the other devices; data never moves device to device. A host grant of ownership puts the block in device
// bias: its owner then reads and writes with no message at all, until another device's access makes the host flip
// the bias back (BiasFlip-Req), and the owner writes its data back to the host (BiasFlip-Ack) and keeps a shared copy.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void declareCache(TableBuilder& c)
{
    using P = Permission;
    c.state("I", true, P::None, false, "no copy");
    c.state("IS^D", false, P::None, false, "sent RdShared, waiting for the host's data");
    c.state("IM^AD", false, P::None, false, "sent RdOwn, waiting for the data and the snoop responses");
    c.state("IM^A", false, P::None, true, "has the data, waiting for the remaining snoop responses (RspI)");
    c.state("S", true, P::Read, true, "host bias: read-only copy; other devices may also hold one");
    c.state("SM^AD", false, P::Read, true, "readable copy, sent RdOwn, waiting for the data and snoop responses");
    c.state("SM^A", false, P::Read, true, "readable copy, has the data, waiting for the remaining RspIs");
    c.state("D", true, P::ReadWrite, true,
            "device bias: the only copy, owned by this device, read and written "
            "without asking the host");
    c.state("DI^A", false, P::None, true, "sent DirtyEvict with the data, waiting for GO (still answers a flip)");
    c.state("SI^A", false, P::None, false, "sent CleanEvict (or flipped while evicting), waiting for GO");
    c.state("II^A", false, P::None, false, "snooped out while an eviction was in flight, waiting for GO");
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("SnpInv", "SnpInv");
    c.event("BiasFlip-Req", "BiasFlip-Req");
    c.event("GO", "GO");
    c.event("Data(ack=0)", "Data", Guard::AckCountZero);
    c.event("Data(ack>0)", "Data", Guard::AckCountPositive);
    c.event("RspI", "RspI", Guard::NotLastAck);
    c.event("Last-RspI", "RspI", Guard::LastAck);
}

void addMissRows(TableBuilder& c)
{
    using namespace act;
    const Action rdOwn = c.send("RdOwn", Target::Dir);
    const Action rspI = c.send("RspI", Target::Requestor);

    c.on("I", "Load", {c.send("RdShared", Target::Dir)}, "IS^D",
         "{self} has no copy, so it asks the host for a shared copy (RdShared)");
    c.on("I", "Store", {rdOwn}, "IM^AD",
         "{self} has no copy, so it asks the host for ownership (RdOwn) and waits for the data and snoop responses");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to evict");
    c.stall({"IS^D", "IM^AD", "IM^A", "DI^A", "SI^A", "II^A"}, {"Load", "Store", "Evict"},
            "a transaction with the host is in flight; the processor op waits");
    c.stall({"IS^D"}, {"SnpInv"}, "a SnpInv overtook the Data answering the RdShared; it waits for the data");
    c.on("IS^D", "Data(ack=0)", {copyData, load}, "S",
         "the host's data arrives, so {self} performs its load and keeps a shared copy (host bias)");

    c.stall({"IM^AD", "IM^A", "SM^AD", "SM^A"}, {"BiasFlip-Req"},
            "the host already gave this device the block in device bias; the flip waits until the store is done");
    c.on({"IM^AD", "SM^AD"}, "Data(ack=0)", {copyData, addAcks, store}, "D",
         "the data arrives and no snoop responses are owed: {self} stores and owns the block in device bias");
    c.on("IM^AD", "Data(ack>0)", {copyData, addAcks}, "IM^A",
         "the data arrives, but {self} must still collect the snoop responses (RspI) of the other devices");
    c.on("SM^AD", "Data(ack>0)", {copyData, addAcks}, "SM^A",
         "the data arrives, but {self} must still collect the snoop responses (RspI) of the other devices");
    c.on({"IM^AD", "IM^A", "SM^AD", "SM^A"}, "RspI", {decAcks}, "",
         "{self} counts one snoop response (the count goes negative while the data is still on its way)");
    c.on("IM^A", "Last-RspI", {decAcks, store}, "D",
         "the last snoop response arrives, so no other device holds the block: {self} stores, in device bias");
    c.on("SM^A", "Last-RspI", {decAcks, store}, "D",
         "the last snoop response arrives, so {self} performs its store and owns the block in device bias");

    c.on("S", "Load", {load}, "", "{self} holds a shared copy, so the load hits without any message");
    c.on("S", "Store", {rdOwn}, "SM^AD",
         "{self} may only read its copy, so it asks the host for ownership (RdOwn) and keeps reading");
    c.on("S", "Evict", {c.send("CleanEvict", Target::Dir)}, "SI^A",
         "{self} drops its shared copy and tells the host (CleanEvict) so it leaves the sharer list");
    c.on("S", "SnpInv", {rspI}, "I",
         "{req} asked the host for ownership, so {self} invalidates its copy and answers RspI to {req}");
    c.on({"SM^AD", "SM^A"}, "Load", {load}, "", "{self} still holds a readable copy while its RdOwn is pending");
    c.stall({"SM^AD", "SM^A"}, {"Store", "Evict"}, "the RdOwn is in flight; the processor op waits");
    c.on("SM^AD", "SnpInv", {rspI}, "IM^AD",
         "the host ordered {req}'s RdOwn before {self}'s, so {self} answers RspI, loses its copy and now needs the "
         "data too");
    c.on("SI^A", "SnpInv", {rspI}, "II^A",
         "the host ordered {req}'s RdOwn before {self}'s CleanEvict; {self} answers RspI and keeps waiting for GO");
}

void addDeviceBiasRows(TableBuilder& c)
{
    using namespace act;
    const Action flipAck = c.send("BiasFlip-Ack", Target::Dir, DataSource::Cache);
    c.on("D", "Load", {load}, "", "device bias: {self} owns the block, so the load hits without asking the host");
    c.on("D", "Store", {store}, "", "device bias: {self} owns the block, so the store hits without asking the host");
    c.on("D", "Evict", {c.send("DirtyEvict", Target::Dir, DataSource::Cache)}, "DI^A",
         "{self} writes its copy back to the host (DirtyEvict, a MemWr with data) and waits for GO");
    c.on("D", "BiasFlip-Req", {flipAck}, "S",
         "{req} accessed the block, so the host flips it back to host bias: {self} writes its data back to the host "
         "(BiasFlip-Ack) and keeps a shared copy");
    c.on("DI^A", "BiasFlip-Req", {flipAck}, "SI^A",
         "the host flipped the bias before {self}'s DirtyEvict arrived; {self} still has the data, so it writes it "
         "back with the BiasFlip-Ack and keeps waiting for GO");
    c.on({"DI^A", "SI^A", "II^A"}, "GO", {}, "I", "the host completed the eviction; {self} no longer holds the block");
}

void declareDirectory(TableBuilder& d)
{
    d.state("I", true, Permission::None, false, "host bias, no device holds the block; memory is up to date");
    d.state("S", true, Permission::None, false, "host bias, devices hold shared copies; memory is up to date");
    d.state("D", true, Permission::None, false,
            "device bias: one device (the owner) holds the block and accesses "
            "it without asking; memory may be stale");
    d.state("F^S", false, Permission::None, false,
            "flipping to host bias for a reader: waiting for the owner's "
            "BiasFlip-Ack");
    d.state("F^M", false, Permission::None, false,
            "flipping to host bias for a writer: waiting for the owner's "
            "BiasFlip-Ack");
    d.event("RdShared", "RdShared");
    d.event("RdOwn", "RdOwn");
    d.event("CleanEvict-NotLast", "CleanEvict", Guard::NotLastSharer);
    d.event("CleanEvict-Last", "CleanEvict", Guard::LastSharer);
    d.event("DirtyEvict-Owner", "DirtyEvict", Guard::FromOwner);
    d.event("DirtyEvict-Stale-NotLast", "DirtyEvict", Guard::NotFromOwner, Guard::NotLastSharer);
    d.event("DirtyEvict-Stale-Last", "DirtyEvict", Guard::NotFromOwner, Guard::LastSharer);
    d.event("BiasFlip-Ack", "BiasFlip-Ack");
}

void addDirectoryRows(TableBuilder& d)
{
    using namespace act;
    const Action go = d.send("GO", Target::Requestor);
    const Action memData = d.send("Data", Target::Requestor, DataSource::Memory);
    const Action grant = d.send("Data", Target::Requestor, DataSource::Memory, AckSource::SharersExceptRequestor);
    const Action snpInv = d.send("SnpInv", Target::SharersExceptRequestor);
    const Action flip = d.send("BiasFlip-Req", Target::Owner);
    const char* stale = "a stale eviction from {req}, which was already snooped out; the host completes it (GO)";

    d.on({"I", "S"}, "RdShared", {memData, addReqToSharers}, "S",
         "host bias: {req} asks to read, so the host sends the data from memory and records {req} as a sharer");
    d.on("I", "RdOwn", {memData, setOwnerToReq}, "D",
         "{req} asks for ownership of a block no device holds: the host sends the data and puts the block in "
         "device bias with {req} as its owner");
    d.on("S", "RdOwn", {grant, snpInv, clearSharers, setOwnerToReq}, "D",
         "{req} asks for ownership: the host sends the data, snoops out the other sharers ({others}), tells {req} to "
         "expect {acks} RspI(s) and puts the block in device bias with {req} as its owner");
    d.on("S", "CleanEvict-NotLast", {removeReqFromSharers, go}, "", "{req} drops its shared copy; others remain");
    d.on("S", "CleanEvict-Last", {removeReqFromSharers, go}, "I",
         "{req} drops the last shared copy, so no device holds the block");
    d.on("S", "DirtyEvict-Stale-NotLast", {removeReqFromSharers, go}, "",
         "a DirtyEvict from {req}, whose data already came back with a bias flip; it leaves the sharers (GO)");
    d.on("S", "DirtyEvict-Stale-Last", {removeReqFromSharers, go}, "I",
         "a DirtyEvict from {req}, the last sharer, whose data already came back with a bias flip (GO)");
    d.on({"I", "D"}, "CleanEvict-Last", {go}, "", stale);
    d.on({"I", "D"}, "DirtyEvict-Stale-Last", {go}, "", stale);

    d.on("D", "RdShared", {flip, addReqToSharers, addOwnerToSharers, clearOwner}, "F^S",
         "{req} reads a block {owner} holds in device bias, so the host flips it back to host bias: it sends "
         "BiasFlip-Req to {owner} and records both as sharers");
    d.on("D", "RdOwn", {flip, addOwnerToSharers, clearOwner}, "F^M",
         "{req} wants a block {owner} holds in device bias, so the host first flips it back to host bias "
         "(BiasFlip-Req to {owner})");
    d.on("D", "DirtyEvict-Owner", {writeMemory, clearOwner, go}, "I",
         "{req}, the owner, writes the block back (MemWr): memory is up to date and the block returns to host bias");
    d.stall({"F^S", "F^M"},
            {"RdShared", "RdOwn", "CleanEvict-NotLast", "CleanEvict-Last", "DirtyEvict-Owner",
             "DirtyEvict-Stale-NotLast", "DirtyEvict-Stale-Last"},
            "the host finishes the bias flip before it serves anything else");
    d.on("F^S", "BiasFlip-Ack", {writeMemory, memData}, "S",
         "the former owner's data arrives: memory is up to date, the block is in host bias and the host sends "
         "{req} the data, so both share it through the host");
    d.on("F^M", "BiasFlip-Ack", {writeMemory, grant, snpInv, clearSharers, setOwnerToReq}, "D",
         "the former owner's data arrives, back in host bias: the host sends it to {req}, snoops out the sharers "
         "({others}), tells {req} to expect {acks} RspI(s) and grants {req} device bias");
}

} // namespace

Protocol buildCxlAsymmetric()
{
    Protocol p;
    p.name = "cxl-asymmetric";
    p.title = "CXL.cache-style asymmetric protocol: host home agent with per-block host/device bias";
    p.summary = "The home is the host's home agent with the directory; the caches are device caching agents. In host "
                "bias every device miss asks the host (RdShared, RdOwn), which snoops the other devices (SnpInv); "
                "data always comes from the host, never device to device. A granted RdOwn puts the block in device "
                "bias: the owning device then loads and stores with no message. Any other device's access makes the "
                "host flip the block back to host bias: BiasFlip-Req to the owner, which writes back with "
                "BiasFlip-Ack and keeps a shared copy, and only then the host answers the requester.";
    p.whenToPick = "Pick it to model accelerators attached over CXL or another host-centred link, where peers cannot "
                   "talk to each other: a block one device writes and rereads (a decode tail) costs nothing once in "
                   "device bias, but every hand-over between devices pays a flip through the host, one hop more than "
                   "a directory protocol's cache-to-cache forward.";
    using V = VirtualNetwork;
    p.messages = {
        {"RdShared", false, V::Request, "a device asks the host for a shared copy"},
        {"RdOwn", false, V::Request, "a device asks the host for ownership (and the data)"},
        {"CleanEvict", false, V::Request, "a device drops its shared copy"},
        {"DirtyEvict", true, V::Request, "a device writes its owned block back to the host (MemWr)"},
        {"SnpInv", false, V::Forward, "the host tells a device to drop its copy and answer the requester"},
        {"BiasFlip-Req", false, V::Forward, "the host flips a device-bias block back to host bias"},
        {"GO", false, V::Forward, "the host completes an eviction (Global Observation)"},
        {"Data", true, V::Response, "the host's data (GO with data), with the number of RspIs to collect"},
        {"RspI", false, V::Response, "a snooped device confirms to the requester that it dropped its copy"},
        {"BiasFlip-Ack", true, V::Response, "the former owner writes its data back to the host during a flip"},
    };
    // As in the Primer's protocols: a SnpInv or BiasFlip-Req must not be overtaken by a later GO to the same device.
    p.ordered = {false, true, false};

    TableBuilder c(p, false);
    declareCache(c);
    addMissRows(c);
    addDeviceBiasRows(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    declareDirectory(d);
    addDirectoryRows(d);
    p.directory = d.build("I");
    return p;
}

} // namespace coh::core::coherence
