#include "realm_shadow/analysis/waste.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "realm_shadow/analysis/analysis.h"

namespace realm_shadow {
namespace {

std::optional<uint64_t> Unsigned(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

WasteBytes Known(uint64_t bytes) { return WasteBytes{true, bytes}; }

// a * b, unknown past 64 bits.
WasteBytes Product(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p)) return WasteBytes{};
  return Known(p);
}

// The figures of one allocation from its identity (none: all unknown).
AllocationWaste WasteOf(const Allocation& a, const Identity* identity) {
  AllocationWaste w;
  w.allocation = a;
  if (a.size == 0) {
    w.padding = w.inflation = w.unrequested = w.useful = Known(0);
    return w;
  }
  if (identity == nullptr) return w;
  const WasteFigures f = FiguresOf(*identity);
  // Field data the figures put past the allocation's end contradicts it (a
  // source's slip, or figures of another life): nothing is kept.
  uint64_t data = 0;
  if ((f.field_bytes && *f.field_bytes > a.size) ||
      (f.points && f.bytes_per_point &&
       (__builtin_mul_overflow(*f.points, *f.bytes_per_point, &data) ||
        data > a.size)))
    return w;
  if (f.field_bytes) w.padding = Known(a.size - *f.field_bytes);
  if (f.points && f.region_points && *f.region_points <= *f.points) {
    const uint64_t beyond = *f.points - *f.region_points;
    if (beyond == 0)
      w.inflation = Known(0);
    else if (f.bytes_per_point)
      w.inflation = Product(beyond, *f.bytes_per_point);
  }
  // A region of more points than the layout covers is not the region the
  // layout was made for: neither figure that counts its points is kept.
  const bool region_fits =
      f.region_points && (!f.points || *f.region_points <= *f.points);
  if (region_fits && f.bytes_per_point && f.requested_bytes_per_point &&
      *f.requested_bytes_per_point <= *f.bytes_per_point)
    w.unrequested = Product(*f.bytes_per_point - *f.requested_bytes_per_point,
                            *f.region_points);
  // Figures that add up past the allocation contradict each other: none of
  // them is kept.
  uint64_t sum = 0;
  if (__builtin_add_overflow(w.padding.bytes, w.inflation.bytes, &sum) ||
      __builtin_add_overflow(sum, w.unrequested.bytes, &sum) || sum > a.size) {
    w.padding = w.inflation = w.unrequested = WasteBytes{};
    return w;
  }
  if (w.padding.known && w.inflation.known && w.unrequested.known)
    w.useful = Known(a.size - sum);
  return w;
}

void AddTo(WasteSum* sum, const WasteBytes& figure, uint64_t size) {
  if (figure.known) {
    sum->bytes += figure.bytes;
    ++sum->known_allocations;
  } else {
    ++sum->unknown_allocations;
    sum->unknown_bytes += size;
  }
}

void AddSum(WasteSum* mine, const WasteSum& theirs) {
  mine->bytes += theirs.bytes;
  mine->known_allocations += theirs.known_allocations;
  mine->unknown_allocations += theirs.unknown_allocations;
  mine->unknown_bytes += theirs.unknown_bytes;
}

}  // namespace

WasteFigures FiguresOf(const Identity& identity) {
  WasteFigures f;
  for (const auto& [key, value] : identity.attributes) {
    if (!IsFigureAttribute(key)) continue;
    if (key == kPointsAttribute) f.points = Unsigned(value);
    else if (key == kFieldBytesAttribute) f.field_bytes = Unsigned(value);
    else if (key == kBytesPerPointAttribute) f.bytes_per_point = Unsigned(value);
    else if (key == kRegionPointsAttribute) f.region_points = Unsigned(value);
    else if (key == kRequestedBytesPerPointAttribute)
      f.requested_bytes_per_point = Unsigned(value);
  }
  return f;
}

void WasteTotals::Add(const AllocationWaste& w) {
  ++allocations;
  bytes += w.allocation.size;
  AddTo(&padding, w.padding, w.allocation.size);
  AddTo(&inflation, w.inflation, w.allocation.size);
  AddTo(&unrequested, w.unrequested, w.allocation.size);
  alignment_gaps += w.alignment_gap_before;
}

