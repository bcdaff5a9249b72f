// tests/dump/dump_equal.h - field-by-field comparison of dumps, naming the
// first difference (the round-trip tests and the reader's fuzz target).
#ifndef REALM_SHADOW_TESTS_DUMP_DUMP_EQUAL_H_
#define REALM_SHADOW_TESTS_DUMP_DUMP_EQUAL_H_

#include <cstring>
#include <string>

#include "realm_shadow/dump/dump.h"

namespace realm_shadow {
namespace testing_dump {

#define RS_SAME(a, b, what)                                    \
  do {                                                         \
    if (!((a) == (b))) {                                       \
      *diff = std::string(where) + ": " + (what) + " differs"; \
      return false;                                            \
    }                                                          \
  } while (0)

inline bool SameSnapshot(const Snapshot& x, const Snapshot& y,
                         const std::string& where, std::string* diff) {
  RS_SAME(x.memory_id, y.memory_id, "memory_id");
  RS_SAME(x.kind, y.kind, "kind");
  RS_SAME(x.capacity, y.capacity, "capacity");
  RS_SAME(x.capacity_known, y.capacity_known, "capacity_known");
  RS_SAME(x.addressed, y.addressed, "addressed");
  RS_SAME(x.node, y.node, "node");
  RS_SAME(x.name, y.name, "name");
  RS_SAME(x.sequence, y.sequence, "sequence");
  RS_SAME(x.exact, y.exact, "exact");
  RS_SAME(x.allocations.size(), y.allocations.size(), "allocation count");
  for (size_t i = 0; i < x.allocations.size(); ++i) {
    const Allocation& a = x.allocations[i];
    const Allocation& b = y.allocations[i];
    const std::string at = "allocation " + std::to_string(i) + " ";
    RS_SAME(a.offset, b.offset, at + "offset");
    RS_SAME(a.size, b.size, at + "size");
    RS_SAME(a.instance, b.instance, at + "instance");
    RS_SAME(a.identity, b.identity, at + "identity");
    RS_SAME(a.alignment_log2, b.alignment_log2, at + "alignment");
    RS_SAME(a.state, b.state, at + "state");
    RS_SAME(a.flags, b.flags, at + "flags");
    RS_SAME(a.kind, b.kind, at + "kind");
  }
  RS_SAME(x.pending.size(), y.pending.size(), "pending count");
  for (size_t i = 0; i < x.pending.size(); ++i) {
    const PendingRequest& a = x.pending[i];
    const PendingRequest& b = y.pending[i];
    const std::string at = "pending " + std::to_string(i) + " ";
    RS_SAME(a.instance, b.instance, at + "instance");
    RS_SAME(a.size, b.size, at + "size");
    RS_SAME(a.alignment, b.alignment, at + "alignment");
    RS_SAME(a.planned_offset, b.planned_offset, at + "planned_offset");
    RS_SAME(a.sequence, b.sequence, at + "sequence");
    RS_SAME(a.identity, b.identity, at + "identity");
    RS_SAME(a.flags, b.flags, at + "flags");
  }
  RS_SAME(x.reservations.size(), y.reservations.size(), "reservation count");
  for (size_t i = 0; i < x.reservations.size(); ++i) {
    const Reservation& a = x.reservations[i];
    const Reservation& b = y.reservations[i];
    const std::string at = "reservation " + std::to_string(i) + " ";
    RS_SAME(a.id, b.id, at + "id");
    RS_SAME(a.offset, b.offset, at + "offset");
    RS_SAME(a.size, b.size, at + "size");
    RS_SAME(a.sequence, b.sequence, at + "sequence");
  }
  RS_SAME(x.failures.size(), y.failures.size(), "failure count");
  for (size_t i = 0; i < x.failures.size(); ++i) {
    const Failure& a = x.failures[i];
    const Failure& b = y.failures[i];
    const std::string at = "failure " + std::to_string(i) + " ";
    RS_SAME(a.instance, b.instance, at + "instance");
    RS_SAME(a.size, b.size, at + "size");
    RS_SAME(a.alignment, b.alignment, at + "alignment");
    RS_SAME(a.sequence, b.sequence, at + "sequence");
    RS_SAME(a.eventual, b.eventual, at + "eventual");
    RS_SAME(a.identity, b.identity, at + "identity");
  }
  RS_SAME(x.anomalies.size(), y.anomalies.size(), "anomaly count");
  for (size_t i = 0; i < x.anomalies.size(); ++i) {
    const Anomaly& a = x.anomalies[i];
    const Anomaly& b = y.anomalies[i];
    const std::string at = "anomaly " + std::to_string(i) + " ";
    RS_SAME(a.kind, b.kind, at + "kind");
    RS_SAME(a.sequence, b.sequence, at + "sequence");
    RS_SAME(a.instance, b.instance, at + "instance");
    RS_SAME(a.offset, b.offset, at + "offset");
    RS_SAME(a.size, b.size, at + "size");
    RS_SAME(a.other_instance, b.other_instance, at + "other_instance");
  }
  RS_SAME(x.counters.by_type, y.counters.by_type, "counters.by_type");
  RS_SAME(x.counters.anomalies, y.counters.anomalies, "counters.anomalies");
  RS_SAME(x.counters.failures, y.counters.failures, "counters.failures");
  RS_SAME(x.counters.cancelled, y.counters.cancelled, "counters.cancelled");
  RS_SAME(x.counters.peak_used, y.counters.peak_used, "counters.peak_used");
  RS_SAME(x.counters.journal_overflows, y.counters.journal_overflows,
          "counters.journal_overflows");
  RS_SAME(x.identities.size(), y.identities.size(), "identity count");
  for (size_t i = 0; i < x.identities.size(); ++i) {
    const Identity& a = x.identities[i];
    const Identity& b = y.identities[i];
    const std::string at = "identity " + std::to_string(i) + " ";
    RS_SAME(a.id, b.id, at + "id");
    RS_SAME(a.kind, b.kind, at + "kind");
    RS_SAME(a.attributes, b.attributes, at + "attributes");
  }
  return true;
}

inline bool SameDump(const DumpFile& x, const DumpFile& y, std::string* diff) {
  const char* where = "dump";
  RS_SAME(x.version, y.version, "version");
  RS_SAME(x.node, y.node, "node");
  RS_SAME(x.created_unix_ns, y.created_unix_ns, "created_unix_ns");
  RS_SAME(x.source, y.source, "source");
  RS_SAME(x.notes, y.notes, "notes");
  RS_SAME(x.memories.size(), y.memories.size(), "memory count");
  for (size_t i = 0; i < x.memories.size(); ++i) {
    if (!SameSnapshot(x.memories[i], y.memories[i],
                      "memory " + std::to_string(i), diff)) {
      return false;
    }
  }
  return true;
}

#undef RS_SAME

}  // namespace testing_dump
}  // namespace realm_shadow

#endif  // REALM_SHADOW_TESTS_DUMP_DUMP_EQUAL_H_
