// model/placement.h - where a heap puts a request: one interface, one
// small strategy per placement policy.
//
// What it is for: a Realm memory's heap (range_allocator.h) keeps the
// allocated ranges and Realm's rules for splitting and swapping them; the
// Placement it owns keeps the free ranges and picks where each request
// goes.  The model memory (model_memory.h) runs Realm's deferral rules over
// three heaps of one policy, so replaying a run under another policy
// (replay/) changes where requests land and nothing else.
//
// Every placement sees the same calls in the same order: Take (a request
// of size > 0), Give (a range coming back, merged with free neighbours),
// and reads of the free ranges.  The policies:
//  - realm: Realm's own.  BasicRangeAllocator (Realm 25.03-25.06,
//    runtime/realm/mem_impl.inl) links every free range on a free list in
//    address order: deallocate(unsigned) walks back along the all-range
//    list to the nearest free range before the one it frees and links it
//    in right after that one (or merges with it), allocate carves an
//    alignment pad into its own free range in the freed range's place, and
//    split_range links pads the same way.  So the list is never in release
//    order.  allocate and can_allocate walk it from the head and take the
//    first range whose aligned start leaves room: first fit by address.
//  - best-fit: the shortest free range that takes the request (ties: the
//    lowest address); worst-fit: the longest (ties: the lowest address).
//  - next-fit: first fit starting at the free range that holds the end of
//    the last placement (or the first one after it), wrapping around to
//    the lowest address.
//  - size-classes: the design of Realm's SizedRangeAllocator (in Realm's
//    mem_impl.h/.inl, not used by any memory): free ranges binned by the
//    floor of log2 of their length, each bin a list with the range that
//    entered it last at its head; a request searches the bins from the
//    floor of log2 of its size upward and each bin from its head, and takes
//    the first range that holds it aligned; the pad before it and the tail
//    after it enter their bins' heads, pad first.  A freed range that
//    merges with a neighbour keeps the neighbour's place in its list while
//    the merged length stays in the same bin, and moves to the head of its
//    new bin otherwise (Realm's grow_hole).  The unsorted variant is the
//    one modelled (SizedRangeAllocator<..., SORTED=false>); Realm's own
//    split_range of that class adds a merged pad to its list twice, which
//    is a defect of unused code, not the design, and is not reproduced.
//  - compacting: an ideal allocator that moves live data.  It takes a
//    request whenever the free bytes hold it, alignment ignored; when no
//    free range is long enough the heap slides every allocation down to
//    offset 0 in address order (RangeAllocator::Allocate) and places after
//    them.  Its failures are exactly those where live bytes would exceed
//    the capacity: the lower bound every other policy is measured against.
//
// Cost: realm, next-fit and compacting O(log n) per call
// (internal/free_range_index.h); best-fit and worst-fit O(log n) (two
// ordered sets); size-classes walks a bin's list, as Realm's class does.
// A Placement is not thread-safe; copies are independent (Clone).
#ifndef REALM_SHADOW_MODEL_PLACEMENT_H_
#define REALM_SHADOW_MODEL_PLACEMENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

// Offset aligned up; alignment 0 or 1 means none.  Saturates at UINT64_MAX
// so that a huge alignment is a request that does not fit, not a wrap.
// Inline: every placement decision calls it.
inline uint64_t AlignUp(uint64_t offset, uint64_t alignment) {
  if (alignment <= 1) return offset;
  // Alignments are powers of two but for odd callers: a mask, not a
  // division (tens of cycles), for them.
  const uint64_t rem = (alignment & (alignment - 1)) == 0 ? offset & (alignment - 1)
                                                          : offset % alignment;
  if (rem == 0) return offset;
  const uint64_t add = alignment - rem;
  return offset > UINT64_MAX - add ? UINT64_MAX : offset + add;
}

// [first, last): last is one past the end.
struct AddressRange {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t size() const { return last - first; }
};

enum class PlacementPolicy : uint8_t {
  kRealm,
  kBestFit,
  kWorstFit,
  kNextFit,
  kSizeClasses,
  kCompacting,
};
inline constexpr PlacementPolicy kAllPlacementPolicies[] = {
    PlacementPolicy::kRealm,      PlacementPolicy::kBestFit,
    PlacementPolicy::kWorstFit,   PlacementPolicy::kNextFit,
    PlacementPolicy::kSizeClasses, PlacementPolicy::kCompacting};

// "realm", "best-fit", "worst-fit", "next-fit", "size-classes",
// "compacting".
const char* PlacementPolicyName(PlacementPolicy policy);
// The inverse; false for any other text.
bool ParsePlacementPolicy(const std::string& name, PlacementPolicy* policy);

class Placement {
 public:
  virtual ~Placement() = default;
  virtual PlacementPolicy policy() const = 0;
  virtual std::unique_ptr<Placement> Clone() const = 0;

  // Picks where a request of `size` > 0 bytes aligned to `alignment` goes
  // and takes [*offset, *offset + size) out of the free ranges; the pad
  // before it and the rest after it stay free.  False: no free range takes
  // it (compacting: none is long enough), and nothing changes.
  virtual bool Take(uint64_t size, uint64_t alignment, uint64_t* offset) = 0;
  // Would Take succeed now?  (compacting: do the free bytes hold it, i.e.
  // would it succeed after the heap compacts.)
  virtual bool CanTake(uint64_t size, uint64_t alignment) const = 0;
  // Makes [first, last) free, merged with the free ranges it touches.  It
  // must not overlap a free range.
  virtual void Give(uint64_t first, uint64_t last) = 0;
  // Forgets every free range (compacting: before the heap gives back the
  // one range left after the live data).
  virtual void Clear() = 0;

  // A hint, no change: a Give of [first, last) comes soon (a replay knows
  // its releases ahead); what that Give will read is fetched towards the
  // cache.
  virtual void PrefetchGive(uint64_t first, uint64_t last) const {
    (void)first;
    (void)last;
  }

  // Whether the heap compacts when Take fails but the free bytes hold the
  // request (compacting only).
  virtual bool MovesLiveData() const { return false; }

  virtual uint64_t LargestFree() const = 0;
  virtual size_t FreeRangeCount() const = 0;
  // The free ranges in address order.
  virtual void ForEachFreeRange(
      absl::FunctionRef<void(const AddressRange&)> fn) const = 0;
};

std::unique_ptr<Placement> MakePlacement(PlacementPolicy policy);

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_PLACEMENT_H_
