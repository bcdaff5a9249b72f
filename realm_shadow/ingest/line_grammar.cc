#include "realm_shadow/ingest/line_grammar.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace realm_shadow {
namespace realm_log {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::memcmp(text.data(), prefix.data(), prefix.size()) == 0;
}

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t' || text.back() == '\n'))
    text.remove_suffix(1);
  return text;
}

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  return text;
}

// Reads space-separated tokens left to right.  Every number must be a whole
// token ("12x" is not 12) and fit in 64 bits.
class Tokens {
 public:
  explicit Tokens(std::string_view text) : text_(text) {}

  bool Dec(uint64_t* v) { return Number(v, 10); }
  bool Hex(uint64_t* v) { return Number(v, 16); }
  // A decimal with digit separators, as fmt::group_digits prints it.
  bool GroupedDec(uint64_t* v) {
    const std::string_view t = Next();
    if (t.empty() || t.size() > 32) return false;
    char digits[32];
    size_t n = 0;
    for (char c : t) {
      if (c == ',' || c == '\'' || c == '_') continue;
      digits[n++] = c;
    }
    return Whole(std::string_view(digits, n), v, 10);
  }
  bool Literal(std::string_view word) { return Next() == word; }
  std::string_view Next() {
    size_t i = at_;
    while (i < text_.size() && text_[i] == ' ') ++i;
    size_t j = i;
    while (j < text_.size() && text_[j] != ' ') ++j;
    at_ = j;
    return text_.substr(i, j - i);
  }
  // Everything after the tokens read so far, without the separating space.
  std::string_view Rest() const {
    size_t i = at_;
    if (i < text_.size() && text_[i] == ' ') ++i;
    return TrimRight(text_.substr(i));
  }

  // A whole token as a number: no sign, no prefix, no overflow.  Written
  // out rather than std::from_chars, which costs about 3x as much here and
  // is a fifth of the reader's time on a Legion Spy log.
  static bool Whole(std::string_view t, uint64_t* v, int base) {
    if (t.empty() || t.size() > (base == 16 ? 16u : 20u)) return false;
    uint64_t x = 0;
    if (base == 16) {
      for (char c : t) {
        unsigned d;
        if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
        else return false;
        x = x << 4 | d;
      }
    } else {
      for (char c : t) {
        if (c < '0' || c > '9') return false;
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
      }
    }
    *v = x;
    return true;
  }

 private:
  bool Number(uint64_t* v, int base) { return Whole(Next(), v, base); }
  std::string_view text_;
  size_t at_ = 0;
};

// "key=" starting a word (after ' ', '(' or ','), its value up to a space,
// comma or ')'.
bool FieldAfter(std::string_view text, std::string_view key,
                std::string_view* value) {
  size_t at = 0;
  while (true) {
    at = text.find(key, at);
    if (at == std::string_view::npos) return false;
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '(' ||
        text[at - 1] == ',')
      break;
    ++at;
  }
  const size_t begin = at + key.size();
  size_t end = begin;
  while (end < text.size() && text[end] != ' ' && text[end] != ',' &&
         text[end] != ')')
    ++end;
  *value = text.substr(begin, end - begin);
  return true;
}

bool HexField(std::string_view text, std::string_view key, uint64_t* v) {
  std::string_view token;
  return FieldAfter(text, key, &token) && Tokens::Whole(token, v, 16);
}

bool DecField(std::string_view text, std::string_view key, uint64_t* v) {
  std::string_view token;
  return FieldAfter(text, key, &token) && Tokens::Whole(token, v, 10);
}

// Scans the prefix Realm writes ("[%d - %llx] %11.6f {%d}{%s}: ") left to
// right in one pass; false when the line is not exactly of that shape (the
// caller then tries the lenient reading below).
bool SplitRealmPrefix(std::string_view line, LogLine* out) {
  const char* p = line.data();
  const char* const end = p + line.size();
  auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10; };
  auto digits = [&](uint64_t* v, ptrdiff_t max) {
    const char* start = p;
    const char* limit = end - p < max ? end : p + max;
    uint64_t x = 0;
    while (p < limit && digit(*p)) x = x * 10 + static_cast<uint64_t>(*p++ - '0');
    *v = x;
    return p > start && (p == end || !digit(*p));
  };
  uint64_t node = 0, level = 0;
  if (p == end || *p++ != '[' || !digits(&node, 9) || end - p < 3 ||
      p[0] != ' ' || p[1] != '-' || p[2] != ' ')
    return false;
  p += 3;
  // The thread, in hex, up to ']'.
  const void* close = std::memchr(p, ']', static_cast<size_t>(end - p));
  if (close == nullptr) return false;
  out->thread = std::string_view(
      p, static_cast<size_t>(static_cast<const char*>(close) - p));
  p = static_cast<const char*>(close) + 1;
  // The seconds, read only when asked for (LineTimeMicros).
  const void* level_open = std::memchr(p, '{', static_cast<size_t>(end - p));
  if (level_open == nullptr) return false;
  out->time = TrimRight(TrimLeft(std::string_view(
      p, static_cast<size_t>(static_cast<const char*>(level_open) - p))));
  p = static_cast<const char*>(level_open);
  if (p == end || *p++ != '{' || !digits(&level, 3) || level > 255 ||
      end - p < 2 || p[0] != '}' || p[1] != '{')
    return false;
  p += 2;
  const char* logger = p;
  const void* logger_end = std::memchr(p, '}', static_cast<size_t>(end - p));
  if (logger_end == nullptr) return false;
  p = static_cast<const char*>(logger_end);
  out->logger = std::string_view(logger, static_cast<size_t>(p - logger));
  ++p;
  if (p < end && *p == ':') ++p;
  if (p < end && *p == ' ') ++p;
  out->prefixed = true;
  out->node = static_cast<uint32_t>(node);
  out->level = static_cast<uint8_t>(level);
  out->message = std::string_view(p, static_cast<size_t>(end - p));
  return true;
}

