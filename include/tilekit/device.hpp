// device.hpp — execution context (backend, device, stream), device queries and device memory.
//
// Host-only: no CUDA header is needed to use tilekit. A stream is passed as the opaque
// `cudaStream_t` it is (a pointer to CUstream_st), declared here without <cuda_runtime.h>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilekit/status.hpp"

struct CUstream_st;

namespace tilekit {

enum class Backend { kCpu, kCuda };
inline const char* backend_name(Backend b) { return b == Backend::kCpu ? "cpu" : "cuda"; }

class WorkspacePool;  // scratch memory kernels ask for (src/core/workspace.hpp)

// Where a call runs. On the CUDA backend all matrix pointers are device pointers on `device`
// and work is enqueued on `stream` (nullptr = the legacy default stream); calls do not
// synchronize unless they say so, make `device` current while they run and restore the
// caller's current device before they return.
//
// A context owns a workspace pool (grown on demand, never shrunk, freed with the last copy of
// the context): reuse one context for many calls so that kernels needing scratch memory
// allocate only once. Like a cuBLAS handle, one context must not be used by two host threads
// at once; give each thread its own.
struct Context {
  Backend backend = Backend::kCpu;
  int device = 0;
  CUstream_st* stream = nullptr;
  int cpu_threads = 0;  // CPU backend: OpenMP threads, 0 = the OpenMP default

  static Context cpu(int threads = 0) { return Context{Backend::kCpu, 0, nullptr, threads, {}}; }
  static Context cuda(int device = 0, CUstream_st* stream = nullptr) {
    return Context{Backend::kCuda, device, stream, 0, {}};
  }
  // The pool, created on first use and shared by the copies made after that.
  WorkspacePool& workspace_pool() const;

  mutable std::shared_ptr<WorkspacePool> pool_;  // internal: use workspace_pool()

  // CUDA: kernels that launch one block per SM and walk the tiles from there (the sm90
  // persistent kernels) launch at most this many blocks, leaving the other SMs to work that runs
  // beside them (the multi-GPU GEMM's NCCL transfers); 0 = every SM. Last, so that the
  // positional initializers above keep their meaning.
  int sm_limit = 0;
};

// True when this build of tilekit includes the CUDA backend.
bool built_with_cuda();

// Makes ctx's device the calling thread's current CUDA device and leaves it so: for programs
// that allocate with DeviceBuffer::allocate or launch their own work beside tilekit's (the CLI
// does, for --device). tilekit's own calls need none of it: each makes ctx's device current and
// restores the caller's before it returns. A no-op on the CPU backend.
Status make_device_current(const Context& ctx);

// Number of usable CUDA devices; 0 with no GPU, no driver, or a build without CUDA.
int cuda_device_count();

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;      // cudaDevAttrClockRate (maximum boost clock)
  int memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int memory_bus_width_bits = 0;
  size_t global_memory_bytes = 0;
  int l2_cache_bytes = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  size_t smem_per_sm_bytes = 0;
  size_t smem_per_block_bytes = 0;        // without opt-in (48 KB)
  size_t smem_per_block_optin_bytes = 0;
  size_t reserved_smem_per_block_bytes = 0;
  int warp_size = 32;
  int driver_version = 0, runtime_version = 0;

  int sm_version() const { return cc_major * 10 + cc_minor; }  // 90 for sm_90
  // Theoretical DRAM bandwidth in GB/s from the memory clock and bus width (DDR: ×2).
  double peak_dram_gbps() const {
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0) / 1e9;
  }
};

Status query_device(int index, DeviceInfo* out);

struct CpuInfo {
  std::string model;
  int logical_cores = 0;
  int omp_max_threads = 0;
};
CpuInfo query_cpu();

// Version strings for reproducibility records ("13.0", "13.1.0"); "none" without CUDA.
std::string cuda_runtime_version_string();
std::string cuda_driver_version_string();
std::string cublas_version_string();
std::string openblas_config_string();

// ---- device memory (CUDA backend). Without CUDA these return kNotSupported. ----
// Allocates on the current device; device_malloc_on allocates on `device` and leaves the
// caller's current device as it was. A failure names `what` and its size.
Status device_malloc(void** ptr, size_t bytes, const char* what);
Status device_malloc_on(int device, void** ptr, size_t bytes, const char* what);
Status device_free(void* ptr);
Status copy_host_to_device(void* dst, const void* src, size_t bytes, CUstream_st* stream = nullptr);
Status copy_device_to_host(void* dst, const void* src, size_t bytes, CUstream_st* stream = nullptr);
Status device_memset(void* ptr, int value, size_t bytes, CUstream_st* stream = nullptr);
Status device_synchronize(const Context& ctx);
// Ok when `bytes` of memory are free on CUDA device `device` now; otherwise kOutOfMemory naming
// `what` (the device analogue of check_host_allocation in sizes.hpp). Checked before
// allocating, so a request that cannot fit fails at once with its size.
Status check_device_allocation(int device, size_t bytes, const std::string& what);

// An owning device allocation of `count` elements of T; freed on destruction.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) {
    o.ptr_ = nullptr;
    o.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = o.ptr_;
      count_ = o.count_;
      o.ptr_ = nullptr;
      o.count_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  // On the current device, or on `device` (the caller's current device left as it was).
  Status allocate(size_t count, const char* what) { return allocate_on(-1, count, what); }
  Status allocate_on(int device, size_t count, const char* what) {
    reset();
    void* p = nullptr;
    if (count > static_cast<size_t>(INT64_MAX) / sizeof(T))
      return out_of_memory(std::string(what) + ": " + std::to_string(count) +
                           " elements overflow a 64-bit byte size");
    const size_t bytes = count * sizeof(T);
    TILEKIT_RETURN_IF_ERROR(device < 0 ? device_malloc(&p, bytes, what)
                                       : device_malloc_on(device, &p, bytes, what));
    ptr_ = static_cast<T*>(p);
    count_ = count;
    return Status::ok();
  }
  Status upload(const T* host, size_t count, CUstream_st* stream = nullptr) {
    if (count > count_) return invalid_argument("DeviceBuffer::upload: count exceeds allocation");
    return copy_host_to_device(ptr_, host, count * sizeof(T), stream);
  }
  Status download(T* host, size_t count, CUstream_st* stream = nullptr) const {
    if (count > count_) return invalid_argument("DeviceBuffer::download: count exceeds allocation");
    return copy_device_to_host(host, ptr_, count * sizeof(T), stream);
  }
  void reset() {
    if (ptr_) device_free(ptr_).ignore();  // freeing cannot be reported from a destructor
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace tilekit
