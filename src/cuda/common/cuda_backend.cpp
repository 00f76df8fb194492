// cuda_backend.cpp — the CUDA backend's implementation of what the core needs (core/backend.hpp).
#include <cuda_runtime_api.h>

#include <vector>

#include "core/backend.hpp"
#include "core/median.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/cuda_kernels.hpp"

namespace tilekit::cuda {
namespace {

// Two events, destroyed with their holder (whatever path leaves the timing).
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  Status create() {
    TILEKIT_CUDA_TRY(cudaEventCreate(&start));
    TILEKIT_CUDA_TRY(cudaEventCreate(&stop));
    return Status::ok();
  }
  ~EventPair() {
    if (start) (void)cudaEventDestroy(start);  // nothing to report from a destructor
    if (stop) (void)cudaEventDestroy(stop);
  }
};

class CudaBackend final : public BackendOps {
 public:
  Status check_context(const Context& ctx, const DeviceInfo** info) const override {
    return check_device_context(ctx, info);
  }
  Status make_current(const Context& ctx, int* previous) const override {
    TILEKIT_CUDA_TRY(cudaGetDevice(previous));
    if (*previous != ctx.device) TILEKIT_CUDA_TRY(cudaSetDevice(ctx.device));
    return Status::ok();
  }
  void restore_current(int previous) const override {
    int current = -1;
    // Restoring cannot fail for a device that was current a moment ago; nothing to report.
    if (cudaGetDevice(&current) == cudaSuccess && current != previous) (void)cudaSetDevice(previous);
  }
  Status scale_c(const GemmProblem& p, const Context& ctx) const override {
    return cuda::scale_c(p, ctx);
  }
  Status zero_fill(void* ptr, size_t bytes, const Context& ctx) const override {
    TILEKIT_CUDA_TRY(cudaMemsetAsync(ptr, 0, bytes, ctx.stream));
    return Status::ok();
  }
  Status allocate(const Context& ctx, size_t bytes, void** out) const override {
    return device_malloc_on(ctx.device, out, bytes, "workspace");
  }
  void release(const Context& ctx, void* ptr) const override {
    // The work queued on ctx may still read the buffer: wait for it, then free. Errors here
    // (a context already torn down at exit) cannot be reported and free nothing twice.
    int previous = 0;
    if (cudaGetDevice(&previous) != cudaSuccess) return;
    if (cudaSetDevice(ctx.device) == cudaSuccess) {
      (void)cudaStreamSynchronize(ctx.stream);
      (void)cudaFree(ptr);
    }
    (void)cudaSetDevice(previous);
  }
  Status copy_bytes(void* dst, const void* src, size_t bytes, const Context& ctx) const override {
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    return Status::ok();
  }
  Status time_runs(const Context& ctx, const std::function<Status()>& run, int runs,
                   double* seconds) const override {
    EventPair events;
    TILEKIT_RETURN_IF_ERROR(events.create());
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
      TILEKIT_CUDA_TRY(cudaEventRecord(events.start, ctx.stream));
      TILEKIT_RETURN_IF_ERROR(run());
      TILEKIT_CUDA_TRY(cudaEventRecord(events.stop, ctx.stream));
      TILEKIT_CUDA_TRY(cudaEventSynchronize(events.stop));
      float ms = 0;
      TILEKIT_CUDA_TRY(cudaEventElapsedTime(&ms, events.start, events.stop));
      times.push_back(ms * 1e-3);
    }
    *seconds = median_of(std::move(times));
    return Status::ok();
  }
  Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                            const Context& ctx) const override {
    return cuda::reference_gemm_f64(p, value, magnitude, ctx);
  }
  Status measure_fp32_peak(const Context& ctx, double* gflops) const override {
    return cuda::measure_fp32_peak(ctx, gflops);
  }
};

}  // namespace

const BackendOps& backend() {
  static const CudaBackend instance;
  return instance;
}

}  // namespace tilekit::cuda
