// gpu/cuda_device.h - the few CUDA runtime facts the GPU
// memories, their tests and their benchmark need, without CUDA headers.
//
// Every function answers instead of aborting: a machine with no GPU, no
// driver, or a driver older than the runtime gets false/0 and a one-line
// reason, so tests can skip and tools can say why.
#ifndef REALM_SHADOW_GPU_CUDA_DEVICE_H_
#define REALM_SHADOW_GPU_CUDA_DEVICE_H_

#include <cstdint>
#include <string>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

// The number of usable CUDA devices; 0 with *why set when there is none or
// cudaGetDeviceCount fails (no driver: "cudaErrorInsufficientDriver ...").
int CudaDeviceCount(std::string* why);

// "NVIDIA H200, sm_90, 139.8 GiB" for the current device, or the error.
std::string CudaDeviceDescription();

// cudaMemGetInfo for the current device.
bool CudaMemoryInfo(uint64_t* free_bytes, uint64_t* total_bytes,
                    std::string* error);

// cudaDeviceSynchronize; false with the first pending error.
bool CudaSynchronize(std::string* error);

// "cudaErrorMemoryAllocation (out of memory)" for a cudaError_t value.
std::string CudaErrorText(int error);

// After a CUDA runtime call that returned `status`: false when it
// succeeded.  Otherwise clears the error CUDA keeps for cudaGetLastError
// (so the next check starts clean), sets *error (when not null) to
// "<call> failed: <CudaErrorText>", and answers true.
bool CudaCallFailed(int status, const std::string& call, std::string* error);

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_CUDA_DEVICE_H_
