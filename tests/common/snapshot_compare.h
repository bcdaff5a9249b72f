// tests/common/snapshot_compare.h - the one field-by-field comparison of
// Snapshots and dumps that every test area uses: the recorder's differential
// tests and event fuzzer (shadow map against the reference model), and the
// dump format's round trips and reader fuzzer.
//
// Each comparison returns "" when the two are equal, else the first
// difference, naming the field and both values, with the two records it sits
// in when it is inside one:
//   allocation 3 flags: got 1, want 0
//     got  instance 0x4000000000000007 [4096, 8192) live unknown flags 1 ...
//     want instance 0x4000000000000007 [4096, 8192) live unknown flags 0 ...
// Use it as EXPECT_EQ(CompareSnapshots(got, want, fields), "") so that a
// failure prints the difference.
//
// Which fields: SnapshotFields::kState compares what the events determine,
// the part the reference model in tests/recorder rebuilds: sequence, the live
// allocations, pending requests, reservations, recent failures and
// anomalies, and the event counters (not journal_overflows, which only the
// tracker's journal knows).  SnapshotFields::kAll adds the memory's
// description (id, kind, capacity and whether it is known, addressed, node,
// name, exact), journal_overflows and the identities: everything a dump must
// carry through a write and a read.
//
// Cost: one pass over both snapshots with no allocation until a difference
// is found, so the differential tests can compare after every batch of
// events.
#ifndef REALM_SHADOW_TESTS_COMMON_SNAPSHOT_COMPARE_H_
#define REALM_SHADOW_TESTS_COMMON_SNAPSHOT_COMPARE_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow::testing {

enum class SnapshotFields {
  kState,  // what the events determine (see above)
  kAll,    // every field of the Snapshot
};

namespace snapshot_compare_internal {

inline std::string Show(bool v) { return v ? "true" : "false"; }
inline std::string Show(MemoryKind v) { return MemoryKindName(v); }
inline std::string Show(AllocationKind v) { return AllocationKindName(v); }
inline std::string Show(AllocationState v) { return AllocationStateName(v); }
inline std::string Show(AnomalyKind v) { return AnomalyKindName(v); }
inline std::string Show(EventType v) { return EventTypeName(v); }
inline std::string Show(const std::string& v) { return "\"" + v + "\""; }
inline std::string Show(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + Show(v[i]);
  return out + "]";
}
inline std::string Show(
    const std::vector<std::pair<std::string, std::string>>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + v[i].first + "=" + Show(v[i].second);
  return out + "}";
}
template <typename T,
          typename = std::enable_if_t<std::is_integral_v<T> &&
                                      !std::is_same_v<T, bool>>>
std::string Show(T v) {
  return std::to_string(v);
}

template <typename A, typename B>
std::string Show(const std::pair<A, B>& v) {
  return "(" + Show(v.first) + ", " + Show(v.second) + ")";
}
template <typename T>
std::string Show(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Show(v[i]);
  return out + "]";
}

inline std::string Describe(const Allocation& a) {
  return "instance " + HexId(a.instance) + " [" + std::to_string(a.offset) +
         ", " + std::to_string(a.end()) + ") " + AllocationStateName(a.state) +
         " " + AllocationKindName(a.kind) + " flags " +
         std::to_string(a.flags) + " alignment " +
         std::to_string(a.alignment()) + " identity " +
         std::to_string(a.identity);
}
inline std::string Describe(const PendingRequest& p) {
  return "instance " + HexId(p.instance) + " size " + std::to_string(p.size) +
         " alignment " + std::to_string(p.alignment) + " planned " +
         (p.planned_offset == kNoOffset ? std::string("none")
                                        : std::to_string(p.planned_offset)) +
         " sequence " + std::to_string(p.sequence) + " flags " +
         std::to_string(p.flags) + " identity " + std::to_string(p.identity);
}
inline std::string Describe(const Reservation& r) {
  return "id " + HexId(r.id) + " offset " +
         (r.offset == kNoOffset ? std::string("none")
                                : std::to_string(r.offset)) +
         " size " + std::to_string(r.size) + " sequence " +
         std::to_string(r.sequence);
}
inline std::string Describe(const Failure& f) {
  return "instance " + HexId(f.instance) + " size " + std::to_string(f.size) +
         " alignment " + std::to_string(f.alignment) + " sequence " +
         std::to_string(f.sequence) +
         (f.eventual ? " eventual" : " instant") +
         (f.maybe_cancelled ? " maybe-cancelled" : "") + " identity " +
         std::to_string(f.identity);
}
inline std::string Describe(const Anomaly& a) {
  return std::string(AnomalyKindName(a.kind)) + " sequence " +
         std::to_string(a.sequence) + " instance " + HexId(a.instance) +
         " [" + std::to_string(a.offset) + ", +" + std::to_string(a.size) +
         ") other " + HexId(a.other_instance);
}
inline std::string Describe(const PoolSubAllocation& sub) {
  return "instance " + HexId(sub.instance) + " [" + std::to_string(sub.offset) + ", +" +
         std::to_string(sub.size) + ") identity " + std::to_string(sub.identity);
}
inline std::string Describe(const Pool& p) {
  return "pool " + HexId(p.pool) + " memory " + HexId(p.memory_id) + " backing " +
         HexId(p.backing_instance) + " [" +
         (p.offset == kNoOffset ? std::string("none") : std::to_string(p.offset)) +
         ", +" + std::to_string(p.size) + ") " + std::to_string(p.suballocations.size()) +
         " sub-allocations" + (p.suballocations_complete ? "" : " (incomplete)");
}
inline std::string Describe(const Identity& i) {
  return "id " + std::to_string(i.id) + " " + AllocationKindName(i.kind) +
         " " + Show(i.attributes);
}

// A field of a record, by name and member.
template <typename Record, typename T>
std::pair<const char*, T Record::*> Named(const char* name, T Record::*member) {
  return {name, member};
}

// Keeps the first difference; every later check is a no-op.  Names are
// built only when a difference is found.
class FirstDifference {
 public:
  bool found() const { return !text_.empty(); }
  const std::string& text() const { return text_; }