// "[NODE - THREAD] SECONDS {LEVEL}{LOGGER}: MESSAGE", read leniently: the
// time is optional (a prefix without it still names the node and logger).
bool SplitPrefix(std::string_view line, LogLine* out) {
  if (SplitRealmPrefix(line, out)) return true;
  if (line.empty() || line[0] != '[') return false;
  const size_t dash = line.find(" - ");
  const size_t close = line.find(']');
  if (dash == std::string_view::npos || close == std::string_view::npos ||
      dash > close)
    return false;
  uint64_t node = 0;
  if (!Tokens::Whole(line.substr(1, dash - 1), &node, 10) || node > UINT32_MAX)
    return false;
  const size_t level_open = line.find('{', close);
  if (level_open == std::string_view::npos) return false;
  const size_t level_close = line.find('}', level_open);
  if (level_close == std::string_view::npos) return false;
  const size_t logger_open = level_close + 1;
  if (logger_open >= line.size() || line[logger_open] != '{') return false;
  const size_t logger_close = line.find('}', logger_open);
  if (logger_close == std::string_view::npos) return false;
  out->prefixed = true;
  out->node = static_cast<uint32_t>(node);
  out->thread = TrimRight(TrimLeft(line.substr(dash + 3, close - dash - 3)));
  uint64_t level = 0;
  if (Tokens::Whole(line.substr(level_open + 1, level_close - level_open - 1),
                    &level, 10) &&
      level < 256)
    out->level = static_cast<uint8_t>(level);
  out->time = TrimRight(TrimLeft(line.substr(close + 1, level_open - close - 1)));
  out->logger = line.substr(logger_open + 1, logger_close - logger_open - 1);
  std::string_view rest = line.substr(logger_close + 1);
  if (!rest.empty() && rest[0] == ':') rest.remove_prefix(1);
  if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  out->message = TrimRight(rest);
  return true;
}

// ---- Realm: the "poison" logger -------------------------------------------

// The instance lines name a RegionInstanceImpl's address ("inst=0x7f...");
// the merger lines an event.
void ParsePoison(std::string_view m, LogLine* out) {
  out->kind = LineKind::kPoisonOther;
  auto address = [&](LineKind kind) {
    std::string_view token;
    if (!FieldAfter(m, "inst=", &token)) {
      out->kind = LineKind::kMalformed;
      return;
    }
    if (StartsWith(token, "0x")) token.remove_prefix(2);
    out->kind = Tokens::Whole(token, &out->ids[0], 16) ? kind
                                                       : LineKind::kMalformed;
  };
  if (StartsWith(m, "poisoned deferred instance creation skipped")) {
    address(LineKind::kCreationSkipped);
  } else if (StartsWith(m, "poisoned deferred instance destruction skipped")) {
    address(LineKind::kDestructionSkipped);
  } else if (StartsWith(m, "poisoned deferred instance redistrict skipped")) {
    address(LineKind::kRedistrictSkipped);
  } else if (StartsWith(m, "event merger poisoned:") ||
             StartsWith(m, "event merger early poison:")) {
    out->kind = HexField(m, "after=", &out->event) && out->event != 0
                    ? LineKind::kUserEventCancelled
                    : LineKind::kMalformed;
  } else if (StartsWith(m, "merging events - ") &&
             m.size() > 16 && m.substr(m.size() - 16) == " already poisoned") {
    const std::string_view e = m.substr(17, m.size() - 17 - 16);
    out->kind = Tokens::Whole(e, &out->event, 16) && out->event != 0
                    ? LineKind::kUserEventCancelled
                    : LineKind::kMalformed;
  }
}

// ---- Realm: the "inst" logger ---------------------------------------------

