// model/internal/placements.h - the constructors of the placement
// strategies (placement.h says what each one does); MakePlacement picks one.
#ifndef REALM_SHADOW_MODEL_INTERNAL_PLACEMENTS_H_
#define REALM_SHADOW_MODEL_INTERNAL_PLACEMENTS_H_

#include <memory>

#include "model/placement.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {
namespace internal {

// placement_address_order.cc: first fit by address, and its variants.
std::unique_ptr<Placement> MakeRealmPlacement();
std::unique_ptr<Placement> MakeNextFitPlacement();
std::unique_ptr<Placement> MakeCompactingPlacement();
// placement_by_length.cc: the free ranges ordered by length.
std::unique_ptr<Placement> MakeBestFitPlacement();
std::unique_ptr<Placement> MakeWorstFitPlacement();
// placement_size_classes.cc: power-of-two bins.
std::unique_ptr<Placement> MakeSizeClassesPlacement();

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_INTERNAL_PLACEMENTS_H_
