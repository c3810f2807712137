// A deliberately broken MSI for bug hunting: a sharer that receives an Inv drops its copy but never sends the
// Inv-Ack, so the writer that asked for the block waits for an ack that will not come. Nothing unsafe ever
// happens, which is the point: the explorer must find the deadlock (a liveness bug), not an invariant.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

Protocol buildMsiDirectoryBrokenLostAck()
{
    Protocol p = buildMsiDirectory();
    p.name = "msi-directory-broken-lostack";
    p.title = "MSI directory protocol with a planted bug: a lost Inv-Ack (bug hunt)";
    p.summary = "The MSI protocol with one wrong cache entry: (S, Inv) drops the copy without acknowledging, so a "
                "writer that must collect the sharers' Inv-Acks waits forever.";
    p.whenToPick = "Never for real use. It shows that a lost acknowledgement is a liveness bug: every safety "
                   "invariant holds, and `cohsim verify` reports the deadlock with the shortest trace to it.";
    p.bugHunt = true;

    TableBuilder c(p, p.cache);
    c.replace("S", "Inv", {}, "I",
              "BUG: the directory asks {self} to drop its copy for {req}; {self} drops it but never sends the "
              "Inv-Ack {req} is counting on");
    p.cache = c.build("I");
    return p;
}

} // namespace coh::core::coherence
