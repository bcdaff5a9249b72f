// realm_shadow/recorder/internal/journal.h - the per-memory event journal: the whole
// hot path of realm-shadow.
//
// What it is for: an allocator reports an event by appending one 32-byte
// record here, and that is all it pays.  Everything that costs more (keeping
// the interval map sorted, counting holes, interning names) is done later by
// the consumer, which applies the records to the ShadowMap in journal order.
// The obvious alternative, a mutex plus a std::map updated by the allocator
// (RMM's tracking adaptor, Kokkos Tools, Umpire), costs 550 ns per insert at
// 100k keys plus the lock; this costs a handful of stores.
//
// Guarantees
//  - Ordering: records are consumed exactly in append order.  A consumer
//    applies a prefix of the journal, never a record whose predecessors are
//    not yet readable, so every picture taken is "the state after the first N
//    events" for some N (the sequence number).
//  - No loss, bounded memory: capacity is a power of two fixed at creation.
//    When the journal is full the writer calls the overflow handler, which
//    applies the backlog (or waits for a consumer that is applying it), and
//    then appends.  Nothing is dropped.
//  - Cost (serialized mode): one relaxed load, a compare with the end of
//    the room the writer last saw, five plain stores (the fields and the
//    event type) and one release store: 24.5 instructions per event hook
//    and 26.5-27 per heap hook under callgrind, with the call
//    (scripts/check-instructions, -O2 and -O3).  No read-modify-write, no
//    lock, no syscall, no allocation, no virtual call.
//  - Cost (concurrent mode): one relaxed fetch_add to claim a slot (7.4 ns
//    uncontended, 15.4 ns with two writers on one line on the reference
//    machine), the stores, and one release store of the slot's stamp: 47
//    instructions per hook under callgrind, with the calls.
//  - A consumer never makes a writer wait, except when the journal is full:
//    then the writer waits for at most one consumer batch (kConsumeBatch
//    records) or applies the backlog itself.
//
// Serialized mode relies on the caller: successive appends must be ordered
// by a happens-before edge (Realm's allocator mutex).  Concurrent mode needs
// nothing from the caller.
#ifndef REALM_SHADOW_RECORDER_INTERNAL_JOURNAL_H_
#define REALM_SHADOW_RECORDER_INTERNAL_JOURNAL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "realm_shadow/core/event.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(recorder);

class MemoryJournal {
 public:
  // Called by a writer that finds the journal full; must make room (apply
  // records and advance the tail) or return once another consumer has.
  using OverflowHandler = void (*)(void* context);

  // capacity is rounded up to a power of two, at least 64.
  MemoryJournal(size_t capacity, bool concurrent_writers);
  MemoryJournal(const MemoryJournal&) = delete;
  MemoryJournal& operator=(const MemoryJournal&) = delete;

  // Once, before the journal is shared with any writer (the registry sets
  // it before it publishes the memory): the handler is read-only after.
  void SetOverflowHandler(OverflowHandler handler, void* context) {
    overflow_ = handler;
    overflow_context_ = context;
  }

  // ---- writer side (hot path) --------------------------------------------