WasteTotals& WasteTotals::operator+=(const WasteTotals& o) {
  allocations += o.allocations;
  bytes += o.bytes;
  AddSum(&padding, o.padding);
  AddSum(&inflation, o.inflation);
  AddSum(&unrequested, o.unrequested);
  alignment_gaps += o.alignment_gaps;
  return *this;
}

MemoryWaste FindWaste(const Snapshot& s) {
  std::unordered_map<uint32_t, const Identity*> identities;
  for (const Identity& id : s.identities) identities.emplace(id.id, &id);
  std::vector<const Allocation*> order;
  order.reserve(s.allocations.size());
  for (const Allocation& a : s.allocations) order.push_back(&a);
  std::stable_sort(order.begin(), order.end(),
                   [](const Allocation* a, const Allocation* b) {
                     return a->offset < b->offset;
                   });
  MemoryWaste out;
  out.allocations.reserve(order.size());
  uint64_t previous_end = 0;  // of the non-empty allocations before
  for (const Allocation* a : order) {
    auto it = a->identity ? identities.find(a->identity) : identities.end();
    AllocationWaste w =
        WasteOf(*a, it == identities.end() ? nullptr : it->second);
    // An addressed memory's offsets are addresses: no gaps between them.
    if (!s.addressed && a->size > 0 && previous_end < a->offset &&
        AlignUp(previous_end, a->alignment()) == a->offset)
      w.alignment_gap_before = a->offset - previous_end;
    if (a->size > 0) previous_end = std::max(previous_end, a->end());
    out.totals.Add(w);
    out.allocations.push_back(std::move(w));
  }
  return out;
}

std::vector<WasteGroup> GroupWaste(
    const MemoryWaste& waste,
    const std::function<std::string(const Allocation&)>& group_of) {
  std::unordered_map<std::string, WasteTotals> groups;
  for (const AllocationWaste& w : waste.allocations)
    groups[group_of(w.allocation)].Add(w);
  std::vector<WasteGroup> out;
  out.reserve(groups.size());
  for (auto& [value, totals] : groups) out.push_back({value, totals});
  std::sort(out.begin(), out.end(), [](const WasteGroup& a, const WasteGroup& b) {
    return a.totals.known_waste() != b.totals.known_waste()
               ? a.totals.known_waste() > b.totals.known_waste()
               : a.value < b.value;
  });
  return out;
}

RecoveryFit FitAfterRecovery(const Snapshot& s, const MemoryWaste& waste,
                             uint64_t size, uint64_t alignment) {
  RecoveryFit fit;
  fit.placements_known = PlacementsKnown(s);
  fit.largest_hole_now = Summarize(s).largest_hole;
  const FitResult now = FirstFit(s, size, alignment);
  fit.fits_now = now.fits;
  // Each allocation cut to its size less its known waste, where it is.
  std::unordered_map<uint64_t, const AllocationWaste*> by_instance;
  for (const AllocationWaste& w : waste.allocations) {
    fit.recoverable_bytes += w.known_waste();
    if (w.known_waste() > 0) by_instance.emplace(w.allocation.instance, &w);
  }
  Snapshot shrunk = s;
  for (Allocation& a : shrunk.allocations) {
    auto it = by_instance.find(a.instance);
    if (it != by_instance.end() && it->second->allocation.offset == a.offset)
      a.size -= std::min(a.size, it->second->known_waste());
  }
  fit.largest_hole_after = Summarize(shrunk).largest_hole;
  if (fit.fits_now) {
    fit.fits_after_recovery = true;
    fit.placement = now.offset;
    return fit;
  }
  const FitResult after = FirstFit(shrunk, size, alignment);
  fit.fits_after_recovery = after.fits;
  if (!after.fits) return fit;
  fit.placement = after.offset;
  // The instances whose bytes the request's range takes.
  const uint64_t end = after.offset + size;
  for (const AllocationWaste& w : waste.allocations) {
    const Allocation& a = w.allocation;
    if (a.size == 0 || a.offset >= end || a.end() <= after.offset) continue;
    fit.recreate.push_back(w);
    if (a.pinned()) ++fit.pinned_in_recreate;
  }
  return fit;
}

}  // namespace realm_shadow
