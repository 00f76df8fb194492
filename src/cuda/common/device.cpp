// device.cpp — device queries, device memory and context checks (CUDA builds).
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

#include "cuda/common/cuda_check.hpp"
#include "tilekit/device.hpp"
#include "tilekit/sizes.hpp"

namespace tilekit {

namespace cuda {
Status error_status(cudaError_t err, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
      msg += "; the CUDA context is now unusable: GPU work in this process must stop";
      break;
    default:
      break;
  }
  return Status(StatusCode::kCudaError, msg, static_cast<int>(err));
}
}  // namespace cuda

bool built_with_cuda() { return true; }

int cuda_device_count() {
  int count = 0;
  // No driver or no device: report none rather than fail, and clear the error it leaves.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

Status query_device(int index, DeviceInfo* out) {
  const int count = cuda_device_count();
  if (index < 0 || index >= count)
    return invalid_argument("device index " + std::to_string(index) + " is out of range (" +
                            std::to_string(count) + " CUDA device(s) present)");
  DeviceInfo d;
  d.index = index;
  char name[256] = {};
  cudaDeviceProp prop{};
  TILEKIT_CUDA_TRY(cudaGetDeviceProperties(&prop, index));
  std::copy(std::begin(prop.name), std::end(prop.name), name);
  d.name = name;
  d.global_memory_bytes = prop.totalGlobalMem;
  d.smem_per_block_bytes = prop.sharedMemPerBlock;
  d.reserved_smem_per_block_bytes = prop.reservedSharedMemPerBlock;
  d.regs_per_block = prop.regsPerBlock;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  auto attr = [&](cudaDeviceAttr a, int* v) { return cudaDeviceGetAttribute(v, a, index); };
  int smem_sm = 0, smem_optin = 0;
  TILEKIT_CUDA_TRY(attr(cudaDevAttrComputeCapabilityMajor, &d.cc_major));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrComputeCapabilityMinor, &d.cc_minor));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMultiProcessorCount, &d.sm_count));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrClockRate, &d.sm_clock_khz));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMemoryClockRate, &d.memory_clock_khz));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrGlobalMemoryBusWidth, &d.memory_bus_width_bits));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrL2CacheSize, &d.l2_cache_bytes));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMaxThreadsPerMultiProcessor, &d.max_threads_per_sm));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMaxBlocksPerMultiprocessor, &d.max_blocks_per_sm));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMaxRegistersPerMultiprocessor, &d.regs_per_sm));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, &smem_sm));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, &smem_optin));
  TILEKIT_CUDA_TRY(attr(cudaDevAttrWarpSize, &d.warp_size));
  d.smem_per_sm_bytes = static_cast<size_t>(smem_sm);
  d.smem_per_block_optin_bytes = static_cast<size_t>(smem_optin);
  TILEKIT_CUDA_TRY(cudaDriverGetVersion(&d.driver_version));
  TILEKIT_CUDA_TRY(cudaRuntimeGetVersion(&d.runtime_version));
  *out = d;
  return Status::ok();
}

namespace cuda {

Status check_device_context(const Context& ctx, const DeviceInfo** info) {
  if (info) *info = nullptr;
  // Properties are cached per device: they do not change while the process runs.
  static std::mutex mutex;
  static std::map<int, DeviceInfo> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(ctx.device);
  if (it == cache.end()) {
    const int count = cuda_device_count();
    if (count == 0)
      return not_supported("context: the CUDA backend needs a GPU and none is present");
    if (ctx.device < 0 || ctx.device >= count)
      return invalid_argument("context: device index " + std::to_string(ctx.device) +
                              " is out of range (" + std::to_string(count) +
                              " CUDA device(s) present)");
    DeviceInfo d;
    TILEKIT_RETURN_IF_ERROR(query_device(ctx.device, &d));
    it = cache.emplace(ctx.device, std::move(d)).first;
  }
  if (info) *info = &it->second;  // std::map nodes never move: the pointer stays valid
  return Status::ok();
}

}  // namespace cuda

std::string cuda_runtime_version_string() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string cuda_driver_version_string() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

Status device_malloc(void** ptr, size_t bytes, const char* what) {
  *ptr = nullptr;
  if (bytes == 0) return Status::ok();
  const cudaError_t err = cudaMalloc(ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // out of memory is not sticky: clear it for later launch checks
    size_t free_bytes = 0, total = 0;
    const bool known = cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
    return Status(StatusCode::kOutOfMemory,
                  std::string("cudaMalloc: ") + what + " needs " +
                      human_bytes(static_cast<double>(bytes)) + " of device memory" +
                      (known ? ", " + human_bytes(static_cast<double>(free_bytes)) + " free"
                             : std::string()),
                  static_cast<int>(err));
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return cuda::error_status(err, (std::string("cudaMalloc of ") + std::to_string(bytes) +
                                    " bytes for " + what).c_str(),
                              __FILE__, __LINE__);
  }
  return Status::ok();
}

Status device_malloc_on(int device, void** ptr, size_t bytes, const char* what) {
  *ptr = nullptr;
  int previous = 0;
  TILEKIT_CUDA_TRY(cudaGetDevice(&previous));
  if (previous != device) TILEKIT_CUDA_TRY(cudaSetDevice(device));
  Status s = device_malloc(ptr, bytes, what);
  if (previous != device) {
    const cudaError_t restored = cudaSetDevice(previous);
    if (s && restored != cudaSuccess) {
      (void)device_free(*ptr);
      *ptr = nullptr;
      TILEKIT_CUDA_TRY(restored);
    }
  }
  return s;
}

Status check_device_allocation(int device, size_t bytes, const std::string& what) {
  if (bytes == 0) return Status::ok();
  int current = -1;
  TILEKIT_CUDA_TRY(cudaGetDevice(&current));
  if (current != device) TILEKIT_CUDA_TRY(cudaSetDevice(device));
  size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (current != device) (void)cudaSetDevice(current);  // the query must not move the caller
  if (err != cudaSuccess)
    return cuda::error_status(err, "cudaMemGetInfo", __FILE__, __LINE__);
  if (bytes <= free_bytes) return Status::ok();
  return out_of_memory(what + " needs " + human_bytes(static_cast<double>(bytes)) +
                       " of GPU memory; GPU " + std::to_string(device) + " has " +
                       human_bytes(static_cast<double>(free_bytes)) + " free of " +
                       human_bytes(static_cast<double>(total_bytes)));
}

Status device_free(void* ptr) {
  if (ptr) TILEKIT_CUDA_TRY(cudaFree(ptr));
  return Status::ok();
}

Status copy_host_to_device(void* dst, const void* src, size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return Status::ok();
  TILEKIT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  TILEKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status copy_device_to_host(void* dst, const void* src, size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return Status::ok();
  TILEKIT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  TILEKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status device_memset(void* ptr, int value, size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return Status::ok();
  TILEKIT_CUDA_TRY(cudaMemsetAsync(ptr, value, bytes, stream));
  return Status::ok();
}

Status device_synchronize(const Context& ctx) {
  if (ctx.backend == Backend::kCpu) return Status::ok();
  TILEKIT_CUDA_TRY(cudaStreamSynchronize(ctx.stream));
  return Status::ok();
}

}  // namespace tilekit
