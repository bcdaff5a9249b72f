// realm_shadow/recorder/identity_table.h - identities interned once into the
// 32-bit id that events carry.
//
// Layer recorder.  Interning is off the allocation path (legion_glue calls
// it where Legion creates an instance); the hot path only ever carries the
// id.  Equal identities get equal ids; ids start at 1 and are never given
// out twice.
//
// Lifetime: an identity stays while anything refers to it (a live
// allocation, a pending request or a recent failure of any tracked memory,
// or an id a root source lists: legion_glue's pool table), and in any case
// until the collection after the one that follows its last InternIdentity.
// Past that, the table forgets it, so that a long run that interns one
// identity per task (Legion's creator "task stencil (UID 812)") holds only
// the ones in use, not every one ever made.  A caller that keeps an id
// without attaching it for that long must intern again (an equal
// description gets a fresh id).  A collection runs inside InternIdentity
// when the table has doubled since the last one (4096 at first): it drains
// every journal (so that attach records already appended are counted) and
// gathers what the shadow maps and the roots refer to.  Amortized O(1) per
// interned identity; the one call that collects pays O(table + backlog).
// Ids are 32 bits: past 2^32 - 1 interned ones, InternIdentity returns 0.
#ifndef REALM_SHADOW_RECORDER_IDENTITY_TABLE_H_
#define REALM_SHADOW_RECORDER_IDENTITY_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "realm_shadow/core/identity.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(recorder);

// Interns an identity (thread-safe; a hash lookup, and a copy the first
// time).  0 only once 2^32 - 1 ids have been given out.
uint32_t InternIdentity(const Identity& identity);
// The identity with this id; false if there is none (any more).
bool LookupIdentity(uint32_t id, Identity* out);
// The kind of an interned identity, kUnknown if there is none.  Lock-free
// for the first 16M ids (1 byte each, kept after collection).
AllocationKind IdentityKind(uint32_t id);

// Identities in the table now.
size_t IdentityCount();
// Adds a source of ids to keep besides the shadow maps' (at most 8
// sources; the same one twice is one).  It is called during collections,
// from the interning thread, with no lock of the table held.
void AddIdentityRoots(void (*append)(std::vector<uint32_t>* out));
// Runs a collection now (tests and benchmarks; InternIdentity runs them on
// its own).
void CollectIdentitiesNow();

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RECORDER_IDENTITY_TABLE_H_