void ParseInst(std::string_view m, LogLine* out) {
  auto id_after_colon = [&](LineKind kind) {
    const size_t colon = m.find(':');
    out->kind = Tokens::Whole(TrimLeft(m.substr(colon + 1)), &out->instance, 16)
                    ? kind
                    : LineKind::kMalformed;
  };
  out->kind = LineKind::kInstOther;
  switch (m.empty() ? '\0' : m[0]) {
    case 'a':
      if (StartsWith(m, "allocation completed:")) {
        out->kind = HexField(m, "inst=", &out->instance) &&
                            DecField(m, "offset=", &out->offset)
                        ? LineKind::kAllocated
                        : LineKind::kMalformed;
      } else if (StartsWith(m, "allocation failed:")) {
        out->kind = HexField(m, "inst=", &out->instance)
                        ? LineKind::kAllocationFailed
                        : LineKind::kMalformed;
      }
      return;
    case 'c':
      if (StartsWith(m, "creating new local instance:")) {
        id_after_colon(LineKind::kCreateLocal);
      } else if (StartsWith(m, "creating proxy for remotely-created instance:")) {
        id_after_colon(LineKind::kRemoteProxy);
      }
      return;
    case 'r':
      if (StartsWith(m, "reusing local instance:")) {
        id_after_colon(LineKind::kCreateLocal);
        out->ids[0] = 1;
      } else if (StartsWith(m, "releasing local instance:")) {
        id_after_colon(LineKind::kReleasing);
      }
      return;
    case 'd':
      if (StartsWith(m, "deallocation completed:"))
        out->kind = HexField(m, "inst=", &out->instance)
                        ? LineKind::kDeallocated
                        : LineKind::kMalformed;
      return;
    case 'i':
      if (StartsWith(m, "instance layout:")) {
        out->kind = HexField(m, "inst=", &out->instance) &&
                            DecField(m, "bytes=", &out->bytes) &&
                            DecField(m, "align=", &out->alignment)
                        ? LineKind::kLayout
                        : LineKind::kMalformed;
        // The layout itself, read only by those who need it (its fields and
        // pieces are not the replay's): a layout that does not read leaves
        // its figures unknown, never the line malformed.
        const size_t layout = m.find(" layout=");
        if (layout != std::string_view::npos) out->text = m.substr(layout + 8);
      } else if (StartsWith(m, "instance created:")) {
        // An instance on memory the program attached: "external=memory(
        // base=B, size=S)" instead of "bytes=" (ids[0] = 1, bytes = S).
        std::string_view external;
        if (FieldAfter(m, "external=", &external)) {
          out->ids[0] = 1;
          out->kind = HexField(m, "inst=", &out->instance)
                          ? LineKind::kCreated
                          : LineKind::kMalformed;
          DecField(m, "size=", &out->bytes);
          HexField(m, "ready=", &out->event);
          return;
        }
        out->kind = HexField(m, "inst=", &out->instance) &&
                            DecField(m, "bytes=", &out->bytes)
                        ? LineKind::kCreated
                        : LineKind::kMalformed;
        HexField(m, "ready=", &out->event);
      } else if (StartsWith(m, "instance destroyed:")) {
        out->kind = HexField(m, "inst=", &out->instance) &&
                            HexField(m, "wait_on=", &out->event)
                        ? LineKind::kDestroyed
                        : LineKind::kMalformed;
      } else {
        constexpr std::string_view kFatal =
            "instance allocation failed - out of memory in mem ";
        if (StartsWith(m, kFatal))
          out->kind = Tokens::Whole(TrimLeft(m.substr(kFatal.size())),
                                    &out->memory, 16)
                          ? LineKind::kOutOfMemory
                          : LineKind::kMalformed;
      }
      return;
    default:
      return;
  }
}

// ---- Legion Spy ------------------------------------------------------------

// How a Legion Spy line's fields are read, after its name.
enum class SpyForm : uint8_t {
  kSkip,            // known, not needed
  kInstance,        // IDFMT IDFMT IDFMT %d %lld %d %d
  kInstanceField,   // IDFMT %d
  kInstanceCreator, // IDFMT %lld IDFMT
  kCreationRegion,  // IDFMT %d %d %d
  kMemory,          // IDFMT %zu %u
  kTaskName,        // %d %s
  kTopTask,         // %u %llu %llu %s      (task id, context, uid, name)
  kTask,            // %llu %u %llu %s      (context, task id, uid, name)
  kIndexTask,       // as kTask
  kPair,            // %llu %llu ...        (owner, part)
  kReplicate,       // %llu %llu %d
  kShard,           // %llu %d %llu
  kInternalOp,      // %llu %llu ...
  kOperation,       // %llu %llu ...        (context, uid)
  kProvenance,      // %llu %.*s
  kFieldSpaceName,  // %u %s
  kFieldName,       // %u %u %s
  kIndexSpaceName,  // IDFMT %s
  kPartition,       // IDFMT IDFMT %d %d %lld %u ...
  kPartitionName,   // IDFMT %s
  kSubspace,        // IDFMT IDFMT %u %u %lld...
  kRegionName,      // IDFMT %u %u %s
  kFieldCreation,   // %u %u %ld %.*s
  kRect,            // IDFMT %d %lld x (2 x LEGION_MAX_DIM)
  kPoint,           // IDFMT %d %lld x LEGION_MAX_DIM
  kEmptySpace,      // IDFMT
  kExpression,      // IDFMT %lld
  kUnion,           // %lld %zd %s          (the sources)
  kIntersection,    // as kUnion
  kDifference,      // %lld %lld %lld
  kRequirement,     // %llu %u %u IDFMT %u %u %u %u %u IDFMT
  kRequirementField,// %llu %u %u
};

struct SpyName {
  std::string_view name;
  SpyForm form;
};

