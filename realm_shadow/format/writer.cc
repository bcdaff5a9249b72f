// realm_shadow/format/writer.cc - the dump file's writer (docs/dump-format.md).
//
// The writer streams.  Every section's length is computed from the
// snapshots before a byte is written, the string table is emitted in a
// fixed traversal order (no deduplication, hence no hash map), and bytes
// pass through one 64 KiB buffer on the stack into the file and the running
// CRC.  The only heap use besides the caller's snapshots is one sorted copy
// of a history checkpoint's released ids at a time (8 B an id, at most
// max(16384, live)), so that the file lists them ascending.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/format/atomic_file.h"
#include "realm_shadow/format/internal/crc32c.h"
#include "realm_shadow/format/internal/layout.h"

namespace realm_shadow {
namespace {

using namespace dump_format;

// ---------------------------------------------------------------------------
// Sizes, computed before writing so that the writer can stream.

uint64_t IdentityBytes(const Identity& identity) {
  return kIdentityFixedBytes + kAttributeBytes * identity.attributes.size();
}

uint64_t MemoryPayloadBytes(const Snapshot& s);

// A checkpoint's array lengths, in the order of its counts on disk.
std::array<uint64_t, kCheckpointArrays> CheckpointArrayCounts(
    const HistoryCheckpoint& c) {
  std::array<uint64_t, kCheckpointArrays> counts{};
  counts[kReleasedIds] = c.released.size();
  counts[kFailedIds] = c.failed.size();
  counts[kEarlyReleases] = c.early_releases.size();
  counts[kPendingFlags] = c.pending_flags.size();
  counts[kGroupRecords] = c.group_records.size();
  return counts;
}

static_assert(kCheckpointLengthBytes == sizeof(uint64_t),
              "a checkpoint's length is a uint64_t");

uint64_t CheckpointBytes(const HistoryCheckpoint& c) {
  uint64_t n = kCheckpointLengthBytes + MemoryPayloadBytes(c.state) +
               kCheckpointExtrasBytes;
  const auto counts = CheckpointArrayCounts(c);
  for (size_t i = 0; i < kCheckpointArrays; ++i)
    n += kCheckpointRecordBytes[i] * counts[i];
  return n;
}

uint64_t HistoryPayloadBytes(const MemoryHistory& h) {
  uint64_t n = kHistoryFixedBytes + kHistoryEventBytes * h.events.size() +
               kHistoryMarkBytes * h.marks.size() + 8 * h.lines.size();
  for (const HistoryCheckpoint& c : h.checkpoints) n += CheckpointBytes(c);
  for (const Identity& id : h.identities) n += IdentityBytes(id);
  return n;
}

uint64_t MemoryPayloadBytes(const Snapshot& s) {
  uint64_t n = kMemoryFixedBytes + kMemoryCountsBytes + kCountersBytes;
  n += kAllocationBytes * s.allocations.size();
  n += kPendingBytes * s.pending.size();
  n += kReservationBytes * s.reservations.size();
  n += kFailureBytes * s.failures.size();
  n += kAnomalyBytes * s.anomalies.size();
  for (const Identity& id : s.identities) n += IdentityBytes(id);
  return n;
}

// Every string of the dump in table order: source, notes, then per memory
// its name and each identity's attribute keys and values, then per history
// each checkpoint's name and each identity's attributes.
template <typename F>
void ForEachString(const DumpFile& dump, F&& f) {
  const auto identities = [&](const std::vector<Identity>& list) {
    for (const Identity& id : list) {
      for (const auto& kv : id.attributes) {
        f(kv.first);
        f(kv.second);
      }
    }
  };
  f(dump.source);
  for (const std::string& note : dump.notes) f(note);
  for (const Snapshot& s : dump.memories) {
    f(s.name);
    identities(s.identities);
  }
  for (const MemoryHistory& h : dump.histories) {
    for (const HistoryCheckpoint& c : h.checkpoints) {
      f(c.state.name);
      identities(c.state.identities);  // normally none: the history has them
    }
    identities(h.identities);
  }
}

// The index of the memory a history belongs to, or -1.
int64_t MemoryIndexOf(const DumpFile& dump, const MemoryHistory& h) {
  for (size_t i = 0; i < dump.memories.size(); ++i)
    if (dump.memories[i].memory_id == h.memory_id &&
        dump.memories[i].node == h.node)
      return static_cast<int64_t>(i);
  return -1;
}

// The optional pools section (written only when there are pools).
uint64_t PoolsPayloadBytes(const DumpFile& dump) {
  uint64_t n = kPoolsHeaderBytes;
  for (const Pool& p : dump.pools)
    n += kPoolFixedBytes + kPoolSubAllocationBytes * p.suballocations.size();
  return n;
}

// The optional gcun section: the indices of the memories whose source does
// not know GC state (written only when there is one).
uint64_t GcUnknownCount(const DumpFile& dump) {
  uint64_t n = 0;
  for (const Snapshot& s : dump.memories) n += s.gc_state_known ? 0 : 1;
  return n;
}
uint64_t GcUnknownPayloadBytes(const DumpFile& dump) {
  return kGcUnknownHeaderBytes + 4 * GcUnknownCount(dump);
}

struct Layout {
  uint64_t header_payload = 0;
  uint64_t strings_payload = 0;
  uint64_t string_count = 0;
  uint64_t total = 0;
};

Layout ComputeLayout(const DumpFile& dump) {
  Layout l;
  l.header_payload = 24 + 4 * uint64_t{dump.notes.size()};
  l.strings_payload = 8;
  ForEachString(dump, [&](const std::string& s) {
    l.strings_payload += 4 + s.size();
    ++l.string_count;
  });
  l.total = kPreambleBytes + kSectionHeaderBytes + l.header_payload +
            kSectionHeaderBytes + l.strings_payload + kTrailerBytes;
  for (const Snapshot& s : dump.memories) {
    l.total += kSectionHeaderBytes + MemoryPayloadBytes(s);
  }
  if (!dump.pools.empty()) l.total += kSectionHeaderBytes + PoolsPayloadBytes(dump);
  if (GcUnknownCount(dump) > 0)
    l.total += kSectionHeaderBytes + GcUnknownPayloadBytes(dump);
  for (const MemoryHistory& h : dump.histories)
    l.total += kSectionHeaderBytes + HistoryPayloadBytes(h);
  return l;
}

// ---------------------------------------------------------------------------
// The writer: bytes go through a caller-provided buffer into a drain (a file
// descriptor or a string) and into the running CRC.

class Sink {
 public:
  Sink(uint8_t* buffer, size_t capacity) : buf_(buffer), cap_(capacity) {}
  virtual ~Sink() = default;

  void Bytes(const void* data, size_t n) {
    if (!ok_) return;
    crc_ = Crc32cExtend(crc_, data, n);
    const uint8_t* p = static_cast<const uint8_t*>(data);
    if (used_ == 0 && n >= cap_) {  // large arrays skip the copy
      ok_ = Drain(p, n);
      return;
    }
    while (n > 0 && ok_) {
      const size_t take = n < cap_ - used_ ? n : cap_ - used_;
      std::memcpy(buf_ + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == cap_) Flush();
    }
  }
  template <typename T>
  void Put(T v) {
    static_assert(std::is_integral<T>::value, "");
    Bytes(&v, sizeof v);
  }
  // Each value in its own type's width, in order.
  template <typename... T>
  void PutEach(T... v) {
    (Put(v), ...);
  }
  void Zeros(size_t n) {
    static const uint8_t kZero[8] = {};
    Bytes(kZero, n);
  }
  void Flush() {
    if (ok_ && used_ > 0) ok_ = Drain(buf_, used_);
    used_ = 0;
  }
  uint32_t crc() const { return crc_; }
  bool ok() const { return ok_; }

 protected:
  virtual bool Drain(const uint8_t* data, size_t n) = 0;

 private:
  uint8_t* buf_;
  size_t cap_;
  size_t used_ = 0;
  uint32_t crc_ = 0;
  bool ok_ = true;
};

class StringSink : public Sink {
 public:
  StringSink(uint8_t* buffer, size_t capacity, std::string* out)
      : Sink(buffer, capacity), out_(out) {}

