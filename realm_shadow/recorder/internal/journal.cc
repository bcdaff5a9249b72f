// The journal's rare paths: construction and waiting for room.
#include "realm_shadow/recorder/internal/journal.h"

#include <new>
#include <thread>

namespace realm_shadow {

MemoryJournal::MemoryJournal(size_t capacity, bool concurrent_writers)
    : concurrent_(concurrent_writers) {
  size_t cap = 64;
  while (cap < capacity && cap < (size_t{1} << 30)) cap <<= 1;
  mask_ = cap - 1;
  shift_ = 0;
  while ((size_t{1} << shift_) < cap) ++shift_;
  // Every stamp starts at lap 0, which no position uses.  The ring is
  // aligned to a cache line: `new Slot[cap]` gives only 16 bytes.
  Slot* slots = static_cast<Slot*>(
      ::operator new[](cap * sizeof(Slot), std::align_val_t{64}));
  for (size_t i = 0; i < cap; ++i) new (&slots[i]) Slot{0, 0, 0, 0, {0}};
  ring_.reset(slots);
  // Nothing consumed yet: the whole ring is room.
  room_end_ = cap;
}

void MemoryJournal::LineAlignedDelete::operator()(Slot* p) const {
  // Slots are trivially destructible (their atomic has nothing to release):
  // the storage goes back as it came.
  ::operator delete[](p, std::align_val_t{64});
}

void MemoryJournal::WaitForRoom(uint64_t position) {
  overflows_.fetch_add(1, std::memory_order_relaxed);
  for (unsigned attempt = 0;; ++attempt) {
    // Room when position - tail < capacity.
    if (position - tail_.load(std::memory_order_acquire) <= mask_) return;
    if (overflow_ != nullptr) overflow_(overflow_context_);
    if (position - tail_.load(std::memory_order_acquire) <= mask_) return;
    // A concurrent writer ahead of us has not committed yet, or another
    // consumer holds the memory: give it the core.
    if (attempt > 16) std::this_thread::yield();
  }
}

// The appends the inline Append does not finish, out of line so that its
// serialized fast path needs no stack frame: every concurrent one, and a
// serialized one that found no room as far as its writer knew.
void MemoryJournal::AppendOutOfLine(uint32_t type_code, uint64_t instance,
                                    uint64_t offset, uint64_t size,
                                    uint32_t aux) {
  const EventType type = static_cast<EventType>(type_code);
  if (!concurrent_) {
    AppendSerializedWhenFull(type, instance, offset, size, aux);
    return;
  }
  // ClaimConcurrent(1) written out, with the wait moved apart.
  // Relaxed: the claim only has to be unique; the stamp's release store
  // publishes the record.
  const uint64_t h = head_.fetch_add(1, std::memory_order_relaxed);
  // Acquire: pairs with Consume's release store of tail_, so the consumer's
  // reads of this slot's previous lap happen before our writes to it.
  if (__builtin_expect(h - tail_.load(std::memory_order_acquire) > mask_, 0)) {
    WaitAndWriteConcurrent(h, type, instance, offset, size, aux);
    return;
  }
  WriteAs<true>(h, type, instance, offset, size, aux);
}

void MemoryJournal::AppendSerializedWhenFull(EventType type,
                                             uint64_t instance,
                                             uint64_t offset, uint64_t size,
                                             uint32_t aux) {
  const uint64_t h = ClaimSerialized(1);
  WriteAs<false>(h, type, instance, offset, size, aux);
  // Release: a consumer that acquires head_ sees every field written.
  head_.store(h + 1, std::memory_order_release);
}

void MemoryJournal::WaitAndWriteConcurrent(uint64_t position, EventType type,
                                           uint64_t instance, uint64_t offset,
                                           uint64_t size, uint32_t aux) {
  WaitForRoom(position);
  WriteAs<true>(position, type, instance, offset, size, aux);
}

}  // namespace realm_shadow
