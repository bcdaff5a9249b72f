// realm_shadow/format/reader.cc - the dump file's reader (docs/dump-format.md).
//
// The reader trusts nothing.  Every length and count is checked against the
// bytes that remain before it is used, so a reader never allocates more
// than a small multiple of the file's size, and every error is one line.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/format/internal/crc32c.h"
#include "realm_shadow/format/internal/layout.h"

namespace realm_shadow {
namespace {

using namespace dump_format;

// ---------------------------------------------------------------------------
// The reader.

class Cursor {
 public:
  Cursor(const uint8_t* p, size_t n) : p_(p), left_(n) {}
  size_t left() const { return left_; }
  const uint8_t* here() const { return p_; }
  template <typename T>
  T Get() {  // callers check Has(sizeof(T)) first
    T v;
    std::memcpy(&v, p_, sizeof v);
    Skip(sizeof v);
    return v;
  }
  // Each *out in its own type's width, in order (callers check Has first).
  template <typename... T>
  void GetEach(T*... out) {
    ((*out = Get<T>()), ...);
  }
  bool Has(uint64_t n) const { return n <= left_; }
  void Skip(size_t n) {
    p_ += n;
    left_ -= n;
  }

 private:
  const uint8_t* p_;
  size_t left_;
};

// Where the parts of one history lie in the file, and its small parts
// (DumpMoments: a dump read for one moment).
struct HistoryIndex {
  std::string name;    // the section's, for errors
  MemoryHistory head;  // everything but checkpoints and events
  uint64_t first_sequence = 0, event_count = 0;
  size_t events_at = 0;  // file offset of event first_sequence
  std::vector<size_t> checkpoint_at;      // file offset of each checkpoint
  std::vector<uint64_t> checkpoint_sequence;
  size_t section_end = 0;
};

class Parser {
 public:
  Parser(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool Parse(DumpFile* out);
  // Parse, except that histories are indexed into *index instead of read,
  // and the checksum is checked only when verify_checksum.
  bool ParseIndexed(DumpFile* out, bool verify_checksum,
                    std::vector<HistoryIndex>* index) {
    verify_checksum_ = verify_checksum;
    index_ = index;
    return Parse(out);
  }
  // Checkpoint `k` of an indexed history, and its events [from, to).
  bool IndexedCheckpoint(const HistoryIndex& x, size_t k,
                         HistoryCheckpoint* cp);
  bool IndexedEvents(const HistoryIndex& x, uint64_t from, uint64_t to,
                     std::vector<EventRecord>* out);
  // Why Parse returned false: one line, no file name.
  absl::Status error() const { return absl::Status(code_, error_); }

 private:
  bool Fail(std::string what, absl::StatusCode code = absl::StatusCode::kDataLoss) {
    error_ = std::move(what);
    code_ = code;
    return false;
  }
  bool Truncated(const std::string& what, uint64_t need, size_t left) {
    return Fail("truncated (" + what + " needs " + std::to_string(need) +
                " bytes, " + std::to_string(left) + " left)");
  }
  bool Section(Cursor& file, const char* tag, const std::string& name,
               Cursor* payload);
  bool String(uint32_t index, const std::string& where, std::string* out);
  bool Header(Cursor& c, DumpFile* out, uint32_t* memory_count);
  bool Strings(Cursor& c);
  bool Memory(Cursor& c, const std::string& name, Snapshot* s);
  bool Identities(Cursor& c, uint64_t count, const std::string& where,
                  std::vector<Identity>* out);
  bool OptionalSections(Cursor& file, DumpFile* out);
  bool Pools(Cursor& c, std::vector<Pool>* out);
  bool GcUnknown(Cursor& c, DumpFile* out);
  bool History(Cursor& c, const std::string& name, const DumpFile& dump,
               MemoryHistory* h);
  bool HistoryHead(Cursor& c, const std::string& where, const DumpFile& dump,
                   MemoryHistory* h, uint64_t counts[5]);
  bool HistoryMarks(Cursor& c, const std::string& where, const uint64_t counts[5],
                    MemoryHistory* h);
  bool IndexHistory(Cursor& c, const std::string& name, const DumpFile& dump,
                    HistoryIndex* x);
  bool SkipCheckpoint(Cursor& c, const std::string& name, uint64_t* sequence);
  bool Checkpoint(Cursor& c, const std::string& name, HistoryCheckpoint* cp);
  bool Trailer(Cursor& file);

  const uint8_t* data_;
  size_t size_;
  std::string error_;
  absl::StatusCode code_ = absl::StatusCode::kOk;
  std::vector<std::string_view> strings_;
  uint64_t expanded_ = 0;  // string bytes materialized so far
  uint32_t source_index_ = 0;
  std::vector<uint32_t> note_indices_;
  bool verify_checksum_ = true;
  std::vector<HistoryIndex>* index_ = nullptr;
};

// A section tag as an error prints it: a byte outside printable ASCII as '?'.
std::string PrintableTag(const uint8_t* tag, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const char ch = static_cast<char>(tag[i]);
    out += (ch >= 0x20 && ch < 0x7f) ? ch : '?';
  }
  return out;
}

bool Parser::Section(Cursor& file, const char* tag,
                     const std::string& name, Cursor* payload) {
  const std::string what = "section '" + name + "'";
  if (!file.Has(kSectionHeaderBytes)) {
    return Truncated(what + " header", kSectionHeaderBytes, file.left());
  }
  if (std::memcmp(file.here(), tag, 4) != 0) {
    return Fail(what + " is missing (found tag '" + PrintableTag(file.here(), 4) + "' at byte " +
                std::to_string(file.here() - data_) + ")");
  }
  file.Skip(4);
  const uint32_t reserved = file.Get<uint32_t>();
  const uint64_t length = file.Get<uint64_t>();
  if (reserved != 0) return Fail(what + " has a nonzero reserved field");
  if (!file.Has(length)) return Truncated(what, length, file.left());
  *payload = Cursor(file.here(), static_cast<size_t>(length));
  file.Skip(static_cast<size_t>(length));
  return true;
}

bool Parser::String(uint32_t index, const std::string& where,
                    std::string* out) {
  if (index >= strings_.size()) {
    return Fail(where + " refers to string " + std::to_string(index) + " of " +
                std::to_string(strings_.size()));
  }
  const std::string_view s = strings_[index];
  expanded_ += s.size();
  if (expanded_ > kStringExpansionLimit * (uint64_t{size_} + 4096)) {
    return Fail("string references expand to more than " +
                std::to_string(kStringExpansionLimit) +
                " times the file's size");
  }
  out->assign(s.data(), s.size());
  return true;
}

bool Parser::Header(Cursor& c, DumpFile* out, uint32_t* memory_count) {
  if (!c.Has(24)) return Truncated("header", 24, c.left());
  out->node = c.Get<uint32_t>();
  *memory_count = c.Get<uint32_t>();
  out->created_unix_ns = c.Get<uint64_t>();
  source_index_ = c.Get<uint32_t>();
  const uint32_t notes = c.Get<uint32_t>();
  if (c.left() != uint64_t{notes} * 4) {
    return Fail("section 'header' holds " + std::to_string(c.left()) +
                " bytes of note references, expected " +
                std::to_string(uint64_t{notes} * 4));
  }
  note_indices_.reserve(notes);  // bounded by the payload just checked
  for (uint32_t i = 0; i < notes; ++i)
    note_indices_.push_back(c.Get<uint32_t>());
  return true;
}

bool Parser::Strings(Cursor& c) {
  if (!c.Has(8)) return Truncated("string table", 8, c.left());
  const uint32_t count = c.Get<uint32_t>();
  if (c.Get<uint32_t>() != 0) {
    return Fail("section 'string table' has a nonzero reserved field");
  }
  if (uint64_t{count} * 4 > c.left()) {
    return Fail("string table claims " + std::to_string(count) +
                " strings but has only " + std::to_string(c.left()) + " bytes");
  }
  strings_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    if (!c.Has(4)) {
      return Fail("string table: string " + std::to_string(i) +
                  " length needs 4 bytes, " + std::to_string(c.left()) +
                  " left");
    }
    const uint32_t len = c.Get<uint32_t>();
    if (!c.Has(len)) {
      return Fail("string table: string " + std::to_string(i) + " needs " +
                  std::to_string(len) + " bytes, " + std::to_string(c.left()) +
                  " left");
    }
    strings_.emplace_back(reinterpret_cast<const char*>(c.here()), len);
    c.Skip(len);
  }
  if (c.left() != 0) {
    return Fail("string table: " + std::to_string(c.left()) +
                " bytes after the last string");
  }
  return true;
}

bool Parser::Memory(Cursor& c, const std::string& name, Snapshot* s) {
  const std::string where = "section '" + name + "'";
  if (!c.Has(kMemoryMinBytes)) {
    return Fail(where + " is " + std::to_string(c.left()) +
                " bytes, less than the " + std::to_string(kMemoryMinBytes) +
                " every memory needs");
  }
  c.GetEach(&s->memory_id, &s->capacity, &s->sequence, &s->node);
  const uint32_t name_index = c.Get<uint32_t>();
  const uint8_t kind = c.Get<uint8_t>();
  const uint8_t capacity_known = c.Get<uint8_t>();
  const uint8_t addressed = c.Get<uint8_t>();
  const uint8_t exact = c.Get<uint8_t>();
  const uint32_t reserved = c.Get<uint32_t>();
  if (kind > kMaxMemoryKind) {
    return Fail(where + ": unknown memory kind " + std::to_string(kind));
  }
  if (capacity_known > 1 || addressed > 1 || exact > 1 || reserved != 0) {
    return Fail(where + ": a flag byte is neither 0 nor 1");
  }
  s->kind = static_cast<MemoryKind>(kind);
  s->capacity_known = capacity_known;
  s->addressed = addressed;
  s->exact = exact;
  if (!String(name_index, where + " name", &s->name)) return false;

  uint64_t counts[6];
  for (uint64_t& n : counts) n = c.Get<uint64_t>();
  const uint32_t by_type = c.Get<uint32_t>();
  const uint32_t anomaly_kinds = c.Get<uint32_t>();
  if (by_type < kFirstEventTypeCount || by_type > kEventTypeCount ||
      anomaly_kinds != kAnomalyKindCount) {
    return Fail(where + ": counters for " + std::to_string(by_type) +
                " event types and " + std::to_string(anomaly_kinds) +
                " anomaly kinds (this reader knows " +
                std::to_string(kFirstEventTypeCount) + " to " +
                std::to_string(kEventTypeCount) + " and " +
                std::to_string(kAnomalyKindCount) + ")");
  }
  if (!c.Has(uint64_t{8} * (by_type + anomaly_kinds) + 32)) {
    return Fail(where + ": truncated in its counters");
  }
  s->counters.by_type.fill(0);
  for (uint32_t t = 0; t < by_type; ++t) s->counters.by_type[t] = c.Get<uint64_t>();
  for (uint64_t& v : s->counters.anomalies) v = c.Get<uint64_t>();
  c.GetEach(&s->counters.failures, &s->counters.cancelled, &s->counters.peak_used,
            &s->counters.journal_overflows);

  // Fixed-size arrays: their total is known from the counts, so one check
  // covers them all before anything is allocated.  Each count is first
  // bounded by the section alone, so the products cannot overflow.
  const size_t record_bytes[5] = {kAllocationBytes, kPendingBytes,
                                  kReservationBytes, kFailureBytes,
                                  kAnomalyBytes};
  const char* record_names[5] = {"allocations", "pending requests",
                                 "reservations", "failures", "anomalies"};
  uint64_t fixed = 0;
  for (int i = 0; i < 5; ++i) {
    if (counts[i] > c.left() / record_bytes[i]) {
      return Fail(where + ": " + std::to_string(counts[i]) + " " +
                  record_names[i] + " need " + std::to_string(counts[i]) +
                  " x " + std::to_string(record_bytes[i]) + " bytes, " +
                  std::to_string(c.left()) + " left in the section");
    }
    fixed += counts[i] * record_bytes[i];
  }
  if (fixed > c.left()) {
    return Fail(where + ": its records need " + std::to_string(fixed) +
                " bytes, " + std::to_string(c.left()) + " left in the section");
  }
  if (counts[5] > (c.left() - fixed) / kIdentityFixedBytes) {
    return Fail(where + ": " + std::to_string(counts[5]) +
                " identities cannot fit in " +
                std::to_string(c.left() - fixed) + " bytes");
  }

  s->allocations.resize(counts[0]);
  if (counts[0] > 0) {
    std::memcpy(s->allocations.data(), c.here(), counts[0] * kAllocationBytes);
    c.Skip(counts[0] * kAllocationBytes);
  }
  for (size_t i = 0; i < s->allocations.size(); ++i) {
    const Allocation& a = s->allocations[i];
    const std::string at = where + ": allocation " + std::to_string(i);
    if (a.alignment_log2 > 63) {
      return Fail(at + " has alignment 2^" + std::to_string(a.alignment_log2));
    }
    if (static_cast<uint8_t>(a.state) > kMaxAllocationState) {
      return Fail(at + " has unknown state " +
                  std::to_string(static_cast<unsigned>(a.state)));
    }
    if (static_cast<uint8_t>(a.kind) >= kAllocationKindCount) {
      return Fail(at + " has unknown kind " +
                  std::to_string(static_cast<unsigned>(a.kind)));
    }
    if (a.offset + a.size < a.offset) {
      return Fail(at + " has a range past 2^64 (offset " +
                  std::to_string(a.offset) + ", size " +
                  std::to_string(a.size) + ")");
    }
  }

  s->pending.resize(counts[1]);
  for (PendingRequest& p : s->pending) {
    c.GetEach(&p.instance, &p.size, &p.alignment, &p.planned_offset, &p.sequence,
              &p.identity, &p.flags);
    if (c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>()) {
      return Fail(where + ": a pending request has nonzero padding");
    }
  }
  s->reservations.resize(counts[2]);
  for (Reservation& r : s->reservations) {
    c.GetEach(&r.id, &r.offset, &r.size, &r.sequence);
  }
  s->failures.resize(counts[3]);
  for (Failure& f : s->failures) {
    c.GetEach(&f.instance, &f.size, &f.alignment, &f.sequence, &f.identity);
    const uint8_t flags = c.Get<uint8_t>();
    if ((flags & ~kFailureFlagsKnown) != 0 ||
        (c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>())) {
      return Fail(where + ": a failure has a bad flag or nonzero padding");
    }
    f.eventual = (flags & kFailureEventualFlag) != 0;
    f.maybe_cancelled = (flags & kFailureMaybeCancelledFlag) != 0;
  }
  s->anomalies.resize(counts[4]);
  for (Anomaly& a : s->anomalies) {
    c.GetEach(&a.sequence, &a.instance, &a.offset, &a.size, &a.other_instance);
    const uint8_t kind = c.Get<uint8_t>();
    if (kind >= kAnomalyKindCount) {
      return Fail(where + ": unknown anomaly kind " + std::to_string(kind));
    }
    a.kind = static_cast<AnomalyKind>(kind);
    uint8_t pad = 0;
    for (int i = 0; i < 7; ++i) pad |= c.Get<uint8_t>();
    if (pad) return Fail(where + ": an anomaly has nonzero padding");
  }

  if (!Identities(c, counts[5], where, &s->identities)) return false;
  if (c.left() != 0) {
    return Fail(where + ": " + std::to_string(c.left()) +
                " bytes after its last record");
  }
  return true;
}

bool Parser::Identities(Cursor& c, uint64_t count, const std::string& where,
                        std::vector<Identity>* out) {
  if (count > c.left() / kIdentityFixedBytes) {
    return Fail(where + ": " + std::to_string(count) +
                " identities cannot fit in " + std::to_string(c.left()) +
                " bytes");
  }
  // Identities vary in size: each is checked as it comes.
  out->reserve(count);  // bounded above by left / 12
  for (uint64_t i = 0; i < count; ++i) {
    const std::string at = where + ": identity " + std::to_string(i);
    if (!c.Has(kIdentityFixedBytes)) {
      return Fail(at + " needs " + std::to_string(kIdentityFixedBytes) +
                  " bytes, " + std::to_string(c.left()) + " left");
    }
    Identity id;
    id.id = c.Get<uint32_t>();
    const uint8_t kind = c.Get<uint8_t>();
    const uint8_t pad = c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>();
    const uint32_t attributes = c.Get<uint32_t>();
    if (kind >= kAllocationKindCount || pad) {
      return Fail(at + " has unknown kind " + std::to_string(kind) +
                  " or nonzero padding");
    }
    id.kind = static_cast<AllocationKind>(kind);
    if (uint64_t{attributes} * kAttributeBytes > c.left()) {
      return Fail(at + ": " + std::to_string(attributes) + " attributes need " +
                  std::to_string(uint64_t{attributes} * kAttributeBytes) +
                  " bytes, " + std::to_string(c.left()) + " left");
    }
    id.attributes.resize(attributes);
    for (auto& kv : id.attributes) {
      const uint32_t key = c.Get<uint32_t>();
      const uint32_t value = c.Get<uint32_t>();
      if (!String(key, at, &kv.first) || !String(value, at, &kv.second)) {
        return false;
      }
    }
    out->push_back(std::move(id));
  }
  // Snapshot keeps identities sorted by id (FindIdentity searches them);
  // writers sort them, but nothing in the format promised it.  One id twice
  // would make an allocation's identity ambiguous.
  const auto by_id = [](const Identity& a, const Identity& b) { return a.id < b.id; };
  if (!std::is_sorted(out->begin(), out->end(), by_id))
    std::stable_sort(out->begin(), out->end(), by_id);
  for (size_t i = 1; i < out->size(); ++i) {
    if ((*out)[i].id == (*out)[i - 1].id) {
      return Fail(where + ": identity " + std::to_string((*out)[i].id) +
                  " is listed twice");
    }
  }
  return true;
}

// n records of `bytes` each, checked against what is left before anything
// is allocated.
bool FitsRecords(const Cursor& c, uint64_t n, size_t bytes) {
  return n <= c.left() / bytes;
}

bool Parser::Checkpoint(Cursor& c, const std::string& name,
                        HistoryCheckpoint* cp) {
  const std::string where = "section '" + name + "'";
  if (!c.Has(kCheckpointLengthBytes)) return Fail(where + " is truncated");
  const uint64_t state_bytes = c.Get<uint64_t>();
  if (!c.Has(state_bytes))
    return Fail(where + ": its picture needs " + std::to_string(state_bytes) +
                " bytes, " + std::to_string(c.left()) + " left");
  Cursor state(c.here(), static_cast<size_t>(state_bytes));
  c.Skip(static_cast<size_t>(state_bytes));
  if (!Memory(state, name, &cp->state)) return false;
  if (!c.Has(kCheckpointExtrasBytes)) return Fail(where + " is truncated");
  uint64_t counts[kCheckpointArrays];
  for (uint64_t& n : counts) n = c.Get<uint64_t>();
  const uint8_t group_type = c.Get<uint8_t>();
  const uint8_t heap_observed = c.Get<uint8_t>();
  const uint16_t reserved = c.Get<uint16_t>();
  cp->group_left = c.Get<uint32_t>();
  if (heap_observed > 1 || reserved != 0 ||
      group_type >= static_cast<uint8_t>(kEventTypeCount))
    return Fail(where + ": bad group type or flag, or nonzero padding");
  cp->group_type = static_cast<EventType>(group_type);
  cp->heap_observed = heap_observed;
  uint64_t total = 0;
  for (size_t i = 0; i < kCheckpointArrays; ++i) {
    if (!FitsRecords(c, counts[i], kCheckpointRecordBytes[i]))
      return Fail(where + ": " + std::to_string(counts[i]) + " records of " +
                  std::to_string(kCheckpointRecordBytes[i]) +
                  " bytes need more than the " + std::to_string(c.left()) +
                  " left");
    total += counts[i] * kCheckpointRecordBytes[i];
  }
  if (total > c.left()) return Fail(where + " is truncated in its arrays");
  cp->released.resize(counts[kReleasedIds]);
  for (uint64_t& id : cp->released) id = c.Get<uint64_t>();
  cp->failed.resize(counts[kFailedIds]);
  for (uint64_t& id : cp->failed) id = c.Get<uint64_t>();
  cp->early_releases.resize(counts[kEarlyReleases]);
  for (auto& [instance, ready] : cp->early_releases) {
    instance = c.Get<uint64_t>();
    ready = c.Get<uint8_t>();
    uint8_t pad = 0;
    for (int i = 0; i < 7; ++i) pad |= c.Get<uint8_t>();
    if (ready > 1 || pad) return Fail(where + ": bad early release record");
  }
  cp->pending_flags.resize(counts[kPendingFlags]);
  if (counts[kPendingFlags] > 0) {
    std::memcpy(cp->pending_flags.data(), c.here(), counts[kPendingFlags]);
    c.Skip(counts[kPendingFlags]);
  }
  for (uint8_t flags : cp->pending_flags)  // the kind is in the high nibble
    if ((flags >> 4) >= kAllocationKindCount)
      return Fail(where + ": a pending request has unknown kind " +
                  std::to_string(flags >> 4));
  cp->group_records.resize(counts[kGroupRecords]);
  for (Event& e : cp->group_records) {
    EventRecord r;
    std::memcpy(&r, c.here(), kHistoryEventBytes);
    c.Skip(kHistoryEventBytes);
    if (r.stamp >> 8) return Fail(where + ": a group record has a bad type word");
    e = DecodeEvent(r);
  }
  return true;
}

bool Parser::HistoryHead(Cursor& c, const std::string& where,
                         const DumpFile& dump, MemoryHistory* h,
                         uint64_t counts[5]) {
  if (!c.Has(kHistoryFixedBytes))
    return Fail(where + " is " + std::to_string(c.left()) +
                " bytes, less than its fixed " +
                std::to_string(kHistoryFixedBytes));
  const uint32_t memory_index = c.Get<uint32_t>();
  const uint8_t clock = c.Get<uint8_t>();
  const uint8_t pad = c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>();
  h->clock_origin_unix_ns = c.Get<uint64_t>();
  h->window_events = c.Get<uint64_t>();
  // checkpoints, events, marks, lines, identities
  for (int i = 0; i < 5; ++i) counts[i] = c.Get<uint64_t>();
  if (memory_index >= dump.memories.size())
    return Fail(where + " is of memory " + std::to_string(memory_index) +
                ", but the dump holds " + std::to_string(dump.memories.size()));
  if (pad) return Fail(where + " has nonzero padding");
  h->clock = static_cast<HistoryClock>(clock);
  h->memory_id = dump.memories[memory_index].memory_id;
  h->node = dump.memories[memory_index].node;
  for (const MemoryHistory& other : dump.histories)
    if (other.memory_id == h->memory_id && other.node == h->node)
      return Fail(where + ": a second history of memory " +
                  std::to_string(memory_index));
  if (index_ != nullptr)
    for (const HistoryIndex& other : *index_)
      if (&other.head != h && other.head.memory_id == h->memory_id &&
          other.head.node == h->node)
        return Fail(where + ": a second history of memory " +
                    std::to_string(memory_index));
  if (!FitsRecords(c, counts[1], kHistoryEventBytes) ||
      !FitsRecords(c, counts[2], kHistoryMarkBytes) ||
      !FitsRecords(c, counts[3], 8) ||
      counts[1] * kHistoryEventBytes + counts[2] * kHistoryMarkBytes +
              counts[3] * 8 > c.left())
    return Fail(where + ": " + std::to_string(counts[1]) + " events, " +
                std::to_string(counts[2]) + " marks and " +
                std::to_string(counts[3]) + " lines need more than the " +
                std::to_string(c.left()) + " bytes left");
  return true;
}

// The marks and lines, after the events.
bool Parser::HistoryMarks(Cursor& c, const std::string& where,
                          const uint64_t counts[5], MemoryHistory* h) {
  h->marks.resize(counts[2]);
  if (counts[2] > 0) {
    std::memcpy(h->marks.data(), c.here(), counts[2] * kHistoryMarkBytes);
    c.Skip(counts[2] * kHistoryMarkBytes);
  }
  h->lines.resize(counts[3]);
  for (uint64_t& line : h->lines) line = c.Get<uint64_t>();
  // Each checkpoint needs at least its length, a memory's minimum and its
  // extras.
  if (!FitsRecords(c, counts[0],
                   kCheckpointLengthBytes + kMemoryMinBytes + kCheckpointExtrasBytes))
    return Fail(where + ": " + std::to_string(counts[0]) +
                " checkpoints cannot fit in " + std::to_string(c.left()) +
                " bytes");
  return true;
}

bool Parser::History(Cursor& c, const std::string& name, const DumpFile& dump,
                     MemoryHistory* h) {
  const std::string where = "section '" + name + "'";
  uint64_t counts[5];
  if (!HistoryHead(c, where, dump, h, counts)) return false;
  h->events.resize(counts[1]);
  if (counts[1] > 0) {
    std::memcpy(h->events.data(), c.here(), counts[1] * kHistoryEventBytes);
    c.Skip(counts[1] * kHistoryEventBytes);
  }
  for (size_t i = 0; i < h->events.size(); ++i)
    if (h->events[i].stamp >> 8)
      return Fail(where + ": event " + std::to_string(i) +
                  " has a bad type word");
  if (!HistoryMarks(c, where, counts, h)) return false;
  h->checkpoints.resize(counts[0]);
  for (uint64_t i = 0; i < counts[0]; ++i) {
    if (!Checkpoint(c, name + " checkpoint " + std::to_string(i),
                    &h->checkpoints[i]))
      return false;
  }
  if (!Identities(c, counts[4], where, &h->identities)) return false;
  if (c.left() != 0)
    return Fail(where + ": " + std::to_string(c.left()) +
                " bytes after its last record");
  if (absl::Status checked = CheckHistory(*h); !checked.ok())
    return Fail(where + ": " + std::string(checked.message()));
  return true;
}

// A checkpoint's extent, and its moment, without reading its records.
bool Parser::SkipCheckpoint(Cursor& c, const std::string& name,
                            uint64_t* sequence) {
  const std::string where = "section '" + name + "'";
  if (!c.Has(kCheckpointLengthBytes)) return Fail(where + " is truncated");
  const uint64_t state_bytes = c.Get<uint64_t>();
  if (!c.Has(state_bytes) || state_bytes < kMemoryMinBytes)
    return Fail(where + ": its picture of " + std::to_string(state_bytes) +
                " bytes is shorter than a memory's minimum or longer than the " +
                std::to_string(c.left()) + " bytes left");
  static_assert(kMemorySequenceOffset + sizeof *sequence <= kMemoryMinBytes, "");
  std::memcpy(sequence, c.here() + kMemorySequenceOffset, sizeof *sequence);
  c.Skip(static_cast<size_t>(state_bytes));
  if (!c.Has(kCheckpointExtrasBytes)) return Fail(where + " is truncated");
  uint64_t counts[kCheckpointArrays];
  for (uint64_t& n : counts) n = c.Get<uint64_t>();
  c.Skip(kCheckpointExtrasBytes - sizeof counts);
  uint64_t total = 0;
  for (size_t i = 0; i < kCheckpointArrays; ++i) {
    if (!FitsRecords(c, counts[i], kCheckpointRecordBytes[i]))
      return Fail(where + " is truncated in its arrays");
    total += counts[i] * kCheckpointRecordBytes[i];
  }
  if (total > c.left()) return Fail(where + " is truncated in its arrays");
  c.Skip(static_cast<size_t>(total));
  return true;
}

// What History reads, but of the events and checkpoints only where they lie
// and the checkpoints' moments; the invariants of CheckHistory that those
// decide are checked here, the rest on each cut (DumpMoments::HistoryFor).
bool Parser::IndexHistory(Cursor& c, const std::string& name,
                          const DumpFile& dump, HistoryIndex* x) {
  const std::string where = "section '" + name + "'";
  x->name = name;
  MemoryHistory& h = x->head;
  uint64_t counts[5];
  if (!HistoryHead(c, where, dump, &h, counts)) return false;
  x->event_count = counts[1];
  x->events_at = static_cast<size_t>(c.here() - data_);
  c.Skip(static_cast<size_t>(counts[1] * kHistoryEventBytes));
  if (!HistoryMarks(c, where, counts, &h)) return false;
  for (uint64_t i = 0; i < counts[0]; ++i) {
    x->checkpoint_at.push_back(static_cast<size_t>(c.here() - data_));
    uint64_t sequence = 0;
    if (!SkipCheckpoint(c, name + " checkpoint " + std::to_string(i), &sequence))
      return false;
    x->checkpoint_sequence.push_back(sequence);
  }
  if (!Identities(c, counts[4], where, &h.identities)) return false;
  if (c.left() != 0)
    return Fail(where + ": " + std::to_string(c.left()) +
                " bytes after its last record");
  x->section_end = static_cast<size_t>(c.here() - data_);
  const std::string of = where + ": history of memory " + HexId(h.memory_id);
  if (counts[0] == 0) return Fail(of + ": no base checkpoint");
  const uint64_t first = x->checkpoint_sequence[0];
  x->first_sequence = first;
  if (counts[1] > UINT64_MAX - first) return Fail(of + ": event count overflows");
  const uint64_t end = first + counts[1];
  for (size_t i = 1; i < x->checkpoint_sequence.size(); ++i)
    if (x->checkpoint_sequence[i] <= x->checkpoint_sequence[i - 1] ||
        x->checkpoint_sequence[i] > end)
      return Fail(of + ": checkpoint " + std::to_string(i) +
                  " is out of order or past moment " + std::to_string(end));
  if (counts[1] > 0 && (h.marks.empty() || h.marks[0].sequence != first))
    return Fail(of + ": the first event has no time mark");
  for (size_t i = 0; i < h.marks.size(); ++i)
    if (h.marks[i].sequence < first || h.marks[i].sequence >= end ||
        (i > 0 && h.marks[i].sequence < h.marks[i - 1].sequence))
      return Fail(of + ": time mark " + std::to_string(i) +
                  " is out of order or outside the events");
  return true;
}

bool Parser::IndexedCheckpoint(const HistoryIndex& x, size_t k,
                               HistoryCheckpoint* cp) {
  Cursor c(data_ + x.checkpoint_at[k], x.section_end - x.checkpoint_at[k]);
  return Checkpoint(c, x.name + " checkpoint " + std::to_string(k), cp);
}

bool Parser::IndexedEvents(const HistoryIndex& x, uint64_t from, uint64_t to,
                           std::vector<EventRecord>* out) {
  out->resize(static_cast<size_t>(to - from));
  if (to > from)
    std::memcpy(out->data(),
                data_ + x.events_at + (from - x.first_sequence) * kHistoryEventBytes,
                static_cast<size_t>(to - from) * kHistoryEventBytes);
  for (size_t i = 0; i < out->size(); ++i)
    if ((*out)[i].stamp >> 8)
      return Fail("section '" + x.name + "': event " +
                  std::to_string(from - x.first_sequence + i) +
                  " has a bad type word");
  return true;
}

// Sections between the last memory and the trailer, each with a tag whose
// first letter is lowercase: hist (a memory's history; version 1 writers
// wrote it too) and, version 2 on, pool.  Known ones are read (pools at
// most once); unknown ones are skipped by their length, so that a section
// added later needs no new version from readers that can do without it.
bool Parser::OptionalSections(Cursor& file, DumpFile* out) {
  bool pools_seen = false;
  bool gc_unknown_seen = false;
  // The last 16 bytes are the trailer, unless they are not one and start
  // like a section: the file was cut inside an optional section.
  const auto at_trailer = [&] {
    if (file.left() > kTrailerBytes) return false;
    if (file.left() < kTrailerBytes || !IsOptionalTag(file.here())) return true;
    uint64_t body;
    uint32_t marker;
    std::memcpy(&body, file.here(), 8);
    std::memcpy(&marker, file.here() + 12, 4);
    return body == size_ - kTrailerBytes && marker == kTrailerMarker;
  };
  while (!at_trailer()) {
    const std::string unexpected =
        std::to_string(file.left() - kTrailerBytes) + " unexpected bytes after the last memory";
    if (!file.Has(kSectionHeaderBytes) || !IsOptionalTag(file.here())) {
      return Fail(unexpected + " (tag '" + PrintableTag(file.here(), std::min<size_t>(4, file.left())) +
                  "' is not an optional section's: those start with a lowercase letter)");
    }
    const bool is_pools = std::memcmp(file.here(), kTagPools, 4) == 0;
    const bool is_history = std::memcmp(file.here(), kTagHistory, 4) == 0;
    const bool is_gc_unknown = std::memcmp(file.here(), kTagGcUnknown, 4) == 0;
    // Only the first byte of an unknown tag is checked: the rest may be
    // anything, and an error naming the section stays one line.
    std::string name = "optional '" + PrintableTag(file.here(), 4) + "'";
    if (is_pools) name = "pools";
    if (is_gc_unknown) name = "gc unknown";
    if (is_history)
      name = "history " + std::to_string(index_ != nullptr ? index_->size()
                                                          : out->histories.size());
    Cursor payload(nullptr, 0);
    const std::string tag(reinterpret_cast<const char*>(file.here()), 4);
    if (!Section(file, tag.c_str(), name, &payload)) return false;
    if (is_history && index_ != nullptr) {
      index_->emplace_back();
      if (!IndexHistory(payload, name, *out, &index_->back())) return false;
      continue;
    }
    if (is_history) {
      MemoryHistory h;
      if (!History(payload, name, *out, &h)) return false;
      out->histories.push_back(std::move(h));
      continue;
    }
    if (is_gc_unknown) {
      if (gc_unknown_seen) return Fail("section 'gc unknown' appears twice");
      gc_unknown_seen = true;
      if (!GcUnknown(payload, out)) return false;
      continue;
    }
    if (!is_pools) continue;  // not ours to know: skipped whole
    if (pools_seen) return Fail("section 'pools' appears twice");
    pools_seen = true;
    if (!Pools(payload, &out->pools)) return false;
  }
  return true;
}

// gcun: u32 count, u32 reserved, then that many memory indices, ascending.
bool Parser::GcUnknown(Cursor& c, DumpFile* out) {
  const std::string at = "section 'gc unknown'";
  if (!c.Has(kGcUnknownHeaderBytes)) return Truncated(at, kGcUnknownHeaderBytes, c.left());
  const uint32_t count = c.Get<uint32_t>();
  if (c.Get<uint32_t>() != 0) return Fail(at + " has a nonzero reserved field");
  if (c.left() != uint64_t{count} * 4)
    return Fail(at + ": " + std::to_string(count) + " memory indices need " +
                std::to_string(uint64_t{count} * 4) + " bytes, the section holds " +
                std::to_string(c.left()));
  int64_t previous = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t index = c.Get<uint32_t>();
    if (index >= out->memories.size())
      return Fail(at + ": memory " + std::to_string(index) + " of " +
                  std::to_string(out->memories.size()));
    if (int64_t{index} <= previous) return Fail(at + ": memory indices not ascending");
    previous = index;
    out->memories[index].gc_state_known = false;
  }
  return true;
}

