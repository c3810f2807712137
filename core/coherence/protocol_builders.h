#pragma once
// One builder per protocol table; the registry calls them once. Each lives in its own <name>.cpp.
#include "core/coherence/protocol_table.h"
#include "core/coherence/table_builder.h"

namespace coh::core::coherence {

Protocol buildMsiDirectory();
Protocol buildMesiDirectory();
Protocol buildMoesiDirectory();
Protocol buildMigratory();
Protocol buildUnifiedMemory();
Protocol buildMesiSnooping();
Protocol buildCxlAsymmetric();
Protocol buildSealedLease();
Protocol buildLazyCausal();
// Bug-hunt variant: on GetM the directory forgets to invalidate the sharers.
Protocol buildMsiDirectoryBrokenNoInv();

// Rows every directory protocol's cache shares (Primer Table 8.1 minus the M/E/O rows): I, IS^D, IM^AD, IM^A,
// S, SM^AD, SM^A, SI^A, II^A. The caller declares these states, the events Load, Store, Evict, Fwd-GetS,
// Fwd-GetM, Inv, Put-Ack, Data(ack=0), Data(ack>0), Inv-Ack, Last-Inv-Ack and the messages they use.
void addSharedCacheRows(TableBuilder& c);

// The message types and events of the Primer's MSI protocol that MESI and MOESI keep.
void addBaseMessages(Protocol& p);
void addBaseCacheEvents(TableBuilder& c);

} // namespace coh::core::coherence