  // `record` and `index` name the record ("allocation", 3); a null record
  // is a field of the snapshot or dump itself.
  template <typename T>
  void Field(const char* record, size_t index, const char* field,
             const T& got, const T& want) {
    if (found() || got == want) return;
    text_ = Name(record, index, field) + ": got " + Show(got) + ", want " +
            Show(want);
  }
  void Count(const char* records, size_t got, size_t want) {
    if (found() || got == want) return;
    text_ = std::string(records) + " count: got " + std::to_string(got) +
            ", want " + std::to_string(want);
  }
  // Element by element, so that the message names the entry: for the
  // event counters, entry 3 is "counters.by_type[released]".
  template <typename T, size_t N, typename NameOf>
  void Array(const char* field, const std::array<T, N>& got,
             const std::array<T, N>& want, NameOf name_of) {
    for (size_t i = 0; i < N && !found(); ++i) {
      if (got[i] == want[i]) continue;
      text_ = std::string(field) + "[" + name_of(i) + "]: got " +
              Show(got[i]) + ", want " + Show(want[i]);
    }
  }
  // Two lists of records: their counts, then each record field by field,
  // every field given as Named("offset", &Allocation::offset), then both
  // records whole.
  template <typename Record, typename... Fields>
  void Records(const char* record, const std::vector<Record>& got,
               const std::vector<Record>& want, Fields... fields) {
    Count(record, got.size(), want.size());
    for (size_t i = 0; i < got.size() && !found(); ++i) {
      RecordFields(record, i, got[i], want[i], fields...);
      Context(got[i], want[i]);
    }
  }
  // The same without the records whole: for the records of a history, which
  // have no Describe (an event record is its five fields).
  template <typename Record, typename... Fields>
  void RecordsFieldByField(const char* record, const std::vector<Record>& got,
                           const std::vector<Record>& want, Fields... fields) {
    Count(record, got.size(), want.size());
    for (size_t i = 0; i < got.size() && !found(); ++i)
      RecordFields(record, i, got[i], want[i], fields...);
  }
  // After a record's fields: adds both records whole.
  template <typename Record>
  void Context(const Record& got, const Record& want) {
    if (!found() || with_context_) return;
    with_context_ = true;
    text_ += "\n  got  " + Describe(got) + "\n  want " + Describe(want);
  }
  void Prefix(const std::string& where) {
    if (found()) text_ = where + ": " + text_;
  }
  // Fields of one record, each given as Named("offset", &Allocation::offset);
  // a null `record` compares fields of the snapshot or dump itself.
  template <typename Record, typename... Fields>
  void RecordFields(const char* record, size_t index, const Record& got,
                    const Record& want, Fields... fields) {
    (Field(record, index, fields.first, got.*fields.second,
           want.*fields.second),
     ...);
  }

 private:
  static std::string Name(const char* record, size_t index,
                          const char* field) {
    if (record == nullptr) return field;
    return std::string(record) + " " + std::to_string(index) + " " + field;
  }

