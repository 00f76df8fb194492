// backend_unavailable.cpp — the CUDA backend slot of a build without CUDA: every call refuses
// with a plain reason instead of crashing.
#include "core/backend.hpp"

namespace tilekit {
namespace {

Status no_cuda(const char* what) {
  return not_supported(std::string(what) +
                       ": tilekit was built without CUDA (configure with -DTILEKIT_CUDA=ON)");
}

class UnavailableCuda final : public BackendOps {
 public:
  Status check_context(const Context&, const DeviceInfo** info) const override {
    if (info) *info = nullptr;
    return no_cuda("context");
  }
  Status make_current(const Context&, int* previous) const override {
    *previous = -1;
    return no_cuda("context");
  }
  void restore_current(int) const override {}
  Status scale_c(const GemmProblem&, const Context&) const override { return no_cuda("gemm"); }
  Status zero_fill(void*, size_t, const Context&) const override { return no_cuda("zero_fill"); }
  Status allocate(const Context&, size_t, void** out) const override {
    *out = nullptr;
    return no_cuda("workspace");
  }
  void release(const Context&, void*) const override {}
  Status copy_bytes(void*, const void*, size_t, const Context&) const override {
    return no_cuda("copy");
  }
  Status time_runs(const Context&, const std::function<Status()>&, int, double*) const override {
    return no_cuda("timing");
  }
  Status reference_gemm_f64(const GemmProblem&, double*, double*, const Context&) const override {
    return no_cuda("reference GEMM");
  }
  Status measure_fp32_peak(const Context&, double*) const override {
    return no_cuda("FP32 peak on the GPU");
  }
};

}  // namespace

const BackendOps& unavailable_cuda_backend() {
  static const UnavailableCuda instance;
  return instance;
}

}  // namespace tilekit