// Every line legion_spy.h and legion_spy.cc print (Legion 25.06 and master),
// grouped by first letter, longest names first within a letter so that
// "Index Space Point" is found before "Index Space".  Within "I" the two
// most frequent lines of real logs come first.
constexpr SpyName kSpyNames[] = {
    {"Acquire Operation", SpyForm::kOperation},
    {"All Reduce Operation", SpyForm::kOperation},
    {"Ap User Event Trigger", SpyForm::kSkip},
    {"Ap User Event", SpyForm::kSkip},
    {"Attach Operation", SpyForm::kOperation},
    {"Close Operation", SpyForm::kOperation},
    {"Collective Rendezvous", SpyForm::kSkip},
    {"Copy Events", SpyForm::kSkip},
    {"Copy Field", SpyForm::kSkip},
    {"Copy Operation", SpyForm::kOperation},
    {"Creation Operation", SpyForm::kOperation},
    {"Dependent Partition Operation", SpyForm::kOperation},
    {"Deletion Operation", SpyForm::kOperation},
    {"Deppart Events", SpyForm::kSkip},
    {"Detach Operation", SpyForm::kOperation},
    {"Discard Operation", SpyForm::kOperation},
    {"Dynamic Collective", SpyForm::kOperation},
    {"Empty Index Space", SpyForm::kEmptySpace},
    {"Equivalence Set", SpyForm::kSkip},
    {"Equivalence Use", SpyForm::kSkip},
    {"Event Event", SpyForm::kSkip},
    {"Fence Operation", SpyForm::kOperation},
    {"Field Creation", SpyForm::kFieldCreation},
    {"Field Name", SpyForm::kFieldName},
    {"Field Space Name", SpyForm::kFieldSpaceName},
    {"Field Space", SpyForm::kSkip},
    {"Fill Events", SpyForm::kSkip},
    {"Fill Field", SpyForm::kSkip},
    {"Fill Operation", SpyForm::kOperation},
    {"Future Creation", SpyForm::kSkip},
    {"Future Dependence", SpyForm::kSkip},
    {"Future Usage", SpyForm::kSkip},
    {"Index Space Point", SpyForm::kPoint},
    {"Index Space Rect", SpyForm::kRect},
    {"Index Space Intersection", SpyForm::kIntersection},
    {"Index Space Expression", SpyForm::kExpression},
    {"Index Space Difference", SpyForm::kDifference},
    {"Index Partition Name", SpyForm::kPartitionName},
    {"Index Space Union", SpyForm::kUnion},
    {"Index Space Name", SpyForm::kIndexSpaceName},
    {"Index Launch Rect", SpyForm::kSkip},
    {"Index Partition", SpyForm::kPartition},
    {"Index Subspace", SpyForm::kSubspace},
    {"Index Space", SpyForm::kSkip},
    {"Index Point", SpyForm::kPair},
    {"Index Slice", SpyForm::kPair},
    {"Index Task", SpyForm::kIndexTask},
    {"Indirect Events", SpyForm::kSkip},
    {"Indirect Field", SpyForm::kSkip},
    {"Indirect Group", SpyForm::kSkip},
    {"Indirect Instance", SpyForm::kSkip},
    {"Individual Task", SpyForm::kTask},
    {"Inline Task", SpyForm::kSkip},
    {"Instance Ordering Constraint Dimension", SpyForm::kSkip},
    {"Instance Field Constraint Field", SpyForm::kSkip},
    {"Instance Specialized Constraint", SpyForm::kSkip},
    {"Instance Dimension Constraint", SpyForm::kSkip},
    {"Instance Alignment Constraint", SpyForm::kSkip},
    {"Instance Splitting Constraint", SpyForm::kSkip},
    {"Instance Ordering Constraint", SpyForm::kSkip},
    {"Instance Memory Constraint", SpyForm::kSkip},
    {"Instance Offset Constraint", SpyForm::kSkip},
    {"Instance Field Constraint", SpyForm::kSkip},
    {"Instance Deletion", SpyForm::kSkip},
    {"Internal Operation Creator", SpyForm::kInternalOp},
    {"Intra Space Dependence", SpyForm::kSkip},
    {"Legion Spy Detailed Logging", SpyForm::kSkip},
    {"Legion Spy Logging", SpyForm::kSkip},
    {"Logical Requirement Projection", SpyForm::kSkip},
    {"Logical Requirement Field", SpyForm::kRequirementField},
    {"Logical Partition Name", SpyForm::kSkip},
    {"Logical Requirement", SpyForm::kRequirement},
    {"Logical Region Name", SpyForm::kRegionName},
    {"Mapping Decision", SpyForm::kSkip},
    {"Mapping Dependence", SpyForm::kSkip},
    {"Mapping Operation", SpyForm::kOperation},
    {"Memory Memory", SpyForm::kSkip},
    {"Memory Kind", SpyForm::kSkip},
    {"Memory", SpyForm::kMemory},
    {"Must Epoch Operation", SpyForm::kOperation},
    {"Operation Provenance", SpyForm::kProvenance},
    {"Operation Events", SpyForm::kSkip},
    {"Operation Index", SpyForm::kSkip},
    {"Owner Shard", SpyForm::kSkip},
    {"Physical Instance Creation Region", SpyForm::kCreationRegion},
    {"Physical Instance Creator", SpyForm::kInstanceCreator},
    {"Physical Instance Field", SpyForm::kInstanceField},
    {"Physical Instance", SpyForm::kInstance},
    {"Pending Partition Operation", SpyForm::kOperation},
    {"Pending Partition Target", SpyForm::kSkip},
    {"Phase Barrier Arrive", SpyForm::kSkip},
    {"Phase Barrier Wait", SpyForm::kSkip},
    {"Post Mapping Decision", SpyForm::kSkip},
    {"Pred Event Trigger", SpyForm::kSkip},
    {"Pred Event", SpyForm::kSkip},
    {"Predicate False", SpyForm::kSkip},
    {"Predicate Operation", SpyForm::kOperation},
    {"Predicate Use", SpyForm::kSkip},
    {"Processor Memory", SpyForm::kSkip},
    {"Processor Kind", SpyForm::kSkip},
    {"Processor", SpyForm::kSkip},
    {"Point Point", SpyForm::kPair},
    {"Projection Function", SpyForm::kSkip},
    {"Refinement Operation", SpyForm::kOperation},
    {"Release Operation", SpyForm::kOperation},
    {"Replay Operation", SpyForm::kSkip},
    {"Replicate Shard", SpyForm::kShard},
    {"Replicate Task", SpyForm::kReplicate},
    {"Reservation", SpyForm::kSkip},
    {"Reset Operation", SpyForm::kOperation},
    {"Region", SpyForm::kSkip},
    {"Rt User Event Trigger", SpyForm::kSkip},
    {"Rt User Event", SpyForm::kSkip},
    {"Slice Point", SpyForm::kPair},
    {"Slice Slice", SpyForm::kPair},
    {"Summary Operation Creator", SpyForm::kInternalOp},
    {"Task ID Name", SpyForm::kTaskName},
    {"Task Premapping", SpyForm::kSkip},
    {"Task Processor", SpyForm::kSkip},
    {"Task Priority", SpyForm::kSkip},
    {"Task Tunable", SpyForm::kSkip},
    {"Task Variant", SpyForm::kSkip},
    {"Timing Operation", SpyForm::kOperation},
    {"Top Task", SpyForm::kTopTask},
    {"Tunable Operation", SpyForm::kOperation},
    {"Variant Decision", SpyForm::kSkip},
};