  // Appends one record.  Inline so that the hook's only cost is this body.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  inline void Append(EventType type, uint64_t instance, uint64_t offset,
                     uint64_t size, uint32_t aux);

  // Appends a group header (IsGroupHeader(header); its aux is `count`) and
  // the `count` records record_at(i) returns (an Event, i = 0..count-1, in
  // order) as one contiguous run: a consumer applies all of them or none.
  // count + 1 must not exceed capacity(): a larger group could never be
  // readable at once, so the recorder applies it directly (ClaimPlaceholder).
  template <typename RecordAt>
  void AppendGroup(EventType header, uint64_t header_instance, uint32_t count,
                   RecordAt record_at);

  // The direct path, for a group larger than the journal.  ClaimPlaceholder
  // takes the next slot without publishing it, so every consumer stops in
  // front of it; once the records before it are consumed, the caller (who
  // holds the consumer side) applies the group itself and then publishes
  // the placeholder as a kNoop record, which consumers count and skip.  The
  // group keeps its place in the memory's order.
  uint64_t ClaimPlaceholder();
  void PublishPlaceholder(uint64_t position);

  // ---- consumer side (callers serialize consumers among themselves) -------

  // Applies every readable record, in order, to sink(const Event&), and
  // frees their slots.  Returns the number applied.  Stops before a group
  // that is not yet complete.
  template <typename Sink>
  size_t Consume(Sink&& sink);

  // Events appended so far: an acquire load of the writers' count (in a
  // concurrent journal, of their claims, which may include records still
  // being written).
  uint64_t appended() const { return head_.load(std::memory_order_acquire); }
  // Events consumed so far: the sequence number of the consumer's picture.
  // The caller is the consumer (holds the consumer side).
  uint64_t consumed() const { return consumed_; }
  // The same, from any thread: the consumer's last published tail (at most
  // kConsumeBatch behind during a drain, exact between drains).
  uint64_t consumed_estimate() const {
    return tail_.load(std::memory_order_acquire);
  }
  size_t capacity() const { return mask_ + 1; }
  bool concurrent() const { return concurrent_; }
  uint64_t overflow_count() const {
    return overflows_.load(std::memory_order_relaxed);
  }

  // Records freed per tail update: writers waiting on a full journal wait for
  // at most this many applications (about 256 x 250 ns = 64 us).
  static constexpr size_t kConsumeBatch = 256;

 private:
  // Every append that is not the serialized fast path: a concurrent
  // journal's, and a serialized one's that found no room as far as the
  // writer knew.  One function, so the inline Append has one cold call.
  // The type comes as the stamp's 32-bit code, the very value the fast path
  // stores: given the 8-bit EventType, g++ -O3 computed a type that is not
  // a constant (realm_shadow_heap_placed's) twice, once widened for the
  // stamp and once for the call (35 instructions in that hook, 29 at -O2).
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  void AppendOutOfLine(uint32_t type_code, uint64_t instance, uint64_t offset,
                       uint64_t size, uint32_t aux);
  // The two paths that may wait, apart from AppendOutOfLine so that the
  // common concurrent append calls nothing and needs no stack frame (a call
  // that may happen makes g++ save six registers on every path): a
  // serialized append that found no room, and a concurrent one whose
  // claimed slot (position) was not free yet.
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  void AppendSerializedWhenFull(EventType type, uint64_t instance,
                                uint64_t offset, uint64_t size, uint32_t aux);
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  void WaitAndWriteConcurrent(uint64_t position, EventType type,
                              uint64_t instance, uint64_t offset,
                              uint64_t size, uint32_t aux);
  uint64_t ClaimSerialized(uint32_t count);
  uint64_t ClaimConcurrent(uint32_t count);
  void WaitForRoom(uint64_t position);
  // Writes a record's fields and stamp at position, in the journal's mode
  // (WriteAs: in the mode given, where the caller knows it).
  void Write(uint64_t position, EventType type, uint64_t instance,
             uint64_t offset, uint64_t size, uint32_t aux);
  template <bool kConcurrent>
  void WriteAs(uint64_t position, EventType type, uint64_t instance,
               uint64_t offset, uint64_t size, uint32_t aux);
  void Publish(uint64_t first, uint32_t count);
  uint32_t Stamp(uint64_t position, EventType type) const {
    // The lap (position / capacity + 1) marks a slot as written for this
    // pass; 24 bits of lap are enough because a consumer never lags by more
    // than one lap.
    return (static_cast<uint32_t>((position >> shift_) + 1) << 8) |
           static_cast<uint32_t>(type);
  }

  // Writer line.  head_ is the next position to claim (concurrent) or to
  // publish (serialized).  room_end_ is the first position the serialized
  // writer may not write without reading tail_ again: tail_ as it last read
  // it, plus the capacity.  Kept as that sum, not as the tail, so the fast
  // path's room test is one compare with head (h < room_end_) instead of
  // h - tail > mask (a copy and a subtraction).  Guarded by the caller's
  // serialization; unused in a concurrent journal.
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t room_end_ = 0;

  // Consumer line.  tail_ is the first slot not yet freed.
  alignas(64) std::atomic<uint64_t> tail_{0};
  uint64_t consumed_ = 0;

  // A slot is an EventRecord whose stamp is atomic (same layout, 32 bytes).
  struct Slot {
    uint64_t instance;
    uint64_t offset;
    uint64_t size;
    uint32_t aux;
    std::atomic<uint32_t> stamp;
  };
  static_assert(sizeof(Slot) == sizeof(EventRecord), "32-byte slots");
  // The ring starts on a 64-byte line, so that slot 2k and 2k + 1 share one
  // line and no slot straddles two.
  struct LineAlignedDelete {
    void operator()(Slot* p) const;
  };

  // Read-only once the journal is shared: the ring and its geometry set by
  // the constructor, the handler by SetOverflowHandler before publication.
  alignas(64) std::unique_ptr<Slot[], LineAlignedDelete> ring_;
  uint64_t mask_;
  unsigned shift_;
  bool concurrent_;
  OverflowHandler overflow_ = nullptr;
  void* overflow_context_ = nullptr;

  // Counted by writers that find the journal full (the rare path).
  std::atomic<uint64_t> overflows_{0};

 public:
  // Where the ring starts (tests check its alignment).
  const void* ring_address() const { return ring_.get(); }
};

