#include "realm_shadow/render/report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "realm_shadow/analysis/diff.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/render/failure_report.h"

namespace realm_shadow {
namespace {

// Waste groups and instances listed (a tenth of a screen).
constexpr size_t kWasteListed = 5;

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", fraction * 100.0);
  return buffer;
}

std::string Range(uint64_t offset, uint64_t size) {
  return absl::StrCat("[", offset, ", ", offset + size, ")");
}

std::string SignedSize(int64_t delta) {
  if (delta < 0)
    return "-" + FormatSizeExact(static_cast<uint64_t>(-(delta + 1)) + 1);
  return "+" + FormatSizeExact(static_cast<uint64_t>(delta));
}

std::string ValueOf(const Identity* id, AllocationKind kind,
                    const std::string& attribute) {
  if (attribute == "kind") {
    std::string k = AllocationKindName(kind);
    if (id != nullptr)
      for (const auto& kv : id->attributes)
        if (kv.first == kReductionAttribute) return k + " (reduction)";
    return k;
  }
  if (id != nullptr)
    for (const auto& [key, value] : id->attributes)
      if (key == attribute) return value;
  return "(unknown)";
}

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string ShareOf(uint64_t bytes, const Snapshot& s) {
  if (!s.capacity_known || s.capacity == 0) return "";
  return Percent(static_cast<double>(bytes) / static_cast<double>(s.capacity));
}

// "    3.5 MiB  41.7%  12 allocation(s), largest 448 KiB  calc_new_currents"
std::string GroupLines(const Snapshot& s,
                       const std::vector<AllocationGroup>& groups,
                       size_t shown, const std::string& indent) {
  std::string out;
  const size_t n = shown == 0 ? groups.size() : std::min(shown, groups.size());
  for (size_t i = 0; i < n; ++i) {
    const AllocationGroup& g = groups[i];
    absl::StrAppend(&out, indent, Padded(FormatHumanSize(g.bytes), 12),
                    Padded(ShareOf(g.bytes, s), 7),
                    Padded(absl::StrCat(g.count, " allocation(s),"), 19),
                    " largest ", Padded(FormatHumanSize(g.largest), 12), " ",
                    g.value, "\n");
  }
  if (n < groups.size())
    absl::StrAppend(&out, indent, "... ", groups.size() - n,
                    " more group(s) (--all shows every one)\n");
  return out;
}

size_t Shown(const ReportOptions& o, size_t limit) { return o.all ? 0 : limit; }

}  // namespace

std::string ListCut::MoreLine(size_t total, const std::string& indent) const {
  if (Listed(total) == total) return "";
  return absl::StrCat(indent, "... ", total - shown, " more (", hint, ")\n");
}

std::string GroupAttribute(const std::string& name) {
  if (name == "region") return kRegionsAttribute;
  if (name == "field") return kFieldsAttribute;
  return name;
}

std::string MostTellingAttribute(const Snapshot& s) {
  // In that order, the first attribute present that puts two allocations
  // together (a region per tile groups nothing); failing that, the first
  // present.  The search stops at the first value seen twice: the live
  // failure report runs this on the failing thread, and a picture of
  // Legion instances has a second tile of a store within its first few.
  std::string first;
  for (const char* key : {kStoreAttribute, kRegionsAttribute, kTaskAttribute}) {
    bool present = false;
    for (const Identity& id : s.identities)
      for (const auto& kv : id.attributes) present |= kv.first == key;
    if (!present) continue;
    if (first.empty()) first = key;
    std::unordered_set<std::string> seen;
    auto twice = [&](uint32_t identity) {
      const Identity* id = s.FindIdentity(identity);
      if (id == nullptr) return false;
      for (const auto& [k, value] : id->attributes)
        if (k == key) return value != "(unknown)" && !seen.insert(value).second;
      return false;
    };
    for (const Allocation& a : s.allocations)
      if (twice(a.identity)) return key;
    for (const PendingRequest& p : s.pending)
      if (p.placement_unknown() && twice(p.identity)) return key;
  }
  return first;
}

std::string AttributeValue(const Snapshot& s, uint32_t identity,
                           AllocationKind kind, const std::string& attribute) {
  return ValueOf(identity ? s.FindIdentity(identity) : nullptr, kind,
                 attribute);
}

