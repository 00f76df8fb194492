// cpu_backend.cpp — the CPU backend's implementation of what the core needs (core/backend.hpp).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "core/backend.hpp"
#include "core/median.hpp"
#include "cpu/cpu_kernels.hpp"
#include "tilekit/sizes.hpp"

namespace tilekit::cpu {
namespace {

class CpuBackend final : public BackendOps {
 public:
  Status check_context(const Context& ctx, const DeviceInfo** info) const override {
    if (info) *info = nullptr;
    if (ctx.cpu_threads < 0)
      return invalid_argument("context: cpu_threads = " + std::to_string(ctx.cpu_threads) +
                              " must be >= 0");
    return Status::ok();
  }
  Status make_current(const Context&, int* previous) const override {
    *previous = -1;
    return Status::ok();
  }
  void restore_current(int) const override {}
  Status scale_c(const GemmProblem& p, const Context& ctx) const override {
    cpu::scale_c(p, ctx);
    return Status::ok();
  }
  Status zero_fill(void* ptr, size_t bytes, const Context&) const override {
    std::memset(ptr, 0, bytes);
    return Status::ok();
  }
  Status allocate(const Context&, size_t bytes, void** out) const override {
    TILEKIT_RETURN_IF_ERROR(check_host_allocation(bytes, "workspace"));
    *out = std::malloc(bytes);
    if (!*out) return out_of_memory("workspace needs " + human_bytes(static_cast<double>(bytes)));
    return Status::ok();
  }
  void release(const Context&, void* ptr) const override { std::free(ptr); }
  Status copy_bytes(void* dst, const void* src, size_t bytes, const Context&) const override {
    std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  Status time_runs(const Context&, const std::function<Status()>& run, int runs,
                   double* seconds) const override {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      TILEKIT_RETURN_IF_ERROR(run());
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    *seconds = median_of(std::move(times));
    return Status::ok();
  }
  Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                            const Context&) const override {
    cpu::reference_gemm_f64(p, value, magnitude);
    return Status::ok();
  }
  Status measure_fp32_peak(const Context& ctx, double* gflops) const override {
    *gflops = fma_peak_gflops(ctx);
    return Status::ok();
  }
};

}  // namespace

const BackendOps& backend() {
  static const CpuBackend instance;
  return instance;
}

}  // namespace tilekit::cpu

namespace tilekit {
std::string openblas_config_string() { return cpu::openblas_config(); }
}  // namespace tilekit