bool Parser::Pools(Cursor& c, std::vector<Pool>* out) {
  if (!c.Has(kPoolsHeaderBytes)) return Truncated("section 'pools'", kPoolsHeaderBytes, c.left());
  const uint32_t count = c.Get<uint32_t>();
  if (c.Get<uint32_t>() != 0) return Fail("section 'pools' has a nonzero reserved field");
  if (count > c.left() / kPoolFixedBytes) {
    return Fail("section 'pools': " + std::to_string(count) + " pools need " +
                std::to_string(uint64_t{count} * kPoolFixedBytes) + " bytes, " +
                std::to_string(c.left()) + " left");
  }
  out->resize(count);  // bounded by the payload just checked
  for (uint32_t i = 0; i < count; ++i) {
    const std::string at = "section 'pools': pool " + std::to_string(i);
    if (!c.Has(kPoolFixedBytes)) return Truncated(at, kPoolFixedBytes, c.left());
    Pool& p = (*out)[i];
    c.GetEach(&p.memory_id, &p.pool, &p.backing_instance, &p.offset, &p.size);
    const uint64_t subs = c.Get<uint64_t>();
    if (subs > c.left() / kPoolSubAllocationBytes) {
      return Fail(at + ": " + std::to_string(subs) + " sub-allocations need " +
                  std::to_string(subs) + " x " +
                  std::to_string(kPoolSubAllocationBytes) + " bytes, " +
                  std::to_string(c.left()) + " left");
    }
    p.suballocations.resize(subs);
    for (PoolSubAllocation& sub : p.suballocations) {
      c.GetEach(&sub.instance, &sub.offset, &sub.size, &sub.identity);
      if (c.Get<uint32_t>() != 0) return Fail(at + ": a sub-allocation has nonzero padding");
    }
  }
  if (c.left() != 0) {
    return Fail("section 'pools': " + std::to_string(c.left()) +
                " bytes after its last pool");
  }
  return true;
}