// ---------------------------------------------------------------------------
// Inline implementation.

template <bool kConcurrent>
inline void MemoryJournal::WriteAs(uint64_t position, EventType type,
                                   uint64_t instance, uint64_t offset,
                                   uint64_t size, uint32_t aux) {
  Slot& r = ring_[position & mask_];
  r.instance = instance;
  r.offset = offset;
  r.size = size;
  r.aux = aux;
  // Concurrent: release, so the consumer that acquires this stamp sees the
  // four fields.  Serialized: relaxed (a plain mov); head_'s release store
  // in Publish orders it.  Two stores with constant orders: a run-time
  // order would make g++ emit a sequentially consistent xchg.
  if (kConcurrent)
    r.stamp.store(Stamp(position, type), std::memory_order_release);
  else
    r.stamp.store(Stamp(position, type), std::memory_order_relaxed);
}

inline void MemoryJournal::Write(uint64_t position, EventType type,
                                 uint64_t instance, uint64_t offset,
                                 uint64_t size, uint32_t aux) {
  if (concurrent_)
    WriteAs<true>(position, type, instance, offset, size, aux);
  else
    WriteAs<false>(position, type, instance, offset, size, aux);
}

inline uint64_t MemoryJournal::ClaimSerialized(uint32_t count) {
  // Relaxed: the caller's serialization (Realm's allocator mutex) already
  // orders this load after the previous writer's store.
  const uint64_t h = head_.load(std::memory_order_relaxed);
  // Positions are 64-bit counts: they do not wrap (584 years at 10^9
  // events a second), so plain compares are exact.
  if (h + count > room_end_) {
    // Rare: refresh the view of the consumer, and make room if still full.
    // Acquire: pairs with Consume's release store of tail_, so the
    // consumer's reads of the freed slots happen before our writes to them.
    room_end_ = tail_.load(std::memory_order_acquire) + mask_ + 1;
    if (h + count > room_end_) {
      WaitForRoom(h + count - 1);
      // Acquire: as above.
      room_end_ = tail_.load(std::memory_order_acquire) + mask_ + 1;
    }
  }
  return h;
}

inline uint64_t MemoryJournal::ClaimConcurrent(uint32_t count) {
  // Relaxed: the claim only has to be unique; the stamp's release store
  // publishes the record.
  const uint64_t h = head_.fetch_add(count, std::memory_order_relaxed);
  const uint64_t last = h + count - 1;
  if (last - tail_.load(std::memory_order_acquire) > mask_) WaitForRoom(last);
  return h;
}

inline void MemoryJournal::Publish(uint64_t first, uint32_t count) {
  if (!concurrent_) {
    // Release: a consumer that acquires head_ sees every field written.
    head_.store(first + count, std::memory_order_release);
  }
}