  std::string text_;
  bool with_context_ = false;
};

inline void CompareInto(const Snapshot& got, const Snapshot& want,
                        SnapshotFields fields, FirstDifference& d) {
  const bool all = fields == SnapshotFields::kAll;
  if (all) {
    d.RecordFields(nullptr, 0, got, want,
                   Named("memory_id", &Snapshot::memory_id),
                   Named("kind", &Snapshot::kind),
                   Named("capacity", &Snapshot::capacity),
                   Named("capacity_known", &Snapshot::capacity_known),
                   Named("addressed", &Snapshot::addressed),
                   Named("node", &Snapshot::node), Named("name", &Snapshot::name),
                   Named("exact", &Snapshot::exact),
                   Named("gc_state_known", &Snapshot::gc_state_known));
  }
  d.Field(nullptr, 0, "sequence", got.sequence, want.sequence);

  d.Records("allocation", got.allocations, want.allocations,
            Named("offset", &Allocation::offset), Named("size", &Allocation::size),
            Named("instance", &Allocation::instance),
            Named("identity", &Allocation::identity),
            Named("alignment_log2", &Allocation::alignment_log2),
            Named("state", &Allocation::state), Named("flags", &Allocation::flags),
            Named("kind", &Allocation::kind));
  d.Records("pending", got.pending, want.pending,
            Named("instance", &PendingRequest::instance),
            Named("size", &PendingRequest::size),
            Named("alignment", &PendingRequest::alignment),
            Named("planned_offset", &PendingRequest::planned_offset),
            Named("sequence", &PendingRequest::sequence),
            Named("identity", &PendingRequest::identity),
            Named("flags", &PendingRequest::flags));
  d.Records("reservation", got.reservations, want.reservations,
            Named("id", &Reservation::id), Named("offset", &Reservation::offset),
            Named("size", &Reservation::size), Named("sequence", &Reservation::sequence));
  d.Records("failure", got.failures, want.failures, Named("instance", &Failure::instance),
            Named("size", &Failure::size), Named("alignment", &Failure::alignment),
            Named("sequence", &Failure::sequence), Named("eventual", &Failure::eventual),
            Named("identity", &Failure::identity),
            Named("maybe_cancelled", &Failure::maybe_cancelled));
  d.Records("anomaly", got.anomalies, want.anomalies, Named("kind", &Anomaly::kind),
            Named("sequence", &Anomaly::sequence), Named("instance", &Anomaly::instance),
            Named("offset", &Anomaly::offset), Named("size", &Anomaly::size),
            Named("other_instance", &Anomaly::other_instance));

  d.Array("counters.by_type", got.counters.by_type, want.counters.by_type,
          [](size_t i) {
            return std::string(EventTypeName(static_cast<EventType>(i)));
          });
  d.Array("counters.anomalies", got.counters.anomalies,
          want.counters.anomalies, [](size_t i) {
            return std::string(AnomalyKindName(static_cast<AnomalyKind>(i)));
          });
  d.Field(nullptr, 0, "counters.failures", got.counters.failures,
          want.counters.failures);
  d.Field(nullptr, 0, "counters.cancelled", got.counters.cancelled,
          want.counters.cancelled);
  d.Field(nullptr, 0, "counters.peak_used", got.counters.peak_used,
          want.counters.peak_used);
  if (!all) return;
  d.Field(nullptr, 0, "counters.journal_overflows",
          got.counters.journal_overflows, want.counters.journal_overflows);

  d.Records("identity", got.identities, want.identities, Named("id", &Identity::id),
            Named("kind", &Identity::kind), Named("attributes", &Identity::attributes));
}

inline void CompareInto(const MemoryHistory& got, const MemoryHistory& want,
                        FirstDifference& d) {
  d.Field(nullptr, 0, "history memory_id", got.memory_id, want.memory_id);
  d.Field(nullptr, 0, "history node", got.node, want.node);
  d.Field(nullptr, 0, "history clock", static_cast<int>(got.clock),
          static_cast<int>(want.clock));
  d.Field(nullptr, 0, "history clock_origin_unix_ns", got.clock_origin_unix_ns,
          want.clock_origin_unix_ns);
  d.Field(nullptr, 0, "history window_events", got.window_events,
          want.window_events);
  d.RecordsFieldByField("history event", got.events, want.events,
                        Named("instance", &EventRecord::instance),
                        Named("offset", &EventRecord::offset),
                        Named("size", &EventRecord::size),
                        Named("aux", &EventRecord::aux),
                        Named("stamp", &EventRecord::stamp));
  d.RecordsFieldByField("history mark", got.marks, want.marks,
                        Named("sequence", &HistoryMark::sequence),
                        Named("time_ns", &HistoryMark::time_ns));
  d.Field(nullptr, 0, "history lines", got.lines, want.lines);
  d.Count("history checkpoint", got.checkpoints.size(), want.checkpoints.size());
  for (size_t i = 0; i < got.checkpoints.size() && !d.found(); ++i) {
    const HistoryCheckpoint& a = got.checkpoints[i];
    const HistoryCheckpoint& b = want.checkpoints[i];
    CompareInto(a.state, b.state, SnapshotFields::kAll, d);
    d.Field("checkpoint", i, "heap_observed", a.heap_observed, b.heap_observed);
    // A set: the consumer keeps it in no particular order (history.h).
    std::vector<uint64_t> released_a = a.released, released_b = b.released;
    std::sort(released_a.begin(), released_a.end());
    std::sort(released_b.begin(), released_b.end());
    d.Field("checkpoint", i, "released", released_a, released_b);
    d.Field("checkpoint", i, "failed", a.failed, b.failed);
    d.Field("checkpoint", i, "early_releases", a.early_releases,
            b.early_releases);
    d.Field("checkpoint", i, "pending_flags", a.pending_flags, b.pending_flags);
    d.Field("checkpoint", i, "group_type", static_cast<int>(a.group_type),
            static_cast<int>(b.group_type));
    d.Field("checkpoint", i, "group_left", a.group_left, b.group_left);
    d.RecordsFieldByField("group record", a.group_records, b.group_records,
                          Named("instance", &Event::instance),
                          Named("offset", &Event::offset),
                          Named("size", &Event::size), Named("aux", &Event::aux),
                          Named("type", &Event::type));
    d.Prefix("checkpoint " + std::to_string(i));
  }
  d.RecordsFieldByField("history identity", got.identities, want.identities,
                        Named("id", &Identity::id), Named("kind", &Identity::kind),
                        Named("attributes", &Identity::attributes));
}

}  // namespace snapshot_compare_internal