bool Parser::Trailer(Cursor& file) {
  if (file.left() < kTrailerBytes) {
    return Truncated("trailer", kTrailerBytes, file.left());
  }
  if (file.left() > kTrailerBytes) {
    return Fail(std::to_string(file.left() - kTrailerBytes) +
                " unexpected bytes after the last memory");
  }
  const uint64_t body = file.Get<uint64_t>();
  file.Get<uint32_t>();
  const uint32_t marker = file.Get<uint32_t>();
  if (body != size_ - kTrailerBytes || marker != kTrailerMarker) {
    return Fail("corrupt trailer");
  }
  return true;
}

bool Parser::Parse(DumpFile* out) {
  *out = DumpFile();
  if (size_ == 0) return Fail("empty file");
  const size_t magic_seen = size_ < sizeof kMagic ? size_ : sizeof kMagic;
  if (std::memcmp(data_, kMagic, magic_seen) != 0) {
    return Fail("not a realm-shadow dump (bad magic)",
                absl::StatusCode::kInvalidArgument);
  }
  if (size_ < kPreambleBytes) {
    return Truncated("preamble", kPreambleBytes, size_);
  }
  Cursor file(data_, size_);
  file.Skip(sizeof kMagic);
  uint32_t version = file.Get<uint32_t>();
  const uint32_t marker = file.Get<uint32_t>();
  if (marker == kEndianMarkerSwapped) {
    return Fail("big-endian/foreign-endian file (byte order marker " +
                    HexId(marker) + "); this reader reads only native-order dumps",
                absl::StatusCode::kUnimplemented);
  }
  if (marker != kEndianMarker) {
    return Fail("bad byte order marker " + HexId(marker));
  }
  if (version < kOldestDumpFormatVersion || version > kDumpFormatVersion) {
    return Fail("unsupported version " + std::to_string(version) +
                    " (this reader knows " +
                    std::to_string(kOldestDumpFormatVersion) + " to " +
                    std::to_string(kDumpFormatVersion) + ")",
                absl::StatusCode::kUnimplemented);
  }
  out->version = version;

  // A whole file is checked before it is believed.  A file whose trailer
  // does not describe it is parsed section by section instead, so that a
  // truncation is reported where it happens.
  if (size_ >= kPreambleBytes + kTrailerBytes) {
    uint64_t body;
    uint32_t crc, end;
    const uint8_t* t = data_ + size_ - kTrailerBytes;
    std::memcpy(&body, t, 8);
    std::memcpy(&crc, t + 8, 4);
    std::memcpy(&end, t + 12, 4);
    if (verify_checksum_ && body == size_ - kTrailerBytes &&
        end == kTrailerMarker && Crc32cExtend(0, data_, size_ - 8) != crc) {
      return Fail("checksum mismatch");
    }
  }

  Cursor header(nullptr, 0), strings(nullptr, 0);
  uint32_t memory_count = 0;
  if (!Section(file, kTagHeader, "header", &header)) return false;
  if (!Header(header, out, &memory_count)) return false;
  if (!Section(file, kTagStrings, "string table", &strings)) return false;
  if (!Strings(strings)) return false;
  if (!String(source_index_, "header source", &out->source)) return false;
  out->notes.resize(note_indices_.size());
  for (size_t i = 0; i < note_indices_.size(); ++i) {
    if (!String(note_indices_[i], "note " + std::to_string(i),
                &out->notes[i])) {
      return false;
    }
  }
  if (memory_count > file.left() / (kSectionHeaderBytes + kMemoryMinBytes)) {
    return Truncated(
        "header claims " + std::to_string(memory_count) + " memories, which",
        uint64_t{memory_count} * (kSectionHeaderBytes + kMemoryMinBytes),
        file.left());
  }
  out->memories.resize(memory_count);
  for (uint32_t m = 0; m < memory_count; ++m) {
    const std::string name = "memory " + std::to_string(m);
    Cursor payload(nullptr, 0);
    if (!Section(file, kTagMemory, name, &payload)) return false;
    if (!Memory(payload, name, &out->memories[m])) return false;
  }
  if (!OptionalSections(file, out)) return false;
  if (!Trailer(file)) return false;
  // The trailer matched, so the checksum was verified above (unless a
  // DumpMoments asked not to).
  return true;
}