std::vector<AllocationGroup> GroupAllocations(
    const Snapshot& s, const std::string& attribute,
    const std::vector<Allocation>* subset) {
  // FindIdentity is a binary search: a window's few blockers cost no index
  // of every identity.
  std::unordered_map<std::string, AllocationGroup> groups;
  auto add = [&](uint32_t identity, AllocationKind kind, uint64_t size) {
    const std::string value =
        ValueOf(s.FindIdentity(identity), kind, attribute);
    AllocationGroup& g = groups[value];
    g.value = value;
    ++g.count;
    g.bytes += size;
    g.largest = std::max(g.largest, size);
  };
  for (const Allocation& a : subset ? *subset : s.allocations)
    add(a.identity, a.kind, a.size);
  if (subset == nullptr)
    for (const PendingRequest& p : s.pending)
      if (p.placement_unknown()) {
        const Identity* id = s.FindIdentity(p.identity);
        add(p.identity, id ? id->kind : AllocationKind::kUnknown, p.size);
      }
  std::vector<AllocationGroup> out;
  out.reserve(groups.size());
  for (auto& kv : groups) out.push_back(std::move(kv.second));
  std::sort(out.begin(), out.end(),
            [](const AllocationGroup& a, const AllocationGroup& b) {
              return a.bytes != b.bytes ? a.bytes > b.bytes : a.value < b.value;
            });
  return out;
}

std::vector<LoadedMemory> ByPressure(const std::vector<LoadedMemory>& memories) {
  struct Keyed {
    LoadedMemory m;
    uint64_t failures;
    double use;
  };
  std::vector<Keyed> keyed;
  for (const LoadedMemory& m : memories) {
    const Snapshot& s = *m.snapshot;
    const uint64_t used = s.used_bytes() + UnplacedUsage(s).bytes;
    const double use = s.capacity_known && s.capacity > 0
                           ? static_cast<double>(used) /
                                 static_cast<double>(s.capacity)
                           : static_cast<double>(used) / 1e18;
    keyed.push_back({m, s.counters.failures, use});
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if ((a.failures > 0) != (b.failures > 0)) return a.failures > 0;
    if (a.use != b.use) return a.use > b.use;
    if (a.m.snapshot->node != b.m.snapshot->node)
      return a.m.snapshot->node < b.m.snapshot->node;
    return a.m.snapshot->memory_id < b.m.snapshot->memory_id;
  });
  std::vector<LoadedMemory> out;
  for (const Keyed& k : keyed) out.push_back(k.m);
  return out;
}

std::string FormatRunSummary(const std::vector<LoadedMemory>& memories,
                             size_t rows) {
  const std::vector<LoadedMemory> order = ByPressure(memories);
  std::set<uint32_t> nodes;
  for (const LoadedMemory& m : memories) nodes.insert(m.snapshot->node);
  std::string out = absl::StrCat(
      "run summary: ", nodes.size(), " node(s), ", memories.size(),
      " memory(ies), by pressure (failures first, then use of capacity)\n");
  absl::StrAppend(&out, "  ", Padded("node", 6), Padded("memory", 20),
                  Padded("kind", 12), Padded("used", 14), Padded("use", 8),
                  Padded("capacity", 12), Padded("largest hole", 14),
                  Padded("frag", 8), "failures\n");
  const size_t n = rows == 0 ? order.size() : std::min(rows, order.size());
  for (size_t i = 0; i < n; ++i) {
    const Snapshot& s = *order[i].snapshot;
    const FreeSummary sum = Summarize(s);
    const KindUsage unplaced = UnplacedUsage(s);
    const uint64_t used = sum.used + unplaced.bytes;
    const bool known = unplaced.count == 0;
    absl::StrAppend(
        &out, "  ", Padded(absl::StrCat(s.node), 6),
        Padded(HexId(s.memory_id), 20),
        Padded(s.name.empty() ? MemoryKindName(s.kind) : s.name, 12),
        Padded((known ? "" : ">=") + FormatHumanSize(used), 14),
        Padded(ShareOf(used, s).empty() ? "?" : ShareOf(used, s), 8),
        Padded(s.capacity_known ? FormatHumanSize(s.capacity) : "unknown", 12),
        Padded(known && !s.addressed ? FormatHumanSize(sum.largest_hole) : "?",
               14),
        Padded(known && !s.addressed ? Percent(sum.fragmentation) : "?", 8),
        s.counters.failures, "\n");
  }
  if (n < order.size())
    absl::StrAppend(&out, "  ... ", order.size() - n,
                    " more memory(ies) (--all, or --node N for one node)\n");
  return out;
}