// "" when two histories are equal in every field, else the first
// difference.
inline std::string CompareHistories(const MemoryHistory& got,
                                    const MemoryHistory& want) {
  snapshot_compare_internal::FirstDifference d;
  snapshot_compare_internal::CompareInto(got, want, d);
  return d.text();
}

// "" when `got` equals `want` in the chosen fields, else the first
// difference (see the top of this file).
inline std::string CompareSnapshots(const Snapshot& got, const Snapshot& want,
                                    SnapshotFields fields) {
  snapshot_compare_internal::FirstDifference d;
  snapshot_compare_internal::CompareInto(got, want, fields, d);
  return d.text();
}

// "" when two dumps are equal in every field, their memories compared with
// SnapshotFields::kAll; else the first difference, "memory 2: ..." when it
// is inside a memory.
inline std::string CompareDumps(const DumpFile& got, const DumpFile& want) {
  using snapshot_compare_internal::Named;
  snapshot_compare_internal::FirstDifference d;
  d.RecordFields(nullptr, 0, got, want, Named("dump version", &DumpFile::version),
                 Named("dump node", &DumpFile::node),
                 Named("dump created_unix_ns", &DumpFile::created_unix_ns),
                 Named("dump source", &DumpFile::source),
                 Named("dump notes", &DumpFile::notes));
  d.Count("memory", got.memories.size(), want.memories.size());
  d.Records("pool", got.pools, want.pools, Named("pool", &Pool::pool),
            Named("memory_id", &Pool::memory_id),
            Named("backing_instance", &Pool::backing_instance),
            Named("offset", &Pool::offset), Named("size", &Pool::size),
            Named("suballocations_complete", &Pool::suballocations_complete));
  for (size_t i = 0; i < got.pools.size() && i < want.pools.size() && !d.found(); ++i) {
    d.Records("sub-allocation", got.pools[i].suballocations, want.pools[i].suballocations,
              Named("instance", &PoolSubAllocation::instance),
              Named("offset", &PoolSubAllocation::offset),
              Named("size", &PoolSubAllocation::size),
              Named("identity", &PoolSubAllocation::identity));
    d.Prefix("pool " + std::to_string(i));
  }
  if (d.found()) return d.text();
  for (size_t i = 0; i < got.memories.size(); ++i) {
    snapshot_compare_internal::CompareInto(got.memories[i], want.memories[i],
                                           SnapshotFields::kAll, d);
    if (d.found()) {
      d.Prefix("memory " + std::to_string(i));
      return d.text();
    }
  }
  d.Count("history", got.histories.size(), want.histories.size());
  for (size_t i = 0; i < got.histories.size() && !d.found(); ++i) {
    snapshot_compare_internal::CompareInto(got.histories[i], want.histories[i],
                                           d);
    d.Prefix("history " + std::to_string(i));
  }
  return d.text();
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_COMMON_SNAPSHOT_COMPARE_H_