// The file open for reading, with its stat: the descriptor (the caller
// closes it), or the error naming the file when it cannot be opened or is
// not a regular file.
absl::StatusOr<int> OpenRegularFile(const std::string& path, struct stat* st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, path + ": cannot open");
  if (::fstat(fd, st) != 0) {
    const int e = errno;
    ::close(fd);
    return absl::ErrnoToStatus(e, path + ": cannot stat");
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(path + ": not a regular file");
  }
  return fd;
}

}  // namespace

absl::StatusOr<DumpFile> ParseDump(const uint8_t* data, size_t size) {
  DumpFile dump;
  Parser parser(data, size);
  if (!parser.Parse(&dump)) return parser.error();
  return dump;
}

const MemoryHistory* FindHistory(const DumpFile& dump, const Snapshot& memory) {
  for (const MemoryHistory& h : dump.histories)
    if (h.memory_id == memory.memory_id && h.node == memory.node) return &h;
  return nullptr;
}

absl::StatusOr<DumpFile> ReadDump(const std::string& path) {
  struct stat st;
  const absl::StatusOr<int> opened = OpenRegularFile(path, &st);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(fd, &bytes[got], bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return absl::ErrnoToStatus(errno, path + ": read failed");
    if (r == 0) break;  // shrank while we read: parse what is there
    got += static_cast<size_t>(r);
  }
  bytes.resize(got);
  absl::StatusOr<DumpFile> dump =
      ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!dump.ok())
    return absl::Status(dump.status().code(), path + ": " + std::string(dump.status().message()));
  return dump;
}

