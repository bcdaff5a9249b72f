// realm_shadow/ingest/internal/first_wins.h - how the catalogs of Legion
// Spy's lines (legion_spy.h, legion_spy_shapes.h) keep what several lines
// or logs say of one key: the first value wins, and a different one later
// is counted (a log of another run, or Legion saying two things), never
// kept.
//
// Layer ingest, internal.  Works on any map with try_emplace (the catalogs'
// absl::flat_hash_map); values need operator==.
#ifndef REALM_SHADOW_INGEST_INTERNAL_FIRST_WINS_H_
#define REALM_SHADOW_INGEST_INTERNAL_FIRST_WINS_H_

#include <cstdint>

#include "realm_shadow/layers.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// Inserts key -> value unless the key is there; 1 when it was there with a
// different value.
template <typename Map, typename Key, typename Value>
uint64_t KeepFirst(Map& map, const Key& key, const Value& value) {
  auto [it, inserted] = map.try_emplace(key, value);
  return !inserted && !(it->second == value) ? 1 : 0;
}

// Adds every entry of `theirs` that `mine` lacks; returns how many
// disagreed with what `mine` had.
template <typename Map>
uint64_t MergeFirst(Map& mine, const Map& theirs) {
  uint64_t conflicts = 0;
  for (const auto& [key, value] : theirs)
    conflicts += KeepFirst(mine, key, value);
  return conflicts;
}

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_INTERNAL_FIRST_WINS_H_
