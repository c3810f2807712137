// A deliberately broken MSI for bug hunting: on a GetM in S the directory grants ownership but forgets to
// invalidate the sharers (and tells the requestor no acks are owed). The explorer must find the resulting
// SWMR / data-value violation; the lab shows it step by step.
#include "core/coherence/protocol_builders.h"

namespace coh::core::coherence {

Protocol buildMsiDirectoryBrokenNoInv()
{
    Protocol p = buildMsiDirectory();
    p.name = "msi-directory-broken-noinv";
    p.title = "MSI directory protocol with a planted bug: no Inv on GetM (bug hunt)";
    p.summary = "The MSI protocol with one wrong directory entry: (S, GetM) sends the data and makes the requestor "
                "the owner without invalidating the other sharers.";
    p.whenToPick = "Never for real use. It exists to show what a coherence bug looks like and that `cohsim verify` "
                   "finds it with the shortest counterexample.";
    p.bugHunt = true;

    TableBuilder d(p, p.directory);
    d.replace("S", "GetM",
              {d.send("Data", Target::Requestor, DataSource::Memory), act::clearSharers, act::setOwnerToReq}, "M",
              "BUG: {req} asks to write; the directory sends the data and records {req} as the owner but forgets to "
              "invalidate the other sharers ({others})");
    p.directory = d.build("I");
    return p;
}

} // namespace coh::core::coherence