std::vector<LoadedMemory> ListMemories(const std::vector<DumpFile>& dumps,
                                       const std::vector<std::string>& files) {
  std::vector<LoadedMemory> out;
  for (size_t i = 0; i < dumps.size(); ++i)
    for (const Snapshot& s : dumps[i].memories)
      out.push_back(LoadedMemory{i < files.size() ? files[i] : std::string(),
                                 &dumps[i], &s});
  return out;
}

const Identity* FindIdentityById(const std::vector<Identity>& identities,
                                 uint32_t id) {
  if (id == 0) return nullptr;
  const auto it = std::lower_bound(
      identities.begin(), identities.end(), id,
      [](const Identity& identity, uint32_t key) { return identity.id < key; });
  return it != identities.end() && it->id == id ? &*it : nullptr;
}

std::string IdentityText(const std::vector<Identity>& identities, uint32_t id,
                         bool with_kind) {
  if (id == 0) return "";
  const Identity* identity = FindIdentityById(identities, id);
  if (identity == nullptr) return absl::StrCat(" identity#", id);
  return IdentityText(*identity, with_kind);
}

std::string MemoryTitle(const Snapshot& s) {
  std::string title = absl::StrCat("node ", s.node, " memory ",
                                   HexId(s.memory_id), " (",
                                   MemoryKindName(s.kind));
  if (!s.name.empty() && s.name != MemoryKindName(s.kind))
    absl::StrAppend(&title, ", ", s.name);
  title += ")";
  return title;
}

bool SizeIsUpperBound(const Snapshot& s, const Allocation& a) {
  if (a.identity == 0) return false;
  const Identity* id = s.FindIdentity(a.identity);
  if (id == nullptr) return false;
  for (const auto& [key, value] : id->attributes)
    if (key == kSizeAttribute && value == kSizeUpperBound) return true;
  return false;
}

uint64_t BoundedBytes(const Snapshot& s) {
  // Only a rebuilt log's pieces carry the attribute: a picture without such
  // an identity (every tracker dump) costs a pass over its identities, not
  // over its allocations (the live failure report asks on the failing
  // thread).
  bool any = false;
  for (const Identity& id : s.identities)
    for (const auto& [key, value] : id.attributes)
      any |= key == kSizeAttribute && value == kSizeUpperBound;
  if (!any) return 0;
  uint64_t bytes = 0;
  for (const Allocation& a : s.allocations)
    if (SizeIsUpperBound(s, a)) bytes += a.size;
  return bytes;
}

std::string FormatAllocationLine(const Snapshot& s, const Allocation& a) {
  const bool bound = SizeIsUpperBound(s, a);
  std::string line = absl::StrCat(
      "instance ", HexId(a.instance), " ", Range(a.offset, a.size),
      " size ", bound ? "<= " : "", FormatSizeExact(a.size));
  if (!bound) absl::StrAppend(&line, " align ", a.alignment());
  absl::StrAppend(&line, " ", AllocationStateName(a.state), " ",
                  AllocationKindName(a.kind));
  if (a.pinned()) line += " pinned";
  if (a.flags & kFromRedistrict) line += " redistricted";
  if (a.flags & kWasDeferred) line += " was-deferred";
  line += IdentityText(s.identities, a.identity);
  return line;
}

MemorySpace MeasureSpace(const Snapshot& s, bool keep_holes) {
  MemorySpace space;
  if (keep_holes) {
    space.holes = FindHoles(s);
    space.summary = SummarizeHoles(s, space.holes);
  } else {
    space.summary = Summarize(s);
  }
  space.bounded = BoundedBytes(s);
  space.unplaced = UnplacedUsage(s);
  return space;
}

std::string FormatCapacityAndUse(const Snapshot& s, const MemorySpace& space) {
  const FreeSummary& sum = space.summary;
  std::string out;
  if (s.capacity_known)
    absl::StrAppend(&out, "  capacity            ", FormatSizeExact(s.capacity),
                    "\n");
  else
    absl::StrAppend(&out, "  capacity            unknown (the log never said)\n");
  if (space.placed()) {
    absl::StrAppend(&out, "  used                ", FormatSizeExact(sum.used),
                    " in ", sum.allocation_count, " allocation(s); peak ",
                    FormatSizeExact(s.counters.peak_used), "\n");
  } else {
    absl::StrAppend(&out, "  used                at least ",
                    FormatSizeExact(sum.used + space.unplaced.bytes), " in ",
                    sum.allocation_count + space.unplaced.count,
                    " instance(s), of which ", space.unplaced.count, " (",
                    FormatSizeExact(space.unplaced.bytes),
                    ") of unknown placement\n");
  }
  if (space.bounded > 0)
    absl::StrAppend(&out, "                      of which ",
                    FormatSizeExact(space.bounded),
                    " are upper bounds (redistricted pieces; see notes)\n");
  return out;
}

