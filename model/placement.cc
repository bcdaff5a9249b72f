// model/placement.cc - policy names and the factory; the strategies are in
// placement_*.cc.
#include "model/placement.h"

#include "model/internal/placements.h"

namespace realm_shadow {
namespace model {

const char* PlacementPolicyName(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::kRealm: return "realm";
    case PlacementPolicy::kBestFit: return "best-fit";
    case PlacementPolicy::kWorstFit: return "worst-fit";
    case PlacementPolicy::kNextFit: return "next-fit";
    case PlacementPolicy::kSizeClasses: return "size-classes";
    case PlacementPolicy::kCompacting: return "compacting";
  }
  return "?";
}

bool ParsePlacementPolicy(const std::string& name, PlacementPolicy* policy) {
  for (PlacementPolicy p : kAllPlacementPolicies) {
    if (name == PlacementPolicyName(p)) {
      *policy = p;
      return true;
    }
  }
  return false;
}

std::unique_ptr<Placement> MakePlacement(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::kRealm: return internal::MakeRealmPlacement();
    case PlacementPolicy::kBestFit: return internal::MakeBestFitPlacement();
    case PlacementPolicy::kWorstFit: return internal::MakeWorstFitPlacement();
    case PlacementPolicy::kNextFit: return internal::MakeNextFitPlacement();
    case PlacementPolicy::kSizeClasses: return internal::MakeSizeClassesPlacement();
    case PlacementPolicy::kCompacting: return internal::MakeCompactingPlacement();
  }
  return internal::MakeRealmPlacement();
}

}  // namespace model
}  // namespace realm_shadow
