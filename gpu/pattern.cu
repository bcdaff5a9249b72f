#include "gpu/pattern.h"

#include <cuda_runtime.h>

#include "gpu/cuda_device.h"

namespace realm_shadow {
namespace gpu {
namespace {

// 256 threads x up to 1024 blocks: enough to keep an H200's 132 SMs busy on
// a large range, and no more launches than one per call on a small one.
constexpr unsigned kThreads = 256;
constexpr uint64_t kMaxBlocks = 1024;

__global__ void FillKernel(uint8_t* bytes, uint64_t count, uint64_t seed) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    bytes[i] = PatternByte(seed, i);
  }
}

__global__ void CheckKernel(const uint8_t* bytes, uint64_t count,
                            uint64_t seed, unsigned long long* mismatches) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  unsigned long long local = 0;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    local += bytes[i] != PatternByte(seed, i);
  }
  if (local) atomicAdd(mismatches, local);
}

unsigned BlocksFor(uint64_t bytes) {
  uint64_t blocks = (bytes + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned>(blocks == 0 ? 1 : blocks);
}

bool Fail(cudaError_t status, const char* what, std::string* error) {
  (void)cudaGetLastError();
  if (error) *error = std::string(what) + ": " + CudaErrorText(status);
  return false;
}

}  // namespace

bool FillPattern(void* device_pointer, uint64_t bytes, uint64_t seed,
                 std::string* error) {
  if (bytes == 0) return true;
  if (device_pointer == nullptr) {
    if (error) *error = "FillPattern: null pointer";
    return false;
  }
  FillKernel<<<BlocksFor(bytes), kThreads>>>(
      static_cast<uint8_t*>(device_pointer), bytes, seed);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return Fail(status, "fill kernel launch", error);
  status = cudaDeviceSynchronize();
  if (status != cudaSuccess) return Fail(status, "fill kernel", error);
  return true;
}

bool CountPatternMismatches(const void* device_pointer, uint64_t bytes,
                            uint64_t seed, uint64_t* mismatches,
                            std::string* error) {
  *mismatches = 0;
  if (bytes == 0) return true;
  if (device_pointer == nullptr) {
    if (error) *error = "CountPatternMismatches: null pointer";
    return false;
  }
  // A mapped host counter: the kernel adds into it, the host reads it after
  // the synchronize, and no cudaMemcpy is needed.
  unsigned long long* counter = nullptr;
  cudaError_t status = cudaHostAlloc(reinterpret_cast<void**>(&counter),
                                     sizeof *counter, cudaHostAllocMapped);
  if (status != cudaSuccess) return Fail(status, "cudaHostAlloc", error);
  *counter = 0;
  unsigned long long* device_counter = nullptr;
  status = cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_counter),
                                    counter, 0);
  if (status == cudaSuccess) {
    CheckKernel<<<BlocksFor(bytes), kThreads>>>(
        static_cast<const uint8_t*>(device_pointer), bytes, seed,
        device_counter);
    status = cudaGetLastError();
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
  }
  const unsigned long long found = *counter;
  cudaFreeHost(counter);
  if (status != cudaSuccess) return Fail(status, "check kernel", error);
  *mismatches = found;
  return true;
}

}  // namespace gpu
}  // namespace realm_shadow