std::string FormatUseByKind(const Snapshot& s) {
  std::string out = "  use by kind        ";
  const auto kinds = UsageByKind(s);
  bool any_kind = false;
  for (int k = 0; k < kAllocationKindCount; ++k) {
    if (kinds[k].count == 0) continue;
    absl::StrAppend(&out, any_kind ? ";" : "", " ",
                    AllocationKindName(static_cast<AllocationKind>(k)), ": ",
                    kinds[k].count, " (", FormatHumanSize(kinds[k].bytes), ")");
    any_kind = true;
  }
  if (!any_kind) out += " none";
  out += "\n";
  return out;
}

std::string FormatHolders(const Snapshot& s, const std::string& attribute,
                          size_t groups_shown) {
  if (attribute.empty()) return "";
  const std::vector<AllocationGroup> groups = GroupAllocations(s, attribute);
  return absl::StrCat("  by ", attribute, "  (", groups.size(),
                      " group(s), largest first: bytes, share of capacity, "
                      "count, largest)\n",
                      GroupLines(s, groups, groups_shown, "    "));
}

std::string FormatWasteFigures(const WasteTotals& t) {
  std::string out;
  const std::pair<const char*, const WasteSum*> figures[] = {
      {"padding", &t.padding}, {"inflation", &t.inflation},
      {"unrequested fields", &t.unrequested}};
  for (const auto& [name, sum] : figures) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", name, " ");
    if (sum->known_allocations == 0) out += "unknown";
    else out += FormatHumanSize(sum->bytes);
  }
  return out;
}

std::string FormatWasteLines(const Snapshot& s, const MemoryWaste& waste,
                             const std::string& group_by, const std::string& indent) {
  if (waste.totals.known_waste() == 0) return "";
  std::string out;
  const std::string attribute = group_by.empty() ? MostTellingAttribute(s) : group_by;
  if (!attribute.empty()) {
    const std::vector<WasteGroup> groups = GroupWaste(waste, [&](const Allocation& a) {
      return AttributeValue(s, a.identity, a.kind, attribute);
    });
    absl::StrAppend(&out, indent, "by ", attribute, ":");
    size_t shown = 0;
    for (const WasteGroup& g : groups) {
      if (g.totals.known_waste() == 0 || shown == kWasteListed) continue;
      absl::StrAppend(&out, shown++ ? ";" : "", " ", g.value, " ",
                      FormatHumanSize(g.totals.known_waste()), " of ",
                      FormatHumanSize(g.totals.bytes), " (", FormatWasteFigures(g.totals), ")");
    }
    const size_t wasteful = static_cast<size_t>(std::count_if(
        groups.begin(), groups.end(),
        [](const WasteGroup& g) { return g.totals.known_waste() > 0; }));
    if (wasteful > shown) absl::StrAppend(&out, "; ", wasteful - shown, " more group(s)");
    out += "\n";
  }
  // The instances that hold the most, largest first.
  std::vector<const AllocationWaste*> most;
  for (const AllocationWaste& a : waste.allocations)
    if (a.known_waste() > 0) most.push_back(&a);
  std::stable_sort(most.begin(), most.end(),
                   [](const AllocationWaste* a, const AllocationWaste* b) {
                     return a->known_waste() > b->known_waste();
                   });
  for (size_t i = 0; i < most.size() && i < kWasteListed; ++i) {
    const AllocationWaste& a = *most[i];
    absl::StrAppend(&out, indent, "instance ", HexId(a.allocation.instance), " ",
                    FormatHumanSize(a.known_waste()), " of ",
                    FormatHumanSize(a.allocation.size), ": padding ",
                    a.padding.known ? FormatSizeExact(a.padding.bytes) : "unknown",
                    ", inflation ",
                    a.inflation.known ? FormatSizeExact(a.inflation.bytes) : "unknown",
                    ", unrequested ",
                    a.unrequested.known ? FormatSizeExact(a.unrequested.bytes) : "unknown",
                    IdentityText(s.identities, a.allocation.identity), "\n");
  }
  if (most.size() > kWasteListed)
    absl::StrAppend(&out, indent, "and ", most.size() - kWasteListed,
                    " more instance(s) (explain --json lists every one)\n");
  return out;
}