// ---------------------------------------------------------------------------
// A dump read for one moment.

struct DumpMoments::Impl {
  ~Impl() {
    if (map != nullptr) ::munmap(map, size);
  }
  void* map = nullptr;
  size_t size = 0;
  std::string path;
  DumpFile dump;
  std::vector<HistoryIndex> index;
  std::vector<Outline> outlines;
  std::unique_ptr<Parser> parser;
};

DumpMoments::DumpMoments() : impl_(new Impl) {}
DumpMoments::~DumpMoments() = default;
const DumpFile& DumpMoments::dump() const { return impl_->dump; }
const std::vector<DumpMoments::Outline>& DumpMoments::histories() const {
  return impl_->outlines;
}

absl::Status DumpMoments::Open(const std::string& path, bool verify_checksum) {
  impl_.reset(new Impl);
  Impl& d = *impl_;
  d.path = path;
  struct stat st;
  const absl::StatusOr<int> fd = OpenRegularFile(path, &st);
  if (!fd.ok()) return fd.status();
  d.size = static_cast<size_t>(st.st_size);
  if (d.size > 0) {
    d.map = ::mmap(nullptr, d.size, PROT_READ, MAP_PRIVATE, *fd, 0);
    if (d.map == MAP_FAILED) {
      const int e = errno;
      d.map = nullptr;
      ::close(*fd);
      return absl::ErrnoToStatus(e, path + ": cannot map");
    }
  }
  ::close(*fd);
  if (absl::Status parsed =
          Parse(static_cast<const uint8_t*>(d.map), d.size, verify_checksum);
      !parsed.ok())
    return absl::Status(parsed.code(), path + ": " + std::string(parsed.message()));
  return absl::OkStatus();
}