constexpr size_t kSpyNameCount = sizeof kSpyNames / sizeof kSpyNames[0];

// Per first letter, the range of kSpyNames starting with it (the table is
// grouped by letter), so a line is compared with a dozen names, not 125.
struct SpyIndex {
  uint8_t begin[256] = {};
  uint8_t end[256] = {};
  SpyIndex() {
    for (size_t i = kSpyNameCount; i-- > 0;) {
      const unsigned char c = static_cast<unsigned char>(kSpyNames[i].name[0]);
      begin[c] = static_cast<uint8_t>(i);
      if (end[c] == 0) end[c] = static_cast<uint8_t>(i + 1);
    }
  }
};

const SpyName* FindSpyName(std::string_view m) {
  static const SpyIndex index;
  const unsigned char c = static_cast<unsigned char>(m[0]);
  for (size_t i = index.begin[c]; i < index.end[c]; ++i) {
    const SpyName& s = kSpyNames[i];
    if (!StartsWith(m, s.name)) continue;
    if (m.size() == s.name.size() || m[s.name.size()] == ' ') return &s;
  }
  return nullptr;
}

void ParseSpy(std::string_view m, LogLine* out) {
  out->kind = LineKind::kSpyUnknown;
  if (m.empty()) return;
  const SpyName* s = FindSpyName(m);
  if (s == nullptr) return;
  Tokens t(m.substr(s->name.size()));
  uint64_t* ids = out->ids;
  auto set = [&](bool ok, LineKind kind) {
    out->kind = ok ? kind : LineKind::kMalformed;
  };
  // Ids, then a name: the rest of the line, which must not be empty.
  auto named = [&](bool ok, LineKind kind) {
    out->text = t.Rest();
    set(ok && !out->text.empty(), kind);
  };
  switch (s->form) {
    case SpyForm::kSkip:
      out->kind = LineKind::kSpyKnown;
      return;
    case SpyForm::kInstance:
      set(t.Hex(&out->event) && t.Hex(&out->instance) && t.Hex(&out->memory) &&
              t.Dec(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&ids[2]) &&
              t.Dec(&ids[3]),
          LineKind::kSpyInstance);
      return;
    case SpyForm::kInstanceField:
      set(t.Hex(&out->event) && t.Dec(&ids[0]), LineKind::kSpyInstanceField);
      return;
    case SpyForm::kInstanceCreator:
      set(t.Hex(&out->event) && t.Dec(&ids[0]) && t.Hex(&ids[1]),
          LineKind::kSpyInstanceCreator);
      return;
    case SpyForm::kCreationRegion:
      set(t.Hex(&out->event) && t.Dec(&ids[0]) && t.Dec(&ids[1]) &&
              t.Dec(&ids[2]),
          LineKind::kSpyCreationRegion);
      return;
    case SpyForm::kMemory:
      set(t.Hex(&out->memory) && t.Dec(&out->bytes) && t.Dec(&ids[0]),
          LineKind::kSpyMemory);
      return;
    case SpyForm::kTaskName:
      named(t.Dec(&ids[0]), LineKind::kSpyTaskName);
      return;
    case SpyForm::kTopTask:  // task id, context, uid
      set(t.Dec(&ids[1]) && t.Dec(&ids[0]) && t.Dec(&ids[2]),
          LineKind::kSpyTask);
      out->text = t.Rest();
      return;
    case SpyForm::kTask:
    case SpyForm::kIndexTask:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&ids[2]),
          LineKind::kSpyTask);
      out->text = t.Rest();
      out->event = s->form == SpyForm::kIndexTask ? 1 : 0;
      return;
    case SpyForm::kPair:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpySliceOf);
      return;
    case SpyForm::kReplicate:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpyReplicate);
      return;
    case SpyForm::kShard:
      set(t.Dec(&ids[0]) && t.Dec(&ids[2]) && t.Dec(&ids[1]),
          LineKind::kSpyShard);
      return;
    case SpyForm::kInternalOp:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpyInternalOp);
      return;
    case SpyForm::kOperation: {
      // The kind from the line itself, which starts with the table's name:
      // the record's views lie in the line (the header's promise), not in
      // the table.
      const std::string_view name = m.substr(0, s->name.size());
      const size_t op = name.rfind(" Operation");
      out->text = op == std::string_view::npos ? name : name.substr(0, op);
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpyOperation);
      return;
    }
    case SpyForm::kProvenance:
      set(t.Dec(&ids[0]), LineKind::kSpyProvenance);
      out->text = t.Rest();
      return;
    case SpyForm::kFieldSpaceName:
      named(t.Dec(&ids[0]), LineKind::kSpyFieldSpaceName);
      return;
    case SpyForm::kFieldName:
      named(t.Dec(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpyFieldName);
      return;
    case SpyForm::kIndexSpaceName:
      named(t.Hex(&ids[0]), LineKind::kSpyIndexSpaceName);
      return;
    case SpyForm::kPartition: {
      uint64_t disjoint = 0, complete = 0;
      set(t.Hex(&ids[0]) && t.Hex(&ids[1]) && t.Dec(&disjoint) &&
              t.Dec(&complete) && t.Dec(&ids[2]),
          LineKind::kSpyPartition);
      return;
    }
    case SpyForm::kPartitionName:
      named(t.Hex(&ids[0]), LineKind::kSpyPartitionName);
      return;
    case SpyForm::kSubspace: {
      uint64_t owner = 0, dim = 0;
      const bool ok = t.Hex(&ids[0]) && t.Hex(&ids[1]) && t.Dec(&owner) &&
                      t.Dec(&dim) && dim >= 1 && dim <= 9;
      set(ok, LineKind::kSpySubspace);
      if (!ok) return;
      // The color: `dim` coordinates (signed), kept as printed.
      const std::string_view rest = t.Rest();
      size_t end = 0;
      for (uint64_t k = 0; k < dim; ++k) {
        while (end < rest.size() && rest[end] == ' ') ++end;
        while (end < rest.size() && rest[end] != ' ') ++end;
      }
      out->text = rest.substr(0, end);
      return;
    }
    case SpyForm::kRegionName:
      named(t.Hex(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&ids[2]),
            LineKind::kSpyRegionName);
      return;
    case SpyForm::kFieldCreation:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&out->bytes),
          LineKind::kSpyFieldCreation);
      return;
    case SpyForm::kRect:
    case SpyForm::kPoint: {
      // Legion prints LEGION_MAX_DIM coordinates (pairs for a rect), zeros
      // past DIM; the line must hold at least DIM of them, all numbers.
      const bool rect = s->form == SpyForm::kRect;
      bool ok = t.Hex(&ids[0]) && t.Dec(&ids[1]) && ids[1] >= 1 &&
                ids[1] <= kMaxSpyDims;
      out->text = t.Rest();
      int64_t coordinates[2 * kMaxSpyDims];
      const int read = ok ? ReadIntegers(out->text, coordinates,
                                         2 * kMaxSpyDims)
                          : -1;
      ok = ok && read >= static_cast<int>(ids[1]) * (rect ? 2 : 1);
      set(ok, rect ? LineKind::kSpyIndexSpaceRect
                   : LineKind::kSpyIndexSpacePoint);
      return;
    }
    case SpyForm::kEmptySpace:
      set(t.Hex(&ids[0]), LineKind::kSpyEmptyIndexSpace);
      return;
    case SpyForm::kExpression:
      set(t.Hex(&ids[0]) && t.Dec(&ids[1]), LineKind::kSpyExpression);
      return;
    case SpyForm::kUnion:
    case SpyForm::kIntersection:
    case SpyForm::kDifference: {
      // The result, then exactly N sources (2 for a difference; the
      // intersection's first has two spaces before it: legion_spy.h prints
      // it " %lld").
      bool ok = t.Dec(&ids[0]);
      if (s->form == SpyForm::kDifference) {
        ids[1] = 'D';
        ids[2] = 2;
      } else {
        ids[1] = s->form == SpyForm::kUnion ? 'U' : 'I';
        ok = ok && t.Dec(&ids[2]) && ids[2] >= 1;
      }
      out->text = t.Rest();
      uint64_t count = 0, source = 0;
      Tokens sources(out->text);
      for (std::string_view token = sources.Next(); ok && !token.empty();
           token = sources.Next())
        ok = Tokens::Whole(token, &source, 10) && ++count <= ids[2];
      set(ok && count == ids[2], LineKind::kSpyExpressionOp);
      return;
    }
    case SpyForm::kRequirement: {
      uint64_t privilege = 0, coherence = 0, redop = 0, parent = 0;
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&ids[2]) &&
              t.Hex(&ids[3]) && t.Dec(&ids[4]) && t.Dec(&ids[5]) &&
              t.Dec(&privilege) && t.Dec(&coherence) && t.Dec(&redop) &&
              t.Hex(&parent),
          LineKind::kSpyRequirement);
      return;
    }
    case SpyForm::kRequirementField:
      set(t.Dec(&ids[0]) && t.Dec(&ids[1]) && t.Dec(&ids[2]),
          LineKind::kSpyRequirementField);
      return;
  }
}

