// model/placement_address_order.cc - the placements that search the free
// ranges in address order: realm (first fit), next-fit, compacting.  All
// three keep their free ranges in internal/free_range_index.h.
#include <memory>

#include "model/internal/free_range_index.h"
#include "model/internal/placements.h"

namespace realm_shadow {
namespace model {
namespace internal {
namespace {

// What the three share: the index and the reads of it.
class AddressOrdered : public Placement {
 public:
  // Realm's can_allocate, and next-fit's: is there a range, from the
  // lowest address, that takes it aligned?
  bool CanTake(uint64_t size, uint64_t alignment) const override {
    FreeRangeIndex::Position p;
    uint64_t start;
    return free_.FirstFit(size, alignment, 0, &p, &start);
  }
  void Give(uint64_t first, uint64_t last) override { free_.Give(first, last); }
  void PrefetchGive(uint64_t first, uint64_t) const override { free_.Prefetch(first); }
  void Clear() override { free_.Clear(); }
  uint64_t LargestFree() const override { return free_.largest(); }
  size_t FreeRangeCount() const override { return free_.size(); }
  void ForEachFreeRange(
      absl::FunctionRef<void(const AddressRange&)> fn) const override {
    free_.ForEach(fn);
  }

 protected:
  FreeRangeIndex free_;
};

// Each placement's policy and copy, written once for the three.
template <typename Self, PlacementPolicy kPolicy>
class AddressOrderedAs : public AddressOrdered {
 public:
  PlacementPolicy policy() const override { return kPolicy; }
  std::unique_ptr<Placement> Clone() const override {
    return std::make_unique<Self>(static_cast<const Self&>(*this));
  }
};

// Realm's BasicRangeAllocator: the lowest-address free range whose aligned
// start leaves room.
class RealmPlacement final
    : public AddressOrderedAs<RealmPlacement, PlacementPolicy::kRealm> {
 public:
  bool Take(uint64_t size, uint64_t alignment, uint64_t* offset) override {
    FreeRangeIndex::Position p;
    if (!free_.FirstFit(size, alignment, 0, &p, offset)) return false;
    free_.Carve(p, *offset, size);
    return true;
  }
};

// First fit from where the last placement ended, wrapping around.
class NextFitPlacement final
    : public AddressOrderedAs<NextFitPlacement, PlacementPolicy::kNextFit> {
 public:
  bool Take(uint64_t size, uint64_t alignment, uint64_t* offset) override {
    FreeRangeIndex::Position p;
    if (!Find(size, alignment, &p, offset)) return false;
    free_.Carve(p, *offset, size);
    rover_ = *offset + size;
    return true;
  }

 private:
  bool Find(uint64_t size, uint64_t alignment, FreeRangeIndex::Position* p,
            uint64_t* start) const {
    // The range holding the rover, then those after it, then from the
    // start (what is found there lies before the rover: the wrap).
    if (free_.Containing(rover_, p)) {
      const AddressRange& r = free_.at(*p);
      const uint64_t s = AlignUp(r.first, alignment);
      if (s < r.last && r.last - s >= size) {
        *start = s;
        return true;
      }
    }
    return free_.FirstFit(size, alignment, rover_, p, start) ||
           free_.FirstFit(size, alignment, 0, p, start);
  }

  uint64_t rover_ = 0;
};

// Ideal: alignment ignored, and the heap compacts when no free range is
// long enough (RangeAllocator::Allocate), so only the free bytes count.
class CompactingPlacement final
    : public AddressOrderedAs<CompactingPlacement,
                              PlacementPolicy::kCompacting> {
 public:
  bool MovesLiveData() const override { return true; }
  bool Take(uint64_t size, uint64_t, uint64_t* offset) override {
    FreeRangeIndex::Position p;
    if (!free_.FirstFit(size, 1, 0, &p, offset)) return false;
    free_.Carve(p, *offset, size);
    free_bytes_ -= size;
    return true;
  }
  bool CanTake(uint64_t size, uint64_t) const override {
    return free_bytes_ >= size;
  }
  void Give(uint64_t first, uint64_t last) override {
    if (first >= last) return;
    free_.Give(first, last);
    free_bytes_ += last - first;
  }
  void Clear() override {
    free_.Clear();
    free_bytes_ = 0;
  }

 private:
  uint64_t free_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Placement> MakeRealmPlacement() {
  return std::make_unique<RealmPlacement>();
}
std::unique_ptr<Placement> MakeNextFitPlacement() {
  return std::make_unique<NextFitPlacement>();
}
std::unique_ptr<Placement> MakeCompactingPlacement() {
  return std::make_unique<CompactingPlacement>();
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow
