// realm_shadow/dump/format.cc - the binary dump file: writer and reader.
//
// The layout is specified in docs/dump-format.md; this file follows it
// section by section.  Two rules shape the code:
//  - The writer streams.  Every section's length is computed from the
//    snapshots before a byte is written, the string table is emitted in a
//    fixed traversal order (no deduplication, hence no hash map), and bytes
//    pass through one 64 KiB buffer on the stack into the file and the
//    running CRC.  The only heap use is the caller's snapshots.
//  - The reader trusts nothing.  Every length and count is checked against
//    the bytes that remain before it is used, so a reader never allocates
//    more than a small multiple of the file's size, and every error is one
//    line.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "realm_shadow/dump/crc32c.h"
#include "realm_shadow/dump/dump.h"
#include "realm_shadow/recorder/tracker.h"

namespace realm_shadow {
namespace {

// ---------------------------------------------------------------------------
// Constants of the format (docs/dump-format.md).

constexpr char kMagic[8] = {'R', 'S', 'H', 'A', 'D', 'O', 'W', '\0'};
constexpr uint32_t kEndianMarker = 0x01020304u;
constexpr uint32_t kEndianMarkerSwapped = 0x04030201u;
constexpr uint32_t kTrailerMarker = 0x444E4552u;  // "REND" on little-endian
constexpr size_t kPreambleBytes = 16;
constexpr size_t kSectionHeaderBytes = 16;
constexpr size_t kTrailerBytes = 16;

constexpr char kTagHeader[4] = {'H', 'E', 'A', 'D'};
constexpr char kTagStrings[4] = {'S', 'T', 'R', 'S'};
constexpr char kTagMemory[4] = {'M', 'E', 'M', 'Y'};

// Record sizes on disk.
constexpr size_t kAllocationBytes = 32;
constexpr size_t kPendingBytes = 48;
constexpr size_t kReservationBytes = 32;
constexpr size_t kFailureBytes = 40;
constexpr size_t kAnomalyBytes = 48;
constexpr size_t kIdentityFixedBytes = 12;
constexpr size_t kAttributeBytes = 8;
constexpr size_t kMemoryFixedBytes = 40;
constexpr size_t kMemoryCountsBytes = 48;
constexpr size_t kCountersBytes =
    8 + 8 * (kEventTypeCount + kAnomalyKindCount) + 32;
// The counters say how many event types they count; files written before
// the heap-observation events count the first 12, and read with the others
// zero.
constexpr uint32_t kFirstEventTypeCount = 12;
constexpr size_t kCountersMinBytes =
    8 + 8 * (kFirstEventTypeCount + kAnomalyKindCount) + 32;
constexpr size_t kMemoryMinBytes =
    kMemoryFixedBytes + kMemoryCountsBytes + kCountersMinBytes;

// A reader refuses files whose string references would expand to more than
// this many times the file's size (a string may be referenced more than
// once, so without a bound 4 bytes of reference could cost megabytes).
constexpr uint64_t kStringExpansionLimit = 16;

// Allocation records are the in-memory struct, byte for byte: the copy of a
// 100k-allocation memory is one memcpy.  These pin the layout the format
// document gives.
static_assert(std::is_trivially_copyable<Allocation>::value, "");
static_assert(offsetof(Allocation, offset) == 0, "");
static_assert(offsetof(Allocation, size) == 8, "");
static_assert(offsetof(Allocation, instance) == 16, "");
static_assert(offsetof(Allocation, identity) == 24, "");
static_assert(offsetof(Allocation, alignment_log2) == 28, "");
static_assert(offsetof(Allocation, state) == 29, "");
static_assert(offsetof(Allocation, flags) == 30, "");
static_assert(offsetof(Allocation, kind) == 31, "");
static_assert(sizeof(Allocation) == kAllocationBytes, "");

constexpr uint8_t kMaxMemoryKind = static_cast<uint8_t>(MemoryKind::kGlobal);
constexpr uint8_t kMaxAllocationState =
    static_cast<uint8_t>(AllocationState::kReleaseReady);

// ---------------------------------------------------------------------------
// Sizes, computed before writing so that the writer can stream.

uint64_t IdentityBytes(const Identity& identity) {
  return kIdentityFixedBytes + kAttributeBytes * identity.attributes.size();
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
// its name and each identity's attribute keys and values.
template <typename F>
void ForEachString(const DumpFile& dump, F&& f) {
  f(dump.source);
  for (const std::string& note : dump.notes) f(note);
  for (const Snapshot& s : dump.memories) {
    f(s.name);
    for (const Identity& id : s.identities) {
      for (const auto& kv : id.attributes) {
        f(kv.first);
        f(kv.second);
      }
    }
  }
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
    while (n > 0) {
      const ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        errno_ = errno;
        return false;
      }
      if (w == 0) {  // no progress and no errno: treat as a full disk
        errno_ = ENOSPC;
        return false;
      }
      data += w;
      n -= static_cast<size_t>(w);
    }
    return true;
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

void WriteMemory(Sink& out, const Snapshot& s, uint32_t* next_string) {
  SectionHeader(out, kTagMemory, MemoryPayloadBytes(s));
  out.Put<uint64_t>(s.memory_id);
  out.Put<uint64_t>(s.capacity);
  out.Put<uint64_t>(s.sequence);
  out.Put<uint32_t>(s.node);
  out.Put<uint32_t>((*next_string)++);  // name
  out.Put<uint8_t>(static_cast<uint8_t>(s.kind));
  out.Put<uint8_t>(s.capacity_known ? 1 : 0);
  out.Put<uint8_t>(s.addressed ? 1 : 0);
  out.Put<uint8_t>(s.exact ? 1 : 0);
  out.Put<uint32_t>(0);

  out.Put<uint64_t>(s.allocations.size());
  out.Put<uint64_t>(s.pending.size());
  out.Put<uint64_t>(s.reservations.size());
  out.Put<uint64_t>(s.failures.size());
  out.Put<uint64_t>(s.anomalies.size());
  out.Put<uint64_t>(s.identities.size());

  out.Put<uint32_t>(kEventTypeCount);
  out.Put<uint32_t>(kAnomalyKindCount);
  for (uint64_t v : s.counters.by_type) out.Put<uint64_t>(v);
  for (uint64_t v : s.counters.anomalies) out.Put<uint64_t>(v);
  out.Put<uint64_t>(s.counters.failures);
  out.Put<uint64_t>(s.counters.cancelled);
  out.Put<uint64_t>(s.counters.peak_used);
  out.Put<uint64_t>(s.counters.journal_overflows);

  if (!s.allocations.empty()) {
    out.Bytes(s.allocations.data(), kAllocationBytes * s.allocations.size());
  }
  for (const PendingRequest& p : s.pending) {
    out.Put<uint64_t>(p.instance);
    out.Put<uint64_t>(p.size);
    out.Put<uint64_t>(p.alignment);
    out.Put<uint64_t>(p.planned_offset);
    out.Put<uint64_t>(p.sequence);
    out.Put<uint32_t>(p.identity);
    out.Put<uint8_t>(p.flags);
    out.Zeros(3);
  }
  for (const Reservation& r : s.reservations) {
    out.Put<uint64_t>(r.id);
    out.Put<uint64_t>(r.offset);
    out.Put<uint64_t>(r.size);
    out.Put<uint64_t>(r.sequence);
  }
  for (const Failure& f : s.failures) {
    out.Put<uint64_t>(f.instance);
    out.Put<uint64_t>(f.size);
    out.Put<uint64_t>(f.alignment);
    out.Put<uint64_t>(f.sequence);
    out.Put<uint32_t>(f.identity);
    out.Put<uint8_t>(f.eventual ? 1 : 0);
    out.Zeros(3);
  }
  for (const Anomaly& a : s.anomalies) {
    out.Put<uint64_t>(a.sequence);
    out.Put<uint64_t>(a.instance);
    out.Put<uint64_t>(a.offset);
    out.Put<uint64_t>(a.size);
    out.Put<uint64_t>(a.other_instance);
    out.Put<uint8_t>(static_cast<uint8_t>(a.kind));
    out.Zeros(7);
  }
  for (const Identity& id : s.identities) {
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

// Checks what the format cannot represent.  Nothing a real snapshot holds
// comes near these limits.
bool CheckWritable(const DumpFile& dump, const Layout& layout,
                   std::string* error) {
  if (layout.string_count > UINT32_MAX) {
    *error = "too many strings for one dump (" +
             std::to_string(layout.string_count) + ")";
    return false;
  }
  if (dump.memories.size() > UINT32_MAX || dump.notes.size() > UINT32_MAX) {
    *error = "too many memories or notes for one dump";
    return false;
  }
  bool ok = true;
  ForEachString(dump, [&](const std::string& s) {
    if (s.size() > UINT32_MAX) ok = false;
  });
  for (const Snapshot& s : dump.memories) {
    for (const Identity& id : s.identities) {
      if (id.attributes.size() > UINT32_MAX) ok = false;
    }
  }
  if (!ok) *error = "a string or identity is too large for the dump format";
  return ok;
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

  const uint64_t body = layout.total - kTrailerBytes;
  out.Put<uint64_t>(body);
  const uint32_t crc = out.crc();  // over every byte before this field
  out.Put<uint32_t>(crc);
  out.Put<uint32_t>(kTrailerMarker);
  out.Flush();
}

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
  bool Has(uint64_t n) const { return n <= left_; }
  void Skip(size_t n) {
    p_ += n;
    left_ -= n;
  }

 private:
  const uint8_t* p_;
  size_t left_;
};

class Parser {
 public:
  Parser(const uint8_t* data, size_t size, std::string* error)
      : data_(data), size_(size), error_(error) {}
  bool Parse(DumpFile* out);

 private:
  bool Fail(std::string what) {
    *error_ = std::move(what);
    return false;
  }
  bool Truncated(const std::string& what, uint64_t need, size_t left) {
    return Fail("truncated (" + what + " needs " + std::to_string(need) +
                " bytes, " + std::to_string(left) + " left)");
  }
  bool Section(Cursor& file, const char (&tag)[4], const std::string& name,
               Cursor* payload);
  bool String(uint32_t index, const std::string& where, std::string* out);
  bool Header(Cursor& c, DumpFile* out, uint32_t* memory_count);
  bool Strings(Cursor& c);
  bool Memory(Cursor& c, const std::string& name, Snapshot* s);
  bool Trailer(Cursor& file);

  const uint8_t* data_;
  size_t size_;
  std::string* error_;
  std::vector<std::string_view> strings_;
  uint64_t expanded_ = 0;  // string bytes materialized so far
  uint32_t source_index_ = 0;
  std::vector<uint32_t> note_indices_;
};

bool Parser::Section(Cursor& file, const char (&tag)[4],
                     const std::string& name, Cursor* payload) {
  const std::string what = "section '" + name + "'";
  if (!file.Has(kSectionHeaderBytes)) {
    return Truncated(what + " header", kSectionHeaderBytes, file.left());
  }
  if (std::memcmp(file.here(), tag, 4) != 0) {
    std::string found;
    for (int i = 0; i < 4; ++i) {
      const char ch = static_cast<char>(file.here()[i]);
      found += (ch >= 0x20 && ch < 0x7f) ? ch : '?';
    }
    return Fail(what + " is missing (found tag '" + found + "' at byte " +
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
  s->memory_id = c.Get<uint64_t>();
  s->capacity = c.Get<uint64_t>();
  s->sequence = c.Get<uint64_t>();
  s->node = c.Get<uint32_t>();
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
  s->counters.failures = c.Get<uint64_t>();
  s->counters.cancelled = c.Get<uint64_t>();
  s->counters.peak_used = c.Get<uint64_t>();
  s->counters.journal_overflows = c.Get<uint64_t>();

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
    p.instance = c.Get<uint64_t>();
    p.size = c.Get<uint64_t>();
    p.alignment = c.Get<uint64_t>();
    p.planned_offset = c.Get<uint64_t>();
    p.sequence = c.Get<uint64_t>();
    p.identity = c.Get<uint32_t>();
    p.flags = c.Get<uint8_t>();
    if (c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>()) {
      return Fail(where + ": a pending request has nonzero padding");
    }
  }
  s->reservations.resize(counts[2]);
  for (Reservation& r : s->reservations) {
    r.id = c.Get<uint64_t>();
    r.offset = c.Get<uint64_t>();
    r.size = c.Get<uint64_t>();
    r.sequence = c.Get<uint64_t>();
  }
  s->failures.resize(counts[3]);
  for (Failure& f : s->failures) {
    f.instance = c.Get<uint64_t>();
    f.size = c.Get<uint64_t>();
    f.alignment = c.Get<uint64_t>();
    f.sequence = c.Get<uint64_t>();
    f.identity = c.Get<uint32_t>();
    const uint8_t eventual = c.Get<uint8_t>();
    if (eventual > 1 ||
        (c.Get<uint8_t>() | c.Get<uint8_t>() | c.Get<uint8_t>())) {
      return Fail(where + ": a failure has a bad flag or nonzero padding");
    }
    f.eventual = eventual;
  }
  s->anomalies.resize(counts[4]);
  for (Anomaly& a : s->anomalies) {
    a.sequence = c.Get<uint64_t>();
    a.instance = c.Get<uint64_t>();
    a.offset = c.Get<uint64_t>();
    a.size = c.Get<uint64_t>();
    a.other_instance = c.Get<uint64_t>();
    const uint8_t kind = c.Get<uint8_t>();
    if (kind >= kAnomalyKindCount) {
      return Fail(where + ": unknown anomaly kind " + std::to_string(kind));
    }
    a.kind = static_cast<AnomalyKind>(kind);
    uint8_t pad = 0;
    for (int i = 0; i < 7; ++i) pad |= c.Get<uint8_t>();
    if (pad) return Fail(where + ": an anomaly has nonzero padding");
  }

  // Identities vary in size: each is checked as it comes.
  s->identities.reserve(counts[5]);  // bounded above by left / 12
  for (uint64_t i = 0; i < counts[5]; ++i) {
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
    s->identities.push_back(std::move(id));
  }
  if (c.left() != 0) {
    return Fail(where + ": " + std::to_string(c.left()) +
                " bytes after its last record");
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
    return Fail("not a realm-shadow dump (bad magic)");
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
                HexId(marker) + "); this reader reads only native-order dumps");
  }
  if (marker != kEndianMarker) {
    return Fail("bad byte order marker " + HexId(marker));
  }
  if (version != kDumpFormatVersion) {
    return Fail("unsupported version " + std::to_string(version) +
                " (this reader knows " + std::to_string(kDumpFormatVersion) +
                ")");
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
    if (body == size_ - kTrailerBytes && end == kTrailerMarker &&
        Crc32cExtend(0, data_, size_ - 8) != crc) {
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
  if (!Trailer(file)) return false;
  // The trailer matched, so the checksum was verified above.
  return true;
}

// ---------------------------------------------------------------------------
// Files.

std::string ErrnoText(int e) { return std::strerror(e); }

uint64_t NowUnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace

std::string SerializeDump(const DumpFile& dump) {
  const Layout layout = ComputeLayout(dump);
  std::string out;
  std::string ignored;
  if (!CheckWritable(dump, layout, &ignored)) return out;
  out.reserve(layout.total);
  uint8_t buffer[4096];
  StringSink sink(buffer, sizeof buffer, &out);
  WriteAll(sink, dump, layout);
  return out;
}

bool WriteDump(const std::string& path, const DumpFile& dump,
               std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  const Layout layout = ComputeLayout(dump);
  if (!CheckWritable(dump, layout, error)) {
    *error = path + ": " + *error;
    return false;
  }
  // The temporary lives in the destination's directory so that rename() is
  // atomic (same file system).
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = path + ": cannot create " + temp + ": " + ErrnoText(errno);
    return false;
  }
  // 64 KiB on the stack: at out-of-memory time the heap may be the memory
  // that is full.
  uint8_t buffer[64 << 10];
  FileSink sink(buffer, sizeof buffer, fd);
  WriteAll(sink, dump, layout);
  int failed_errno = sink.ok() ? 0 : sink.saved_errno();
  const char* step = "write";
  if (failed_errno == 0 && ::fsync(fd) != 0) {
    failed_errno = errno;
    step = "fsync";
  }
  if (::close(fd) != 0 && failed_errno == 0) {
    failed_errno = errno;
    step = "close";
  }
  if (failed_errno == 0 && ::rename(temp.c_str(), path.c_str()) != 0) {
    failed_errno = errno;
    step = "rename";
  }
  if (failed_errno != 0) {
    ::unlink(temp.c_str());
    *error = path + ": " + step + " failed: " + ErrnoText(failed_errno);
    return false;
  }
  return true;
}

bool ParseDump(const uint8_t* data, size_t size, DumpFile* out,
               std::string* error) {
  std::string scratch;
  DumpFile local;
  Parser parser(data, size, error ? error : &scratch);
  return parser.Parse(out ? out : &local);
}

bool ReadDump(const std::string& path, DumpFile* out, std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": cannot open: " + ErrnoText(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *error = path + ": cannot stat: " + ErrnoText(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    ::close(fd);
    return false;
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(fd, &bytes[got], bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *error = path + ": read failed: " + ErrnoText(errno);
      ::close(fd);
      return false;
    }
    if (r == 0) break;  // shrank while we read: parse what is there
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  bytes.resize(got);
  DumpFile local;
  if (!ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                 out ? out : &local, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool DumpMemoryState(uint64_t memory_id, const std::string& path,
                     std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (FindMemory(memory_id) == nullptr) {
    *error = path + ": memory " + HexId(memory_id) + " is not registered";
    return false;
  }
  return DumpMemories({memory_id}, path, "request", error);
}

bool DumpAllMemories(const std::string& path, std::string* error) {
  return DumpMemories(RegisteredMemoryIds(), path, "request", error);
}

bool DumpMemories(const std::vector<uint64_t>& ids, const std::string& path,
                  const char* reason, std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  DumpFile dump;
  dump.node = Options().node;
  dump.created_unix_ns = NowUnixNs();
  dump.source = "tracker";
  dump.memories.reserve(ids.size());
  for (uint64_t id : ids) {
    Snapshot s;
    if (FindMemory(id) == nullptr) continue;
    AnnounceDumpBegin(path, id, dump.node, reason);
    if (!TakeSnapshot(id, &s)) continue;
    // The marker goes out right after the snapshot, so that its place in
    // the host's log is as close as it can be to the state the file holds.
    AnnounceDump(path, s, reason);
    dump.memories.push_back(std::move(s));
  }
  std::sort(dump.memories.begin(), dump.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id < b.memory_id;
            });
  if (WriteDump(path, dump, error)) return true;
  if (!dump.memories.empty()) AnnounceDumpNotWritten(path, *error);
  return false;
}

}  // namespace realm_shadow

extern "C" int realm_shadow_dump_memory_state(uint64_t memory_id,
                                              const char* filename) {
  if (filename == nullptr) {
    std::fputs("realm-shadow: dump_memory_state: no file name\n", stderr);
    return -1;
  }
  std::string error;
  if (!realm_shadow::DumpMemoryState(memory_id, filename, &error)) {
    std::fprintf(stderr, "realm-shadow: %s\n", error.c_str());
    return -1;
  }
  return 0;
}

extern "C" int realm_shadow_dump_all_memories(const char* filename) {
  if (filename == nullptr) {
    std::fputs("realm-shadow: dump_all_memories: no file name\n", stderr);
    return -1;
  }
  std::string error;
  if (!realm_shadow::DumpAllMemories(filename, &error)) {
    std::fprintf(stderr, "realm-shadow: %s\n", error.c_str());
    return -1;
  }
  return 0;
}