absl::Status DumpMoments::Parse(const uint8_t* data, size_t size,
                                bool verify_checksum) {
  Impl& d = *impl_;
  d.dump = DumpFile();
  d.index.clear();
  d.outlines.clear();
  d.parser.reset(new Parser(data, size));
  if (!d.parser->ParseIndexed(&d.dump, verify_checksum, &d.index))
    return d.parser->error();
  for (const HistoryIndex& x : d.index) {
    Outline o;
    o.memory_id = x.head.memory_id;
    o.node = x.head.node;
    o.first_sequence = x.first_sequence;
    o.end_sequence = x.first_sequence + x.event_count;
    o.checkpoints = x.checkpoint_at.size();
    o.marks = x.head.marks;
    d.outlines.push_back(std::move(o));
  }
  return absl::OkStatus();
}

absl::StatusOr<MemoryHistory> DumpMoments::HistoryFor(size_t i,
                                                      uint64_t sequence) const {
  const Impl& d = *impl_;
  const HistoryIndex& x = d.index[i];
  const Outline& o = d.outlines[i];
  const auto fail = [&](absl::StatusCode code, const std::string& what) {
    return absl::Status(code, d.path.empty() ? what : d.path + ": " + what);
  };
  // What the parser found wrong in the bytes this cut reads.
  const auto parser_failed = [&] {
    const absl::Status why = d.parser->error();
    return fail(why.code(), std::string(why.message()));
  };
  if (sequence < o.first_sequence || sequence > o.end_sequence)
    return fail(absl::StatusCode::kOutOfRange,
                "moment " + std::to_string(sequence) +
                " is outside the history of memory " + HexId(o.memory_id) +
                ": it holds moments " + std::to_string(o.first_sequence) +
                " to " + std::to_string(o.end_sequence));
  // StateAt's checkpoint (the last at or before the moment), after the one
  // before the moment's event when that is earlier, so that the cut holds
  // the event that led to the moment (its time and line).
  const auto last_at = [&](uint64_t s) {
    return static_cast<size_t>(
        std::upper_bound(x.checkpoint_sequence.begin(),
                         x.checkpoint_sequence.end(), s) -
        x.checkpoint_sequence.begin() - 1);
  };
  const size_t k = last_at(sequence);
  const size_t j = last_at(sequence > o.first_sequence ? sequence - 1 : sequence);
  const MemoryHistory& head = x.head;
  MemoryHistory cut;
  MemoryHistory* out = &cut;
  out->memory_id = head.memory_id;
  out->node = head.node;
  out->clock = head.clock;
  out->clock_origin_unix_ns = head.clock_origin_unix_ns;
  out->window_events = head.window_events;
  out->identities = head.identities;
  out->checkpoints.resize(j < k ? 2 : 1);
  for (size_t c = 0; c < out->checkpoints.size(); ++c)
    if (!d.parser->IndexedCheckpoint(x, c == 0 ? j : k, &out->checkpoints[c]))
      return parser_failed();
  HistoryCheckpoint& cp = out->checkpoints[0];
  if (j > 0) {  // StateAt describes the memory as its base does
    HistoryCheckpoint base;
    if (!d.parser->IndexedCheckpoint(x, 0, &base)) return parser_failed();
    cp.state.kind = base.state.kind;
    cp.state.name = std::move(base.state.name);
    cp.state.exact = base.state.exact;
    cp.state.counters.journal_overflows = base.state.counters.journal_overflows;
  }
  const uint64_t from = cp.state.sequence;
  const uint64_t to = std::min(sequence + 1, o.end_sequence);
  if (!d.parser->IndexedEvents(x, from, to, &out->events)) return parser_failed();
  // The mark in force at `from` starts the cut; later ones up to `to`.
  size_t m = static_cast<size_t>(
      std::upper_bound(head.marks.begin(), head.marks.end(), from,
                       [](uint64_t s, const HistoryMark& mark) {
                         return s < mark.sequence;
                       }) -
      head.marks.begin());
  if (m > 0) --m;
  for (; to > from && m < head.marks.size() && head.marks[m].sequence < to; ++m) {
    out->marks.push_back(head.marks[m]);
    out->marks.back().sequence = std::max(head.marks[m].sequence, from);
    if (!head.lines.empty()) out->lines.push_back(head.lines[m]);
  }
  if (absl::Status checked = CheckHistory(*out); !checked.ok())
    return fail(absl::StatusCode::kDataLoss,
                "section '" + x.name + "': " + std::string(checked.message()));
  return cut;
}

}  // namespace realm_shadow