namespace {

uint64_t InstancesWithFigures(const MemoryWaste& waste) {
  uint64_t n = 0;
  for (const AllocationWaste& a : waste.allocations)
    n += a.allocation.size > 0 &&
         (a.padding.known || a.inflation.known || a.unrequested.known);
  return n;
}

}  // namespace

std::string FormatWasteSummary(const MemoryWaste& waste) {
  const WasteTotals& t = waste.totals;
  return absl::StrCat(FormatSizeExact(t.known_waste()), " held unasked in live instances (",
                      FormatWasteFigures(t), "; ", InstancesWithFigures(waste), " of ",
                      t.allocations, " instance(s) with figures)");
}

std::string FormatWaste(const Snapshot& s, const std::string& attribute) {
  const MemoryWaste waste = FindWaste(s);
  if (InstancesWithFigures(waste) == 0) return "";
  return absl::StrCat("  waste               ", FormatWasteSummary(waste), "\n",
                      FormatWasteLines(s, waste, attribute, "    "));
}

std::string FormatFreeSpace(const Snapshot& s, const MemorySpace& space) {
  const FreeSummary& sum = space.summary;
  if (!space.placed())
    return absl::StrCat("  placements          unknown for ",
                        space.unplaced.count,
                        " instance(s): the log has no debug-level lines (see "
                        "the notes); holes, free space and fragmentation are "
                        "unknown\n");
  if (s.addressed)
    return absl::StrCat("  total free          ",
                        FormatSizeExact(sum.total_free),
                        " (addressed memory: one allocation per range, no "
                        "holes)\n");
  return absl::StrCat(
      "  total free          ", FormatSizeExact(sum.total_free),
      s.capacity_known ? "" : " (between allocations only: capacity unknown)",
      space.bounded > 0 ? " (a lower bound)" : "", "\n",
      "  largest hole        ", FormatSizeExact(sum.largest_hole), "\n",
      "  holes               ", sum.hole_count, "; fragmentation ",
      Percent(sum.fragmentation), " (1 - largest hole / total free)\n");
}

std::string FormatLargestHoles(const Snapshot& s, const MemorySpace& space,
                               size_t top) {
  if (!space.placed() || s.addressed) return "";
  const std::vector<Hole> largest = TopHoles(space.holes, top);
  if (largest.empty()) return "";
  std::string out =
      absl::StrCat("  largest holes (top ", top, ", largest first)\n");
  for (const Hole& h : largest)
    absl::StrAppend(&out, "    ", Range(h.offset, h.size), "  ",
                    FormatSizeExact(h.size), "\n");
  out += "  hole histogram (by size)\n";
  const HoleHistogram hist = HoleSizeHistogram(space.holes);
  for (int b = 0; b < 64; ++b) {
    if (hist[b] == 0) continue;
    const std::string lo = FormatHumanSize(uint64_t{1} << b);
    const std::string hi =
        b == 63 ? "16 EiB" : FormatHumanSize(uint64_t{1} << (b + 1));
    absl::StrAppend(&out, "    [", lo, ", ", hi, ")  ", hist[b], "\n");
  }
  return out;
}

std::string FormatDeferredRequests(const Snapshot& s, const ListCut& cut) {
  std::vector<const PendingRequest*> deferred;
  for (const PendingRequest& p : s.pending)
    if (!p.placement_unknown()) deferred.push_back(&p);
  std::string out = absl::StrCat("  deferred requests   ", deferred.size(), "\n");
  for (size_t i = 0; i < cut.Listed(deferred.size()); ++i) {
    const PendingRequest& p = *deferred[i];
    absl::StrAppend(&out, "    instance ", HexId(p.instance), " ");
    if (p.size == 0 && p.identity != 0)
      out += "size unknown";
    else
      absl::StrAppend(&out, "size ", FormatSizeExact(p.size), " align ",
                      p.alignment);
    if (p.planned_offset != kNoOffset)
      absl::StrAppend(&out, " planned at ", p.planned_offset);
    out += IdentityText(s.identities, p.identity) + "\n";
  }
  out += cut.MoreLine(deferred.size(), "    ");
  return out;
}