 protected:
  bool Drain(const uint8_t* data, size_t n) override {
    out_->append(reinterpret_cast<const char*>(data), n);
    return true;
  }

 private:
  std::string* out_;
};

class FileSink : public Sink {
 public:
  FileSink(uint8_t* buffer, size_t capacity, int fd)
      : Sink(buffer, capacity), fd_(fd) {}
  int saved_errno() const { return errno_; }

 protected:
  bool Drain(const uint8_t* data, size_t n) override {
    errno_ = WriteFully(fd_, data, n);
    return errno_ == 0;
  }

 private:
  int fd_;
  int errno_ = 0;
};

void SectionHeader(Sink& out, const char (&tag)[4], uint64_t length) {
  out.Bytes(tag, 4);
  out.Put<uint32_t>(0);
  out.Put<uint64_t>(length);
}

void WriteIdentities(Sink& out, const std::vector<Identity>& identities,
                     uint32_t* next_string) {
  for (const Identity& id : identities) {
    out.Put<uint32_t>(id.id);
    out.Put<uint8_t>(static_cast<uint8_t>(id.kind));
    out.Zeros(3);
    out.Put<uint32_t>(static_cast<uint32_t>(id.attributes.size()));
    for (size_t i = 0; i < id.attributes.size(); ++i) {
      out.Put<uint32_t>((*next_string)++);
      out.Put<uint32_t>((*next_string)++);
    }
  }
}

// A memory payload (the MEMY layout, also a checkpoint's picture).
void WriteMemoryPayload(Sink& out, const Snapshot& s, uint32_t* next_string) {
  static_assert(kMemorySequenceOffset == 2 * sizeof(uint64_t),
                "the sequence follows the memory id and the capacity");
  out.PutEach(s.memory_id, s.capacity, s.sequence, s.node);
  out.Put<uint32_t>((*next_string)++);  // name
  out.Put<uint8_t>(static_cast<uint8_t>(s.kind));
  out.Put<uint8_t>(s.capacity_known ? 1 : 0);
  out.Put<uint8_t>(s.addressed ? 1 : 0);
  out.Put<uint8_t>(s.exact ? 1 : 0);
  out.Put<uint32_t>(0);

  out.PutEach<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>(
      s.allocations.size(), s.pending.size(), s.reservations.size(), s.failures.size(),
      s.anomalies.size(), s.identities.size());

  out.Put<uint32_t>(kEventTypeCount);
  out.Put<uint32_t>(kAnomalyKindCount);
  for (uint64_t v : s.counters.by_type) out.Put<uint64_t>(v);
  for (uint64_t v : s.counters.anomalies) out.Put<uint64_t>(v);
  out.PutEach(s.counters.failures, s.counters.cancelled, s.counters.peak_used,
              s.counters.journal_overflows);

  if (!s.allocations.empty()) {
    out.Bytes(s.allocations.data(), kAllocationBytes * s.allocations.size());
  }
  for (const PendingRequest& p : s.pending) {
    out.PutEach(p.instance, p.size, p.alignment, p.planned_offset, p.sequence, p.identity,
                p.flags);
    out.Zeros(3);
  }
  for (const Reservation& r : s.reservations) {
    out.PutEach(r.id, r.offset, r.size, r.sequence);
  }
  for (const Failure& f : s.failures) {
    out.PutEach(f.instance, f.size, f.alignment, f.sequence, f.identity);
    out.Put<uint8_t>(FailureFlagsOf(f));
    out.Zeros(3);
  }
  for (const Anomaly& a : s.anomalies) {
    out.PutEach(a.sequence, a.instance, a.offset, a.size, a.other_instance);
    out.Put<uint8_t>(static_cast<uint8_t>(a.kind));
    out.Zeros(7);
  }
  WriteIdentities(out, s.identities, next_string);
}

void WriteMemory(Sink& out, const Snapshot& s, uint32_t* next_string) {
  SectionHeader(out, kTagMemory, MemoryPayloadBytes(s));
  WriteMemoryPayload(out, s, next_string);
}

void WriteEventRecords(Sink& out, const EventRecord* records, size_t n) {
  if (n > 0) out.Bytes(records, kHistoryEventBytes * n);
}

void WriteHistory(Sink& out, const MemoryHistory& h, uint32_t memory_index,
                  uint32_t* next_string) {
  SectionHeader(out, kTagHistory, HistoryPayloadBytes(h));
  out.Put<uint32_t>(memory_index);
  out.Put<uint8_t>(static_cast<uint8_t>(h.clock));
  out.Zeros(3);
  out.Put<uint64_t>(h.clock_origin_unix_ns);
  out.Put<uint64_t>(h.window_events);
  out.Put<uint64_t>(h.checkpoints.size());
  out.Put<uint64_t>(h.events.size());
  out.Put<uint64_t>(h.marks.size());
  out.Put<uint64_t>(h.lines.size());
  out.Put<uint64_t>(h.identities.size());
  WriteEventRecords(out, h.events.data(), h.events.size());
  if (!h.marks.empty())
    out.Bytes(h.marks.data(), kHistoryMarkBytes * h.marks.size());
  for (uint64_t line : h.lines) out.Put<uint64_t>(line);
  std::vector<uint64_t> released;  // one buffer for every checkpoint's sorted copy
  for (const HistoryCheckpoint& c : h.checkpoints) {
    out.Put<uint64_t>(MemoryPayloadBytes(c.state));  // kCheckpointLengthBytes
    WriteMemoryPayload(out, c.state, next_string);
    for (uint64_t n : CheckpointArrayCounts(c)) out.Put<uint64_t>(n);
    out.Put<uint8_t>(static_cast<uint8_t>(c.group_type));
    out.Put<uint8_t>(c.heap_observed ? 1 : 0);
    out.Zeros(2);
    out.Put<uint32_t>(c.group_left);
    // Ascending, whatever order the consumer took them in (history.h):
    // the file does not depend on a hash table's iteration order.
    released.assign(c.released.begin(), c.released.end());
    std::sort(released.begin(), released.end());
    for (uint64_t id : released) out.Put<uint64_t>(id);
    for (uint64_t id : c.failed) out.Put<uint64_t>(id);
    for (const auto& [instance, ready] : c.early_releases) {
      out.Put<uint64_t>(instance);
      out.Put<uint8_t>(ready ? 1 : 0);
      out.Zeros(7);
    }
    if (!c.pending_flags.empty())
      out.Bytes(c.pending_flags.data(), c.pending_flags.size());
    for (const Event& e : c.group_records) {
      const EventRecord r = HistoryRecordOf(e);
      WriteEventRecords(out, &r, 1);
    }
  }
  WriteIdentities(out, h.identities, next_string);
}

void WritePools(Sink& out, const DumpFile& dump) {
  if (dump.pools.empty()) return;
  SectionHeader(out, kTagPools, PoolsPayloadBytes(dump));
  out.Put<uint32_t>(static_cast<uint32_t>(dump.pools.size()));
  out.Put<uint32_t>(0);
  for (const Pool& p : dump.pools) {
    out.PutEach<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>(
        p.memory_id, p.pool, p.backing_instance, p.offset, p.size, p.suballocations.size());
    for (const PoolSubAllocation& sub : p.suballocations) {
      out.PutEach(sub.instance, sub.offset, sub.size, sub.identity, uint32_t{0});
    }
  }
}

void WriteGcUnknown(Sink& out, const DumpFile& dump) {
  const uint64_t count = GcUnknownCount(dump);
  if (count == 0) return;
  SectionHeader(out, kTagGcUnknown, GcUnknownPayloadBytes(dump));
  out.Put<uint32_t>(static_cast<uint32_t>(count));
  out.Put<uint32_t>(0);
  for (size_t i = 0; i < dump.memories.size(); ++i)
    if (!dump.memories[i].gc_state_known) out.Put<uint32_t>(static_cast<uint32_t>(i));
}

// Checks what the format cannot represent.  Nothing a real snapshot holds
// comes near these limits.
absl::Status CheckWritable(const DumpFile& dump, const Layout& layout) {
  if (layout.string_count > UINT32_MAX) {
    return absl::OutOfRangeError(absl::StrCat(
        "too many strings for one dump (", layout.string_count, ")"));
  }
  if (dump.memories.size() > UINT32_MAX || dump.notes.size() > UINT32_MAX ||
      dump.pools.size() > UINT32_MAX)
    return absl::OutOfRangeError("too many memories, notes or pools for one dump");
  bool ok = true;
  ForEachString(dump, [&](const std::string& s) {
    if (s.size() > UINT32_MAX) ok = false;
  });
  for (const Snapshot& s : dump.memories) {
    for (const Identity& id : s.identities) {
      if (id.attributes.size() > UINT32_MAX) ok = false;
    }
  }
  if (!ok)
    return absl::OutOfRangeError("a string or identity is too large for the dump format");
  for (size_t i = 0; i < dump.histories.size(); ++i) {
    const MemoryHistory& h = dump.histories[i];
    if (MemoryIndexOf(dump, h) < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "history ", i, " is of memory ", HexId(h.memory_id), " of node ",
          h.node, ", which the dump does not hold"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (MemoryIndexOf(dump, dump.histories[j]) == MemoryIndexOf(dump, h))
        return absl::InvalidArgumentError(
            absl::StrCat("two histories of memory ", HexId(h.memory_id)));
    }
    if (absl::Status checked = CheckHistory(h); !checked.ok()) return checked;
  }
  return absl::OkStatus();
}

void WriteAll(Sink& out, const DumpFile& dump, const Layout& layout) {
  out.Bytes(kMagic, sizeof kMagic);
  out.Put<uint32_t>(kDumpFormatVersion);
  out.Put<uint32_t>(kEndianMarker);

  SectionHeader(out, kTagHeader, layout.header_payload);
  out.Put<uint32_t>(dump.node);
  out.Put<uint32_t>(static_cast<uint32_t>(dump.memories.size()));
  out.Put<uint64_t>(dump.created_unix_ns);
  uint32_t next_string = 0;
  out.Put<uint32_t>(next_string++);  // source
  out.Put<uint32_t>(static_cast<uint32_t>(dump.notes.size()));
  for (size_t i = 0; i < dump.notes.size(); ++i)
    out.Put<uint32_t>(next_string++);

  SectionHeader(out, kTagStrings, layout.strings_payload);
  out.Put<uint32_t>(static_cast<uint32_t>(layout.string_count));
  out.Put<uint32_t>(0);
  ForEachString(dump, [&](const std::string& s) {
    out.Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out.Bytes(s.data(), s.size());
  });

  for (const Snapshot& s : dump.memories) WriteMemory(out, s, &next_string);
  WritePools(out, dump);
  WriteGcUnknown(out, dump);
  for (const MemoryHistory& h : dump.histories)
    WriteHistory(out, h, static_cast<uint32_t>(MemoryIndexOf(dump, h)),
                 &next_string);

  const uint64_t body = layout.total - kTrailerBytes;
  out.Put<uint64_t>(body);
  const uint32_t crc = out.crc();  // over every byte before this field
  out.Put<uint32_t>(crc);
  out.Put<uint32_t>(kTrailerMarker);
  out.Flush();
}

}  // namespace

std::string SerializeDump(const DumpFile& dump) {
  const Layout layout = ComputeLayout(dump);
  std::string out;
  if (!CheckWritable(dump, layout).ok()) return out;
  out.reserve(layout.total);
  uint8_t buffer[4096];
  StringSink sink(buffer, sizeof buffer, &out);
  WriteAll(sink, dump, layout);
  return out;
}

absl::Status WriteDump(const std::string& path, const DumpFile& dump) {
  const Layout layout = ComputeLayout(dump);
  if (absl::Status writable = CheckWritable(dump, layout); !writable.ok())
    return absl::Status(writable.code(), absl::StrCat(path, ": ", writable.message()));
  AtomicFile file;
  if (absl::Status opened = file.Open(path); !opened.ok()) return opened;
  // 64 KiB on the stack: at out-of-memory time the heap may be the memory
  // that is full.
  uint8_t buffer[64 << 10];
  FileSink sink(buffer, sizeof buffer, file.fd());
  WriteAll(sink, dump, layout);
  if (!sink.ok()) file.Failed("write", sink.saved_errno());
  return file.Commit();
}

}  // namespace realm_shadow