// ---- Legate: BaseMapper's out-of-memory report ------------------------------

void ParseLegate(std::string_view m, LogLine* out) {
  m = TrimLeft(m);
  out->kind = LineKind::kLegateOther;
  constexpr std::string_view kFailed = "Failed to allocate ";
  constexpr std::string_view kRequestStore =
      "corresponding to a LogicalStore allocated at ";
  constexpr std::string_view kStore = "LogicalStore allocated at ";
  constexpr std::string_view kInstance = "Instance ";
  constexpr std::string_view kCreatedFor =
      "created for an operation launched at ";
  if (StartsWith(m, kFailed)) {
    // "Failed to allocate B bytes on memory M (of kind K) for ... (UID U)"
    Tokens t(m.substr(kFailed.size()));
    const bool ok = t.GroupedDec(&out->bytes) && t.Literal("bytes") &&
                    t.Literal("on") && t.Literal("memory") && t.Hex(&out->memory);
    out->kind = ok ? LineKind::kLegateFailed : LineKind::kMalformed;
    const size_t uid = m.rfind("(UID ");
    if (ok && uid != std::string_view::npos) {
      std::string_view digits = m.substr(uid + 5);
      if (!digits.empty() && digits.back() == ')') digits.remove_suffix(1);
      Tokens::Whole(digits, &out->ids[0], 10);
    }
    const size_t of = m.find(" of ", m.find(" for "));
    if (ok && of != std::string_view::npos)
      out->text = m.substr(of + 4, uid == std::string_view::npos
                                       ? std::string_view::npos
                                       : uid - of - 4);
    out->text = TrimRight(out->text);
    return;
  }
  if (StartsWith(m, kRequestStore)) {
    out->kind = LineKind::kLegateRequestStore;
    out->text = m.substr(kRequestStore.size());
    return;
  }
  if (StartsWith(m, kStore)) {
    std::string_view p = m.substr(kStore.size());
    if (!p.empty() && p.back() == ':') p.remove_suffix(1);
    out->kind = LineKind::kLegateStore;
    out->text = p;
    return;
  }
  if (StartsWith(m, kCreatedFor)) {
    out->kind = LineKind::kLegateCreatedFor;
    out->text = m.substr(kCreatedFor.size());
    return;
  }
  if (StartsWith(m, kInstance)) {
    // "Instance I [at address A] of size S covering elements E [of multiple
    // stores]"
    Tokens t(m.substr(kInstance.size()));
    bool ok = t.Hex(&out->instance);
    std::string_view word = t.Next();
    out->offset = kNoAddress;
    if (ok && word == "at") {
      ok = t.Literal("address") && t.Hex(&out->offset);
      word = t.Next();
    }
    ok = ok && word == "of" && t.Literal("size") && t.GroupedDec(&out->bytes) &&
         t.Literal("covering") && t.Literal("elements");
    out->kind = ok ? LineKind::kLegateInstance : LineKind::kMalformed;
    if (!ok) return;
    std::string_view elements = t.Rest();
    constexpr std::string_view kMultiple = "of multiple stores";
    if (elements.size() >= kMultiple.size() &&
        elements.substr(elements.size() - kMultiple.size()) == kMultiple) {
      out->ids[0] = 1;
      elements = TrimRight(elements.substr(0, elements.size() - kMultiple.size()));
    }
    out->text = elements;
  }
}

}  // namespace

