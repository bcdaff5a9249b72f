// tests/core/memory_kind_test.cc - the one table of Realm's memory kinds
// (realm_shadow/memory_kinds.h) as core reads it (core/memory_kind.h) and as
// Realm's sites read it (realm_sites.h): every Realm kind round-trips, and
// the places that used to spell the table each their own way agree.
#include "realm_shadow/core/memory_kind.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

// Realm's list (realm_c.h) first, as Realm has it: realm_sites.h then
// compiles its enum mapping and its check of the table's numbers.
#include "tests/common/realm_c_memory_kinds.h"
#include "realm_shadow/realm_sites.h"

namespace realm_shadow {
namespace {

// Realm's names by number, from realm_c.h's list: the independent oracle.
const char* const kRealmKinds[] = {
#define NAME_OF(name, desc) #name,
    REALM_MEMORY_KINDS(NAME_OF)
#undef NAME_OF
};

// The log reader (ParseMemoryKind) and Realm's sites
// (realm_shadow_kind_from_realm_name) record every Realm kind as the same
// kind of ours.  They disagreed on HDF_MEM (other against disk).
TEST(MemoryKindTable, LogReaderAndRealmSitesAgreeOnEveryRealmKind) {
  for (const char* name : kRealmKinds)
    EXPECT_EQ(static_cast<int>(ParseMemoryKind(name)),
              static_cast<int>(realm_shadow_kind_from_realm_name(name)))
        << name;
}

// HDF_MEM and FILE_MEM are disk memories, whoever reads the name.
TEST(MemoryKindTable, FileBackedMemoriesAreDisk) {
  for (const char* name : {"DISK_MEM", "HDF_MEM", "FILE_MEM", "hdf_mem"}) {
    EXPECT_EQ(ParseMemoryKind(name), MemoryKind::kDisk) << name;
  }
  EXPECT_EQ(realm_shadow_kind_from_realm_name("HDF_MEM"), REALM_SHADOW_MEM_DISK);
}

// name -> kind -> name, over every Realm kind: Realm's name parses to a
// kind, the kind's name of ours parses back to it, and the kind's own Realm
// kind (the row that names it) is the same kind.  Core and the sites read
// the same kind for every name, in any case core reads.
TEST(MemoryKindTable, EveryRealmNameRoundTripsThroughItsKind) {
  for (const char* realm_name : kRealmKinds) {
    const MemoryKind kind = ParseMemoryKind(realm_name);
    const std::string ours = MemoryKindName(kind);
    EXPECT_EQ(ParseMemoryKind(ours), kind) << realm_name << " -> " << ours;
    std::string lower = realm_name;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    EXPECT_EQ(ParseMemoryKind(lower), kind) << lower;
  }
  // Each of our kinds names itself, once, and is the kind of its name.
  std::set<std::string> names;
  for (int v = 0; v <= static_cast<int>(MemoryKind::kGlobal); ++v) {
    const MemoryKind kind = static_cast<MemoryKind>(v);
    EXPECT_TRUE(names.insert(MemoryKindName(kind)).second) << MemoryKindName(kind);
    EXPECT_EQ(ParseMemoryKind(MemoryKindName(kind)), kind) << v;
  }
  EXPECT_STREQ(MemoryKindName(static_cast<MemoryKind>(200)), "other");
  for (const char* unknown : {"", "SYSTEM_ME", "SYSTEM_MEMX", "gpu", "hdf"})
    EXPECT_EQ(ParseMemoryKind(unknown), MemoryKind::kOther) << unknown;
}

// number -> name -> number, over every Realm kind, for core (the log
// reader's "Memory M C 2") and the sites (realm_shadow_realm_kind_name, a
// memory's name in dumps) alike; past Realm's kinds there is no name.
TEST(MemoryKindTable, EveryRealmNumberRoundTripsThroughItsName) {
  constexpr int n = sizeof kRealmKinds / sizeof kRealmKinds[0];
  for (int number = 0; number < n; ++number) {
    const std::string name = RealmMemoryKindName(number);
    EXPECT_EQ(name, kRealmKinds[number]) << number;
    ASSERT_NE(realm_shadow_realm_kind_name(number), nullptr) << number;
    EXPECT_EQ(name, realm_shadow_realm_kind_name(number)) << number;
    int back = -1;
    for (int k = 0; k < n; ++k)
      if (name == kRealmKinds[k]) back = k;
    EXPECT_EQ(back, number) << name;
    // The sites map the number as they map the name.
    EXPECT_EQ(realm_shadow_kind_from_realm(number),
              realm_shadow_kind_from_realm_name(name.c_str())) << name;
  }
  EXPECT_STREQ(RealmMemoryKindName(n), "");
  EXPECT_STREQ(RealmMemoryKindName(UINT64_MAX), "");
  EXPECT_EQ(realm_shadow_realm_kind_name(n), nullptr);
  EXPECT_EQ(realm_shadow_realm_kind_name(-1), nullptr);
}

// The other decisions memory_kinds.h takes once: the caches and NO_MEMKIND
// are other, GLOBAL_MEM global, wherever the name is read.
TEST(MemoryKindTable, CachesAndNoKindAreOther) {
  const std::pair<const char*, MemoryKind> folded[] = {
      {"LEVEL1_CACHE", MemoryKind::kOther}, {"LEVEL2_CACHE", MemoryKind::kOther},
      {"LEVEL3_CACHE", MemoryKind::kOther}, {"NO_MEMKIND", MemoryKind::kOther},
      {"GLOBAL_MEM", MemoryKind::kGlobal}};
  for (const auto& [name, kind] : folded) {
    EXPECT_EQ(ParseMemoryKind(name), kind) << name;
    EXPECT_EQ(static_cast<int>(realm_shadow_kind_from_realm_name(name)),
              static_cast<int>(kind)) << name;
  }
}

}  // namespace
}  // namespace realm_shadow
