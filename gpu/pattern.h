// gpu/pattern.h - write and check a per-instance byte pattern
// in device-visible memory, so that a shadowed range is shown to be real.
//
// Byte i of the range owned by an instance holds PatternByte(seed, i), where
// the seed is the instance id.  Filling every live allocation and then
// checking every one finds any two allocations that share a byte (the one
// filled later overwrites the other's pattern) and any range the device
// cannot write or read: the check the GPU tests rely on.
//
// Both calls run one grid-stride kernel on the default stream and wait for
// it; a 256 MiB range takes well under a millisecond on an H200.  They
// accept device pointers and the device pointers of mapped host memory.
#ifndef REALM_SHADOW_GPU_PATTERN_H_
#define REALM_SHADOW_GPU_PATTERN_H_

#include <cstdint>
#include <string>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

#if defined(__CUDACC__)
#define REALM_SHADOW_HOST_DEVICE __host__ __device__
#else
#define REALM_SHADOW_HOST_DEVICE
#endif

// A splitmix64 step of (seed, index / 8), one byte of it: cheap, different
// for neighbouring instances, and not constant along a range.
REALM_SHADOW_HOST_DEVICE inline uint8_t PatternByte(uint64_t seed,
                                                    uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + (index >> 3) + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<uint8_t>(z >> ((index & 7) * 8));
}

// Writes the pattern over [device_pointer, device_pointer + bytes).
bool FillPattern(void* device_pointer, uint64_t bytes, uint64_t seed,
                 std::string* error);

// Counts the bytes of the range that differ from the pattern.
bool CountPatternMismatches(const void* device_pointer, uint64_t bytes,
                            uint64_t seed, uint64_t* mismatches,
                            std::string* error);

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_PATTERN_H_
