// Attaching an identity is one journal append: it takes no lock and copies
// nothing on the caller's thread (Legion calls it where it creates an
// instance).  It used to look the identity up under the table's mutex and
// copy it whole, to learn its kind.  This binary counts the heap
// allocations made while attaching, which a copy of the identity's strings
// cannot avoid.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/identity_table.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace realm_shadow {
namespace {

TEST(AttachIdentity, AllocatesNothingOnTheCallersThread) {
  ResetTrackerForTesting();
  realm_shadow_memory* m = RegisterMemory(
      0x1e00000000000000ull, MemoryKind::kSystem, 1 << 20, "sys",
      REALM_SHADOW_CONCURRENT, 1 << 14);
  Identity identity;
  identity.kind = AllocationKind::kRegionInstance;
  for (int i = 0; i < 20; ++i)
    identity.attributes.emplace_back("key" + std::to_string(i),
                                     std::string(100, 'a' + i % 26));
  const uint32_t id = InternIdentity(identity);
  realm_shadow_allocated(m, 1, 0, 64, 64);
  counting = true;
  for (int i = 0; i < 1000; ++i) realm_shadow_attach_identity(m, 1, id, i % 2);
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
  const Snapshot s = TakeSnapshot(m);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].kind, AllocationKind::kRegionInstance);
  EXPECT_EQ(s.allocations[0].identity, id);
  ResetTrackerForTesting();
}

}  // namespace
}  // namespace realm_shadow
