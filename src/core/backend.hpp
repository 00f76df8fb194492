// backend.hpp — what the core needs from a backend (internal).
//
// The core (dispatch, verification, roofline) names no backend: each backend implements this
// interface in its own folder (src/cpu/cpu_backend.cpp, src/cuda/common/cuda_backend.cpp) and
// register_all() installs it in the registry. A build without CUDA gets an implementation that
// refuses every CUDA context with a plain reason.
#pragma once

#include <cstddef>
#include <functional>

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"

namespace tilekit {

class BackendOps {
 public:
  virtual ~BackendOps() = default;
  // Ok when `ctx` can run here (CUDA built in, a GPU present, the device index valid). Fills
  // `*info` (may be null) with the device's properties, cached; null on the CPU.
  virtual Status check_context(const Context& ctx, const DeviceInfo** info) const = 0;
  // Makes ctx's device current and returns the caller's in *previous; restore_current undoes it.
  virtual Status make_current(const Context& ctx, int* previous) const = 0;
  virtual void restore_current(int previous) const = 0;
  // C = beta · C over the m × n matrix at p.c (beta = 0 writes zeros without reading C).
  virtual Status scale_c(const GemmProblem& p, const Context& ctx) const = 0;
  // Writes `bytes` zero bytes at `ptr` (the result of an empty dot product), ordered on ctx.
  virtual Status zero_fill(void* ptr, size_t bytes, const Context& ctx) const = 0;
  // Scratch memory for workspaces: host memory on the CPU, device memory on ctx.device.
  virtual Status allocate(const Context& ctx, size_t bytes, void** out) const = 0;
  // Frees an allocation once the work queued on ctx that may use it has finished.
  virtual void release(const Context& ctx, void* ptr) const = 0;
  // Copies `bytes` from `src` to `dst`, both in this backend's memory, ordered on ctx.
  virtual Status copy_bytes(void* dst, const void* src, size_t bytes, const Context& ctx) const = 0;
  // The median of `runs` timings of `run` (which queues its work on ctx), in seconds: between
  // events on ctx's stream on the GPU, by the clock on the CPU (whose work is done on return).
  virtual Status time_runs(const Context& ctx, const std::function<Status()>& run, int runs,
                           double* seconds) const = 0;
  // alpha·op(A)·op(B) + beta·C0 in double and |alpha|·|op(A)|·|op(B)| + |beta|·|C0|, dense
  // row-major m × n arrays in this backend's memory; inputs rounded as p.types.compute says.
  virtual Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                                    const Context& ctx) const = 0;
  // The measured FP32 FMA ceiling (GFLOP/s) of the backend behind ctx.
  virtual Status measure_fp32_peak(const Context& ctx, double* gflops) const = 0;
};

// The installed implementation for `b` (the unavailable one for CUDA in a CPU-only build).
const BackendOps& backend_ops(Backend b);

// Makes ctx's device current for a scope and restores the caller's device when it ends.
class DeviceScope {
 public:
  explicit DeviceScope(const Context& ctx)
      : ops_(backend_ops(ctx.backend)), status_(ops_.make_current(ctx, &previous_)) {}
  ~DeviceScope() {
    if (status_) ops_.restore_current(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  const Status& status() const { return status_; }

 private:
  const BackendOps& ops_;
  int previous_ = -1;
  Status status_;
};

// Ok when ctx can run (backend_ops(ctx.backend).check_context).
inline Status check_context(const Context& ctx, const DeviceInfo** info) {
  return backend_ops(ctx.backend).check_context(ctx, info);
}

}  // namespace tilekit
