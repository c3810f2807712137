// Unified memory (Grace Hopper NVLink-C2C / CXL.mem style): one physical copy at the home, no cached copies.
// A load asks the home for the current value; a store carries its value to the home, which writes memory and
// acknowledges. Both take effect at the home (their linearization point), so the data-value invariant is checked
// there: when the home serves a load, memory must hold the latest performed store.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

namespace {

void addCache(TableBuilder& c)
{
    using namespace act;
    c.state("I", true, Permission::None, false, "no copy, ever: every access goes to the home");
    c.state("IR^D", false, Permission::None, false, "sent Read, waiting for the value from the home");
    c.state("IW^A", false, Permission::None, false, "sent Write with the value, waiting for the home's Write-Ack");
    c.event("Load", ProcessorOp::Load);
    c.event("Store", ProcessorOp::Store);
    c.event("Evict", ProcessorOp::Evict);
    c.event("Read-Data", "Read-Data");
    c.event("Write-Ack", "Write-Ack");

    c.on("I", "Load", {c.send("Read", Target::Dir)}, "IR^D",
         "{self} keeps no copy, so every load asks the home for the current value (Read)");
    c.on("I", "Store", {c.send("Write", Target::Dir, DataSource::StoreValue)}, "IW^A",
         "{self} keeps no copy, so every store carries its value to the home (Write) and waits for the ack");
    c.on("I", "Evict", {}, "", "{self} holds no copy, so there is nothing to evict");
    c.stall({"IR^D", "IW^A"}, {"Load", "Store", "Evict"}, "an access is in flight to the home; the processor op waits");
    c.on("IR^D", "Read-Data", {completeLoad}, "I",
         "the value the home read arrives: {self}'s load completes with it and nothing is kept");
    c.on("IW^A", "Write-Ack", {completeStore}, "I",
         "the home wrote the value into memory: {self}'s store completes and nothing is kept");
}

void addDirectory(TableBuilder& d)
{
    using namespace act;
    d.state("I", true, Permission::None, false, "no cache holds the block: memory at the home holds the only copy");
    d.event("Read", "Read");
    d.event("Write", "Write");
    d.on("I", "Read", {loadAtHome, d.send("Read-Data", Target::Requestor, DataSource::Memory)}, "",
         "{req} reads: the load takes effect here, at the home, and the home answers with the value in memory");
    d.on("I", "Write", {storeAtHome, d.send("Write-Ack", Target::Requestor)}, "",
         "{req} writes: the home writes the carried value into memory, where the store takes effect, and acks");
}

} // namespace

Protocol buildUnifiedMemory()
{
    Protocol p;
    p.name = "unified-memory";
    p.title = "Unified memory: load/store at the home, no cached copies (Grace Hopper C2C / CXL.mem style)";
    p.summary = "Caches never keep a copy. A load sends Read to the home, which answers with the value in memory "
                "(Read-Data); a store sends the value to the home (Write), which writes memory and answers Write-Ack. "
                "There are no invalidations, forwards or write-backs: coherence is trivial because there is one "
                "copy, and every access pays a round trip to the home. Loads and stores take effect at the home.";
    p.whenToPick = "Pick it when accesses are rare or streaming, or the hardware offers cache-coherent load/store "
                   "to remote memory (NVLink-C2C, CXL.mem) and keeping a local copy is not worth the protocol: "
                   "nothing can go stale and the home never tracks anyone. Avoid it for data read over and over, "
                   "such as a KV cache during decode: every decode step re-reads the block across the link.";
    using V = VirtualNetwork;
    p.messages = {
        {"Read", false, V::Request, "ask the home for the block's current value"},
        {"Write", true, V::Request, "carry a store's value to the home"},
        {"Read-Data", true, V::Response, "the value the home read from memory"},
        {"Write-Ack", false, V::Response, "the home wrote the value into memory"},
    };
    p.ordered = {false, false, false}; // one request, one response: nothing relies on order

    TableBuilder c(p, false);
    addCache(c);
    p.cache = c.build("I");

    TableBuilder d(p, true);
    addDirectory(d);
    p.directory = d.build("I");
    return p;
}

} // namespace coh::core::coherence
