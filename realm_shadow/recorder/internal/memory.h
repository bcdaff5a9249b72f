// realm_shadow/recorder/internal/memory.h - one tracked memory: its journal,
// what it was registered as, and its consumer side.
//
// Layer recorder, internal.  The C handle (realm_shadow_memory*) is this object: a
// hook reaches the journal through one pointer, with no lookup.  The
// journal comes first, so that the hot path's state starts the object.
#ifndef REALM_SHADOW_RECORDER_INTERNAL_MEMORY_H_
#define REALM_SHADOW_RECORDER_INTERNAL_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "realm_shadow/layers.h"
#include "realm_shadow/recorder/internal/journal.h"
#include "realm_shadow/recorder/recorder.h"

REALM_SHADOW_HEADER_OF_LAYER(recorder);

struct realm_shadow_memory {
  realm_shadow_memory(uint64_t id_, realm_shadow::MemoryKind kind_,
                      uint64_t capacity_, std::string name_, unsigned flags_,
                      size_t journal_events, size_t history_events_,
                      bool exact_from_start, uint64_t pauses)
      : journal(journal_events, (flags_ & REALM_SHADOW_CONCURRENT) != 0),
        id(id_),
        kind(kind_),
        capacity(capacity_),
        name(std::move(name_)),
        flags(flags_),
        history_events(history_events_),
        recorded_from_start(exact_from_start),
        pauses_at_registration(pauses) {}
  ~realm_shadow_memory();

  realm_shadow::MemoryJournal journal;  // first: the hot path's only state
  const uint64_t id;
  const realm_shadow::MemoryKind kind;
  const uint64_t capacity;
  const std::string name;
  const unsigned flags;
  const size_t history_events;  // for the consumer (MemoryDescription)
  // Tracking was on when the memory registered (else its first events were
  // dropped), and how many times it had been switched off by then.
  const bool recorded_from_start;
  const uint64_t pauses_at_registration;

  std::mutex consumer_mutex;        // serializes consumers of this journal
  void* consumer_state = nullptr;   // the installed consumer's; guarded by it

  realm_shadow::MemoryDescription Describe() const;

  // Applies the readable backlog to the consumer.  Caller holds
  // consumer_mutex.
  void DrainLocked();
  // Applies events directly (the direct path of a group).  Caller holds
  // consumer_mutex and has drained the journal up to their place.
  void ApplyLocked(const realm_shadow::Event* events, size_t count);

  // Appends a group, or, when it is larger than the journal could ever hold
  // readable at once, applies it here, in its place in the memory's order
  // (journal.h, ClaimPlaceholder).  The consumer mutex is taken and given
  // back between attempts: a writer claimed ahead of the placeholder may be
  // waiting for room, and only a drain it runs itself gives it that room.
  template <typename RecordAt>
  void AppendGroupOrApply(realm_shadow::EventType header,
                          uint64_t header_instance, uint32_t count,
                          RecordAt record_at) {
    if (uint64_t{count} + 1 <= journal.capacity()) {
      journal.AppendGroup(header, header_instance, count, record_at);
      return;
    }
    const uint64_t position = journal.ClaimPlaceholder();
    for (unsigned attempt = 0;; ++attempt) {
      {
        std::lock_guard<std::mutex> lock(consumer_mutex);
        DrainLocked();
        if (journal.consumed() == position) {
          const realm_shadow::Event head{header, header_instance, 0, 0, count};
          ApplyLocked(&head, 1);
          for (uint32_t i = 0; i < count; ++i) {
            const realm_shadow::Event e = record_at(i);
            ApplyLocked(&e, 1);
          }
          journal.PublishPlaceholder(position);
          return;
        }
      }
      if (attempt > 16) std::this_thread::yield();
    }
  }
};

namespace realm_shadow::internal {

// The run-time switch (realm_shadow_set_enabled) and how often it was
// turned off: a memory that saw a pause is no longer exact.  Hidden: every
// hook reads g_enabled, and a default-visibility global in position-
// independent code costs a load through the GOT first (one instruction per
// event, 26.53 -> 27.53 under callgrind).
#if defined(__GNUC__)
#define REALM_SHADOW_INTERNAL_HIDDEN __attribute__((visibility("hidden")))
#else
#define REALM_SHADOW_INTERNAL_HIDDEN
#endif
extern std::atomic<bool> g_enabled REALM_SHADOW_INTERNAL_HIDDEN;
extern std::atomic<uint64_t> g_pauses REALM_SHADOW_INTERNAL_HIDDEN;

inline bool Recording(const realm_shadow_memory* m) {
  // Relaxed: the switch needs no ordering with the events around it.
  return m != nullptr && g_enabled.load(std::memory_order_relaxed);
}

// Calls the failure observer, if one is installed.
void NotifyFailure(realm_shadow_memory* memory, uint64_t instance);

// Drains every memory and appends each identity id its consumer state
// refers to (identity_table.cc collects what no one does).
void AppendIdentitiesInUse(std::vector<uint32_t>* out);

}  // namespace realm_shadow::internal

#endif  // REALM_SHADOW_RECORDER_INTERNAL_MEMORY_H_