std::string FormatPendingReleases(const Snapshot& s, const ListCut& cut) {
  std::vector<const Allocation*> releases;
  for (const Allocation& a : s.allocations)
    if (a.state != AllocationState::kLive) releases.push_back(&a);
  std::string out = absl::StrCat("  pending releases    ", releases.size(), "\n");
  for (size_t i = 0; i < cut.Listed(releases.size()); ++i)
    absl::StrAppend(&out, "    ", FormatAllocationLine(s, *releases[i]), "\n");
  out += cut.MoreLine(releases.size(), "    ");
  return out;
}

std::string FormatFailures(const Snapshot& s, const MemorySpace& space,
                           const ReportOptions& options,
                           const std::string& attribute) {
  const FailureTextOptions failure_text{
      "    ", ListCut{Shown(options, options.instances_shown)}, attribute};
  std::string out = absl::StrCat("  failures            ", s.counters.failures,
                                 " in all",
                                 s.failures.empty() ? "" : "; most recent last",
                                 "\n");
  const size_t first_failure =
      s.failures.size() > options.failures_shown && !options.all
          ? s.failures.size() - options.failures_shown
          : 0;
  if (first_failure > 0)
    absl::StrAppend(&out, "    (", first_failure, " earlier not shown)\n");
  for (size_t i = first_failure; i < s.failures.size(); ++i)
    out += FormatFailure(s, space, s.failures[i], failure_text);
  return out;
}

std::string FormatAnomalies(const Snapshot& s, const ReportOptions& options) {
  uint64_t anomaly_total = 0;
  for (uint64_t n : s.counters.anomalies) anomaly_total += n;
  std::string out = absl::StrCat("  anomalies           ", anomaly_total);
  for (int k = 0; k < kAnomalyKindCount; ++k)
    if (s.counters.anomalies[k])
      absl::StrAppend(&out, "; ", AnomalyKindName(static_cast<AnomalyKind>(k)),
                      ": ", s.counters.anomalies[k]);
  out += "\n";
  const size_t first_anomaly =
      s.anomalies.size() > options.anomalies_shown && !options.all
          ? s.anomalies.size() - options.anomalies_shown
          : 0;
  for (size_t i = first_anomaly; i < s.anomalies.size(); ++i) {
    const Anomaly& a = s.anomalies[i];
    absl::StrAppend(&out, "    event ", a.sequence, ": ",
                    AnomalyKindName(a.kind), " instance ",
                    HexId(a.instance));
    if (a.size) absl::StrAppend(&out, " ", Range(a.offset, a.size));
    if (a.other_instance)
      absl::StrAppend(&out, " with ", HexId(a.other_instance));
    out += "\n";
  }
  return out;
}

std::string FormatExactness(const Snapshot& s) {
  return s.exact ? "" : "  NOT EXACT: tracking was off for some events\n";
}

std::string FormatMemoryReport(const Snapshot& s,
                               const ReportOptions& options) {
  const MemorySpace space = MeasureSpace(s);
  const ListCut cut{Shown(options, options.instances_shown)};
  // Who holds it: the chosen attribute, or the most telling one present.
  const std::string attribute = options.group_by.empty()
                                    ? MostTellingAttribute(s)
                                    : GroupAttribute(options.group_by);
  return absl::StrCat(
      MemoryTitle(s), "\n", FormatCapacityAndUse(s, space), FormatUseByKind(s),
      FormatHolders(s, attribute, Shown(options, options.groups_shown)),
      FormatWaste(s, attribute), FormatFreeSpace(s, space), FormatLargestHoles(s, space, options.top_holes),
      FormatDeferredRequests(s, cut), FormatPendingReleases(s, cut),
      FormatFailures(s, space, options, attribute),
      FormatAnomalies(s, options), FormatExactness(s));
}

std::string FormatDumpNotes(const DumpFile& dump, const std::string& file) {
  std::string out = absl::StrCat(file.empty() ? "dump" : file, ": source ",
                                 dump.source.empty() ? "?" : dump.source,
                                 ", node ", dump.node, ", format version ",
                                 dump.version, "\n");
  if (dump.notes.empty()) return out;
  out += "  what the source could not tell, and how it was read:\n";
  for (const std::string& note : dump.notes)
    absl::StrAppend(&out, "  - ", note, "\n");
  return out;
}

