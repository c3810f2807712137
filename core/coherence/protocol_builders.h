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
Protocol buildMsiDirectoryBrokenLostAck();

// Rows every directory protocol's cache shares (Primer Table 8.1 minus the M/E/O rows): I, IS^D, IM^AD, IM^A,
// S, SM^AD, SM^A, SI^A, II^A. The caller declares these states, the events Load, Store, Evict, Fwd-GetS,
// Fwd-GetM, Inv, Put-Ack, Data(ack=0), Data(ack>0), Inv-Ack, Last-Inv-Ack and the messages they use.
void addSharedCacheRows(TableBuilder& c);

// Exclusive-Data and PutE, which MESI and MOESI add to the base messages.
void addExclusiveMessages(Protocol& p);

// What MSI and migratory share. Cache: M hits and eviction, a write forwarded to the owner and the write-back
// handshake (each adds its own answer to a forwarded read). Directory: serving from memory in I and S, a write
// to an M block and the owner's write-back (each adds its own M/GetS and stale-Put rows).
void addMsiOwnerRows(TableBuilder& c);
void addMsiMemoryDirectoryRows(TableBuilder& d);

// The message types and events of the Primer's MSI protocol that MESI and MOESI keep.
void addBaseMessages(Protocol& p);
void addBaseCacheEvents(TableBuilder& c);

} // namespace coh::core::coherence