LogLine ParseLogLine(std::string_view line) {
  LogLine out;
  line = TrimRight(line);
  if (TrimLeft(line).empty()) return out;  // kEmpty
  if (!SplitPrefix(line, &out)) {
    std::string_view body = TrimLeft(line);
    out.kind = LineKind::kUnprefixed;
    out.message = body;
    // "Memory:1e00000000000000, SYSTEM_MEM, capacity: 16777216"
    if (!StartsWith(body, "Memory:")) return out;
    std::string_view rest = body.substr(7);
    const size_t c1 = rest.find(',');
    if (c1 == std::string_view::npos) return out;
    const size_t c2 = rest.find(',', c1 + 1);
    if (c2 == std::string_view::npos) return out;
    const std::string_view cap = rest.substr(c2 + 1);
    const size_t colon = cap.find(':');
    if (colon == std::string_view::npos ||
        !Tokens::Whole(TrimRight(TrimLeft(rest.substr(0, c1))), &out.memory,
                       16) ||
        !Tokens::Whole(TrimLeft(cap.substr(colon + 1)), &out.bytes, 10))
      return out;
    out.kind = LineKind::kMachineMemory;
    out.text = TrimRight(TrimLeft(rest.substr(c1 + 1, c2 - c1 - 1)));
    return out;
  }
  const std::string_view logger = out.logger;
  const std::string_view m = out.message;
  if (logger == "inst") {
    ParseInst(m, &out);
  } else if (logger == "legion_spy") {
    ParseSpy(m, &out);
  } else if (logger == "machine") {
    out.kind = LineKind::kMachineOther;
    Tokens t(m);
    std::string_view node;
    if (t.Literal("Node") && !(node = t.Next()).empty() && node.back() == ':' &&
        Tokens::Whole(node.substr(0, node.size() - 1), &out.ids[0], 10))
      out.kind = LineKind::kMachineNode;
  } else if (logger == "event" && (StartsWith(m, "user event cancelled:") ||
                                    (StartsWith(m, "user event trigger:") &&
                                     m.size() >= 10 &&
                                     m.substr(m.size() - 10) == "(poisoned)"))) {
    out.kind = HexField(m, "event=", &out.event) && out.event != 0
                   ? LineKind::kUserEventCancelled
                   : LineKind::kOtherLogger;
  } else if (logger == "poison") {
    ParsePoison(m, &out);
  } else if (logger == "event" && (StartsWith(m, "user event created:") ||
                                    StartsWith(m, "user event trigger:"))) {
    out.kind = HexField(m, "event=", &out.event) && out.event != 0
                   ? LineKind::kEventNamed
                   : LineKind::kOtherLogger;
  } else if (logger == "event" && StartsWith(m, "event merging:")) {
    out.kind = HexField(m, "event=", &out.event) &&
                       HexField(m, "wait_on=", &out.ids[0]) && out.event != 0
                   ? LineKind::kEventMerged
                   : LineKind::kOtherLogger;
  } else if (StartsWith(logger, "legate")) {
    ParseLegate(m, &out);
  } else if (StartsWith(m, "CHECKPOINT ")) {  // {app}, the oracle's {random}
    out.kind = LineKind::kCheckpoint;
    out.text = m.substr(11);
  } else {
    out.kind = LineKind::kOtherLogger;
  }
  return out;
}