std::string FormatReport(const std::vector<DumpFile>& dumps,
                         const std::vector<std::string>& files,
                         const ReportOptions& options) {
  std::vector<LoadedMemory> memories;
  for (const LoadedMemory& m : ListMemories(dumps, files))
    if (!options.node_selected || m.snapshot->node == options.node)
      memories.push_back(m);
  std::set<uint32_t> nodes;
  for (const LoadedMemory& m : memories) nodes.insert(m.snapshot->node);
  std::string out;
  std::vector<LoadedMemory> detailed = memories;
  if (nodes.size() > 1) {
    out += FormatRunSummary(memories, options.all ? 0 : 20) + "\n";
    if (!options.all && !options.node_selected &&
        memories.size() > options.detailed_memories) {
      detailed = ByPressure(memories);
      detailed.resize(options.detailed_memories);
    }
  }
  for (const LoadedMemory& m : detailed) {
    out += FormatMemoryReport(*m.snapshot, options);
    out += "\n";
  }
  if (detailed.size() < memories.size())
    absl::StrAppend(&out, "(", memories.size() - detailed.size(),
                    " more memory(ies) in the summary above: --node N or "
                    "--all for their reports)\n\n");
  for (size_t i = 0; i < dumps.size(); ++i)
    out += FormatDumpNotes(dumps[i], i < files.size() ? files[i] : "");
  return out;
}

std::string FormatHoles(const Snapshot& s, size_t top) {
  const std::vector<Hole> holes = FindHoles(s);
  const FreeSummary sum = SummarizeHoles(s, holes);
  std::string out = MemoryTitle(s) + "\n";
  if (s.addressed) {
    absl::StrAppend(&out, "  addressed memory: no holes; free ",
                    FormatSizeExact(sum.total_free), "\n");
    return out;
  }
  absl::StrAppend(&out, "  ", sum.hole_count, " hole(s), total free ",
                  FormatSizeExact(sum.total_free), ", largest ",
                  FormatSizeExact(sum.largest_hole), ", fragmentation ",
                  Percent(sum.fragmentation),
                  s.capacity_known ? "" : " (capacity unknown: tail excluded)",
                  "\n");
  if (BoundedBytes(s) > 0)
    out += "  (beside redistricted pieces of upper-bound size, holes are "
           "lower bounds)\n";
  const std::vector<Hole> largest = TopHoles(holes, top);
  absl::StrAppend(&out, "  largest ", largest.size(), ", largest first:\n");
  for (const Hole& h : largest)
    absl::StrAppend(&out, "    offset ", h.offset, "  end ", h.end(), "  ",
                    FormatSizeExact(h.size), "\n");
  return out;
}

std::string FormatBlockers(const Snapshot& s, uint64_t size,
                           uint64_t alignment, BlockerObjective objective) {
  std::string out = MemoryTitle(s) + "\n";
  absl::StrAppend(&out, "  request ", FormatSizeExact(size), " align ",
                  alignment, "\n");
  const FitResult fit = FirstFit(s, size, alignment);
  if (fit.fits) {
    absl::StrAppend(&out, "  fits now: first-fit places it at offset ",
                    fit.offset, "\n");
    return out;
  }
  const FreeSummary sum = Summarize(s);
  absl::StrAppend(&out, "  does not fit: ", FailureCauseText(s, size, alignment),
                  " (total free ", FormatSizeExact(sum.total_free),
                  ", largest hole ", FormatSizeExact(sum.largest_hole), ")\n");
  const BlockerWindow w = FindBlockers(s, size, alignment, objective);
  out += FormatBlockerWindow(s, w,
                             objective == BlockerObjective::kFewestBytes
                                 ? "blockers (fewest bytes)"
                                 : "blockers (fewest allocations)",
                             "  ", ListCut{0}, MostTellingAttribute(s));
  return out;
}

