// dependent_launch.cuh — programmatic dependent launch (sm_90+, griddepcontrol).
//
// A kernel that consumes what the kernel before it on the stream wrote is normally scheduled
// only once that kernel has ended, so the GPU idles for a launch between them. Launched as a
// programmatic dependent, it may be scheduled once every block of the first kernel has allowed
// it (or ended), and it waits on the device, before reading, for the first grid's completion and
// memory. Step 10 launches its split-K sum so (what that gains: docs/ladder.md, step 10).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/per_device_cache.hpp"

namespace tilekit::cuda {

// In the first kernel: its dependent grid may be scheduled from now on. Scheduling is all it
// allows: the dependent's wait below still waits for this whole grid and its writes.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// In the dependent kernel, before it reads what the previous grid wrote (returns at once when
// the kernel was launched the ordinary way).
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether kKernel, as loaded on the current device (`device`), holds the wait above: its code was
// compiled for sm_90 or later. PTX of an older target, compiled on load for a Hopper GPU, would
// lack the wait and read too early, so such a kernel is launched the ordinary way. Asked once
// per kernel and device (the launch is timed).
template <auto kKernel>
Status kernel_waits_for_previous_grid(int device, bool* waits) {
  static PerDeviceCache ptx_version;
  int version = 0;
  TILEKIT_RETURN_IF_ERROR(ptx_version.get(device, &version, [](int* out) {
    cudaFuncAttributes attributes{};
    TILEKIT_CUDA_TRY(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kKernel)));
    *out = attributes.ptxVersion;
    return Status::ok();
  }));
  *waits = version >= 90;
  return Status::ok();
}

// kKernel<<<grid, block, smem_bytes, stream>>>(args...), as a programmatic dependent of the work
// before it on `stream` when the kernel holds wait_for_previous_grid (an ordinary launch
// otherwise). A failed launch is reported as "launch of `name`" (cudaLaunchKernelEx returns the
// error itself).
template <auto kKernel, typename... Args>
Status launch_as_dependent(const char* name, dim3 grid, dim3 block, size_t smem_bytes,
                           cudaStream_t stream, int device, Args... args) {
  bool waits = false;
  TILEKIT_RETURN_IF_ERROR(kernel_waits_for_previous_grid<kKernel>(device, &waits));
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = waits ? 1 : 0;
  const cudaError_t err = cudaLaunchKernelEx(&config, kKernel, args...);  // converts the args
  if (err != cudaSuccess)
    return error_status(err, (std::string("launch of ") + name).c_str(), __FILE__, __LINE__);
  return Status::ok();
}

}  // namespace tilekit::cuda