int ReadIntegers(std::string_view text, int64_t* out, int max) {
  // One pass over the characters: Legion Spy's sparse index spaces are
  // logged a point per line (circuit: 16k lines), each read twice (checked
  // here by the grammar, then kept by legion_spy_shapes.h).
  const char* p = text.data();
  const char* const end = p + text.size();
  int count = 0;
  while (true) {
    while (p < end && *p == ' ') ++p;
    if (p == end) return count;
    const bool negative = *p == '-';
    if (negative) ++p;
    const char* const digits = p;
    uint64_t magnitude = 0;
    while (p < end && static_cast<unsigned>(*p - '0') < 10)
      magnitude = magnitude * 10 + static_cast<uint64_t>(*p++ - '0');
    // 19 digits hold any int64 magnitude and never wrap 64 bits.
    if (p == digits || p - digits > 19 || (p < end && *p != ' ') ||
        count == max ||
        magnitude > (negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX}))
      return -1;
    out[count++] = negative ? static_cast<int64_t>(0 - magnitude)
                            : static_cast<int64_t>(magnitude);
  }
}

uint64_t LineTimeMicros(const LogLine& line) {
  // Seconds with up to 6 decimals ("%11.6f"), in microseconds.
  const std::string_view time = line.time;
  const size_t dot = std::min(time.find('.'), time.size());
  uint64_t whole = 0, micros = 0;
  if (!Tokens::Whole(time.substr(0, dot), &whole, 10) || whole >= (1ull << 40))
    return 0;
  const std::string_view frac =
      dot < time.size() ? time.substr(dot + 1, 6) : std::string_view();
  if (!frac.empty() && !Tokens::Whole(frac, &micros, 10)) return 0;
  for (size_t i = frac.size(); i < 6; ++i) micros *= 10;
  return whole * 1000000 + micros;
}

const char* LineKindName(LineKind kind) {
  switch (kind) {
    case LineKind::kEmpty: return "empty";
    case LineKind::kUnprefixed: return "unprefixed";
    case LineKind::kMachineMemory: return "machine_memory";
    case LineKind::kMalformed: return "malformed";
    case LineKind::kOtherLogger: return "other_logger";
    case LineKind::kCheckpoint: return "checkpoint";
    case LineKind::kMachineNode: return "machine_node";
    case LineKind::kMachineOther: return "machine_other";
    case LineKind::kCreateLocal: return "create_local";
    case LineKind::kRemoteProxy: return "remote_proxy";
    case LineKind::kLayout: return "layout";
    case LineKind::kAllocated: return "allocated";
    case LineKind::kAllocationFailed: return "allocation_failed";
    case LineKind::kCreated: return "created";
    case LineKind::kDestroyed: return "destroyed";
    case LineKind::kDeallocated: return "deallocated";
    case LineKind::kReleasing: return "releasing";
    case LineKind::kOutOfMemory: return "out_of_memory";
    case LineKind::kInstOther: return "inst_other";
    case LineKind::kUserEventCancelled: return "user_event_cancelled";
    case LineKind::kEventMerged: return "event_merged";
    case LineKind::kEventNamed: return "event_named";
    case LineKind::kCreationSkipped: return "creation_skipped";
    case LineKind::kDestructionSkipped: return "destruction_skipped";
    case LineKind::kRedistrictSkipped: return "redistrict_skipped";
    case LineKind::kPoisonOther: return "poison_other";
    case LineKind::kSpyInstance: return "spy_instance";
    case LineKind::kSpyInstanceField: return "spy_instance_field";
    case LineKind::kSpyInstanceCreator: return "spy_instance_creator";
    case LineKind::kSpyCreationRegion: return "spy_creation_region";
    case LineKind::kSpyMemory: return "spy_memory";
    case LineKind::kSpyTaskName: return "spy_task_name";
    case LineKind::kSpyTask: return "spy_task";
    case LineKind::kSpySliceOf: return "spy_slice_of";
    case LineKind::kSpyReplicate: return "spy_replicate";
    case LineKind::kSpyShard: return "spy_shard";
    case LineKind::kSpyInternalOp: return "spy_internal_op";
    case LineKind::kSpyOperation: return "spy_operation";
    case LineKind::kSpyProvenance: return "spy_provenance";
    case LineKind::kSpyFieldSpaceName: return "spy_field_space_name";
    case LineKind::kSpyFieldName: return "spy_field_name";
    case LineKind::kSpyIndexSpaceName: return "spy_index_space_name";
    case LineKind::kSpyPartition: return "spy_partition";
    case LineKind::kSpyPartitionName: return "spy_partition_name";
    case LineKind::kSpySubspace: return "spy_subspace";
    case LineKind::kSpyRegionName: return "spy_region_name";
    case LineKind::kSpyFieldCreation: return "spy_field_creation";
    case LineKind::kSpyIndexSpaceRect: return "spy_index_space_rect";
    case LineKind::kSpyIndexSpacePoint: return "spy_index_space_point";
    case LineKind::kSpyEmptyIndexSpace: return "spy_empty_index_space";
    case LineKind::kSpyExpression: return "spy_expression";
    case LineKind::kSpyExpressionOp: return "spy_expression_op";
    case LineKind::kSpyRequirement: return "spy_requirement";
    case LineKind::kSpyRequirementField: return "spy_requirement_field";
    case LineKind::kSpyKnown: return "spy_known";
    case LineKind::kSpyUnknown: return "spy_unknown";
    case LineKind::kLegateFailed: return "legate_failed";
    case LineKind::kLegateRequestStore: return "legate_request_store";
    case LineKind::kLegateStore: return "legate_store";
    case LineKind::kLegateInstance: return "legate_instance";
    case LineKind::kLegateCreatedFor: return "legate_created_for";
    case LineKind::kLegateOther: return "legate_other";
  }
  return "?";
}

}  // namespace realm_log
}  // namespace realm_shadow