namespace {

// What changed in place, each attribute as "name before -> after":
// "state live -> release_pending; identity (none) -> fields=a,b".
std::string ChangeText(const Snapshot& before, const Snapshot& after,
                       const AllocationChange& c) {
  std::vector<std::string> parts;
  const Allocation &x = c.before, &y = c.after;
  if (c.what & kStateChanged)
    parts.push_back(absl::StrCat("state ", AllocationStateName(x.state), " -> ",
                                 AllocationStateName(y.state)));
  if (c.what & kIdentityChanged) {
    const auto text = [](const Snapshot& s, uint32_t id) {
      const std::string t = IdentityText(s.identities, id);
      return t.empty() ? std::string("(none)") : t.substr(1);
    };
    parts.push_back(absl::StrCat("identity ", text(before, x.identity), " -> ",
                                 text(after, y.identity)));
  }
  if (c.what & kPinnedChanged)
    parts.push_back(x.pinned() ? "pinned -> not pinned" : "not pinned -> pinned");
  if (c.what & kFlagsChanged) {
    const auto flags = [](uint8_t f) {
      std::string t;
      if (f & kFromRedistrict) t += " redistricted";
      if (f & kWasDeferred) t += " was-deferred";
      return t.empty() ? std::string("none") : t.substr(1);
    };
    parts.push_back(absl::StrCat("flags ", flags(x.flags), " -> ", flags(y.flags)));
  }
  if (c.what & kKindChanged)
    parts.push_back(absl::StrCat("kind ", AllocationKindName(x.kind), " -> ",
                                 AllocationKindName(y.kind)));
  if (c.what & kAlignmentChanged)
    parts.push_back(absl::StrCat("alignment ", x.alignment(), " -> ", y.alignment()));
  return absl::StrJoin(parts, "; ");
}

}  // namespace

std::string FormatDiff(const Snapshot& before, const Snapshot& after) {
  const SnapshotDiff d = DiffSnapshots(before, after);
  std::string out = MemoryTitle(after) + "\n";
  if (!d.same_memory)
    absl::StrAppend(&out, "  (compared with ", MemoryTitle(before),
                    ": a different memory)\n");
  absl::StrAppend(&out, "  events ", d.before_sequence, " -> ",
                  d.after_sequence, "; ", d.unchanged_count,
                  " allocation(s) in both\n");
  absl::StrAppend(&out, "  used ", FormatSizeExact(d.before_summary.used),
                  " -> ", FormatSizeExact(d.after_summary.used), " (",
                  SignedSize(d.used_delta), ")\n");
  absl::StrAppend(&out, "  total free ",
                  FormatSizeExact(d.before_summary.total_free), " -> ",
                  FormatSizeExact(d.after_summary.total_free), " (",
                  SignedSize(d.total_free_delta), ")\n");
  absl::StrAppend(&out, "  largest hole ",
                  FormatSizeExact(d.before_summary.largest_hole), " -> ",
                  FormatSizeExact(d.after_summary.largest_hole), " (",
                  SignedSize(d.largest_hole_delta), ")\n");
  absl::StrAppend(&out, "  allocations ", d.before_summary.allocation_count,
                  " -> ", d.after_summary.allocation_count, "; holes ",
                  d.before_summary.hole_count, " -> ",
                  d.after_summary.hole_count, "; fragmentation ",
                  Percent(d.before_summary.fragmentation), " -> ",
                  Percent(d.after_summary.fragmentation), "\n");
  if (d.empty()) {
    out += "  no change at the offset level\n";
    return out;
  }
  absl::StrAppend(&out, "  added ", d.added.size(), "\n");
  for (const Allocation& a : d.added)
    absl::StrAppend(&out, "    + ", FormatAllocationLine(after, a), "\n");
  absl::StrAppend(&out, "  removed ", d.removed.size(), "\n");
  for (const Allocation& a : d.removed)
    absl::StrAppend(&out, "    - ", FormatAllocationLine(before, a), "\n");
  absl::StrAppend(&out, "  moved ", d.moved.size(), "\n");
  for (const AllocationMove& m : d.moved)
    absl::StrAppend(&out, "    ~ instance ", HexId(m.after.instance), " ",
                    Range(m.before.offset, m.before.size), " -> ",
                    Range(m.after.offset, m.after.size), "\n");
  absl::StrAppend(&out, "  changed in place ", d.changed.size(), "\n");
  for (const AllocationChange& c : d.changed)
    absl::StrAppend(&out, "    * instance ", HexId(c.after.instance), " ",
                    Range(c.after.offset, c.after.size), " ",
                    ChangeText(before, after, c), "\n");
  absl::StrAppend(&out, "  holes opened ", d.holes_opened.size(), "\n");
  for (const Hole& h : d.holes_opened)
    absl::StrAppend(&out, "    + ", Range(h.offset, h.size), "  ",
                    FormatSizeExact(h.size), "\n");
  absl::StrAppend(&out, "  holes closed ", d.holes_closed.size(), "\n");
  for (const Hole& h : d.holes_closed)
    absl::StrAppend(&out, "    - ", Range(h.offset, h.size), "  ",
                    FormatSizeExact(h.size), "\n");
  return out;
}

}  // namespace realm_shadow
