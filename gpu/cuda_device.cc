#include "gpu/cuda_device.h"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace realm_shadow {
namespace gpu {

std::string CudaErrorText(int error) {
  const cudaError_t e = static_cast<cudaError_t>(error);
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

bool CudaCallFailed(int status, const std::string& call, std::string* error) {
  if (status == cudaSuccess) return false;
  (void)cudaGetLastError();
  if (error) *error = call + " failed: " + CudaErrorText(status);
  return true;
}

int CudaDeviceCount(std::string* why) {
  int count = 0;
  if (CudaCallFailed(cudaGetDeviceCount(&count), "cudaGetDeviceCount", why))
    return 0;
  if (count <= 0) {
    if (why) *why = "cudaGetDeviceCount reports 0 devices";
    return 0;
  }
  return count;
}

std::string CudaDeviceDescription() {
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  cudaDeviceProp prop;
  if (status == cudaSuccess) status = cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess) return CudaErrorText(status);
  char text[384];
  std::snprintf(text, sizeof text, "%s, sm_%d%d, %.1f GiB", prop.name,
                prop.major, prop.minor,
                static_cast<double>(prop.totalGlobalMem) / (1ull << 30));
  return text;
}

bool CudaMemoryInfo(uint64_t* free_bytes, uint64_t* total_bytes,
                    std::string* error) {
  size_t free_now = 0, total = 0;
  const cudaError_t status = cudaMemGetInfo(&free_now, &total);
  if (status != cudaSuccess) {
    if (error) *error = "cudaMemGetInfo failed: " + CudaErrorText(status);
    return false;
  }
  *free_bytes = free_now;
  *total_bytes = total;
  return true;
}

bool CudaSynchronize(std::string* error) {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    if (error) *error = "cudaDeviceSynchronize failed: " + CudaErrorText(status);
    return false;
  }
  return true;
}

}  // namespace gpu
}  // namespace realm_shadow