inline void MemoryJournal::Append(EventType type, uint64_t instance,
                                  uint64_t offset, uint64_t size,
                                  uint32_t aux) {
  // The serialized path, written out: one branch on the mode, one compare
  // and branch on room, four plain stores, the type, and head_'s release
  // store (x86-64, g++ 12: 2 instructions for the mode, 3 for room, 5 for
  // the slot and the next head, 6 stores).  The consumer reads only the type
  // from a serialized stamp (head_ already says which slots are written),
  // so no lap is computed here.  The mode keeps a test of its own: folded
  // into room_end_ (0 in a concurrent journal) it would save the test but
  // make a concurrent writer read head_'s line before its fetch_add, two
  // transfers of a contended line instead of one.
  const uint32_t type_code = static_cast<uint32_t>(type);
  if (__builtin_expect(!concurrent_, 1)) {
    // Relaxed: the caller's serialization (Realm's allocator mutex) orders
    // this load after the previous writer's store.
    const uint64_t h = head_.load(std::memory_order_relaxed);
    if (__builtin_expect(h < room_end_, 1)) {
      Slot& r = ring_[h & mask_];
      r.instance = instance;
      r.offset = offset;
      r.size = size;
      r.aux = aux;
      // Relaxed (a plain mov): head_'s release store below orders it.
      r.stamp.store(type_code, std::memory_order_relaxed);
      // Release: a consumer that acquires head_ sees every field written.
      head_.store(h + 1, std::memory_order_release);
      return;
    }
  }
  // Concurrent, or full as far as this writer knew: out of line, so the
  // common path needs no stack frame.
  AppendOutOfLine(type_code, instance, offset, size, aux);
}

template <typename RecordAt>
void MemoryJournal::AppendGroup(EventType header, uint64_t header_instance,
                                uint32_t count, RecordAt record_at) {
  const uint64_t h =
      concurrent_ ? ClaimConcurrent(count + 1) : ClaimSerialized(count + 1);
  Write(h, header, header_instance, 0, 0, count);
  for (uint32_t i = 0; i < count; ++i) {
    const Event e = record_at(i);
    Write(h + 1 + i, e.type, e.instance, e.offset, e.size, e.aux);
  }
  Publish(h, count + 1);
}

inline uint64_t MemoryJournal::ClaimPlaceholder() {
  return concurrent_ ? ClaimConcurrent(1) : ClaimSerialized(1);
}

inline void MemoryJournal::PublishPlaceholder(uint64_t position) {
  Write(position, EventType::kNoop, 0, 0, 0, 0);
  Publish(position, 1);
}

template <typename Sink>
size_t MemoryJournal::Consume(Sink&& sink) {
  size_t applied = 0;
  uint64_t pos = consumed_;
  uint64_t freed = pos;
  const uint64_t limit = concurrent_
                             ? UINT64_MAX
                             // Acquire: pairs with Publish's release store.
                             : head_.load(std::memory_order_acquire);
  auto readable = [&](uint64_t p, EventRecord* out) -> bool {
    if (p >= limit) return false;
    const Slot& r = ring_[p & mask_];
    // Concurrent: acquire, pairs with Write's release store of the stamp.
    // Serialized: head_'s acquire load above already ordered the fields.
    const uint32_t stamp = r.stamp.load(concurrent_ ? std::memory_order_acquire
                                                    : std::memory_order_relaxed);
    if (concurrent_ &&
        (stamp >> 8) != (static_cast<uint32_t>((p >> shift_) + 1) & 0xffffffu))
      return false;
    out->instance = r.instance;
    out->offset = r.offset;
    out->size = r.size;
    out->aux = r.aux;
    out->stamp = stamp;
    return true;
  };
  EventRecord rec{};
  while (readable(pos, &rec)) {
    Event e = DecodeEvent(rec);
    if (IsGroupHeader(e.type)) {
      // Apply a group only when every record of it is readable.
      const uint32_t n = e.aux;
      EventRecord piece{};
      bool complete = true;
      for (uint32_t i = 1; i <= n && complete; ++i)
        complete = readable(pos + i, &piece);
      if (!complete) break;
      sink(e);
      for (uint32_t i = 1; i <= n; ++i) {
        readable(pos + i, &piece);
        sink(DecodeEvent(piece));
      }
      pos += n + 1;
      applied += n + 1;
    } else {
      sink(e);
      ++pos;
      ++applied;
    }
    if (pos - freed >= kConsumeBatch) {
      consumed_ = pos;
      // Release: the writer that acquires tail_ may reuse these slots; our
      // reads of them happened before.
      tail_.store(pos, std::memory_order_release);
      freed = pos;
    }
  }
  consumed_ = pos;
  if (pos != freed) tail_.store(pos, std::memory_order_release);
  return applied;
}

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RECORDER_INTERNAL_JOURNAL_H_
