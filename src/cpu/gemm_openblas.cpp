// gemm_openblas.cpp — OpenBLAS's cblas_sgemm (OpenMP build), registered as the CPU baseline.
#include <cblas.h>
#include <omp.h>

#include <string>

#include "cpu/cpu_kernels.hpp"
#include "core/kernel_entry.hpp"

namespace tilekit::cpu {
namespace {

CBLAS_TRANSPOSE to_cblas(Op op) { return op == Op::kN ? CblasNoTrans : CblasTrans; }

// Sets OpenBLAS's thread count for one call and restores it after. The count is process-wide
// (and the OpenMP build also sets the caller's OpenMP default through omp_set_num_threads), so a
// Context's thread count must not leak into later calls that asked for nothing.
class ScopedOpenblasThreads {
 public:
  explicit ScopedOpenblasThreads(int threads)
      : active_(threads > 0),
        previous_openblas_(openblas_get_num_threads()),
        previous_openmp_(omp_get_max_threads()) {
    if (active_) openblas_set_num_threads(threads);
  }
  ~ScopedOpenblasThreads() {
    if (!active_) return;
    openblas_set_num_threads(previous_openblas_);
    omp_set_num_threads(previous_openmp_);
  }
  ScopedOpenblasThreads(const ScopedOpenblasThreads&) = delete;
  ScopedOpenblasThreads& operator=(const ScopedOpenblasThreads&) = delete;

 private:
  const bool active_;
  const int previous_openblas_, previous_openmp_;
};

Status openblas_launch(const GemmProblem& p, const Context& ctx, Workspace) {
  const ScopedOpenblasThreads threads(ctx.cpu_threads);
  // cblas takes int (blasint) sizes; can_implement has checked they fit.
  cblas_sgemm(p.layout == Layout::kRowMajor ? CblasRowMajor : CblasColMajor, to_cblas(p.op_a),
              to_cblas(p.op_b), static_cast<blasint>(p.m), static_cast<blasint>(p.n),
              static_cast<blasint>(p.k), p.alpha, p.a_f32(), static_cast<blasint>(p.lda), p.b_f32(),
              static_cast<blasint>(p.ldb), p.beta, p.c_f32(), static_cast<blasint>(p.ldc));
  return Status::ok();
}

Status openblas_can_implement(const GemmProblem& p, const DeviceInfo*) {
  constexpr int64_t kMax = (int64_t{1} << (8 * sizeof(blasint) - 1)) - 1;
  const std::pair<const char*, int64_t> values[] = {{"m", p.m},     {"n", p.n},     {"k", p.k},
                                                    {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}};
  for (const auto& [name, v] : values)
    if (v > kMax)
      return not_supported(std::string("OpenBLAS takes ") + std::to_string(8 * sizeof(blasint)) +
                           "-bit sizes; " + name + " = " + std::to_string(v) + " is too large");
  return Status::ok();
}

}  // namespace

// gemm.cpu.openblas.f32 — the CPU baseline (vendor: "auto" uses it only when allowed).
void register_gemm_cpu_openblas(Registry& r) {
  EntrySpec s;
  s.family = "vendor";
  s.name = "openblas";
  s.tile = "-";
  s.requirements = "sizes and leading dimensions within OpenBLAS's integer range";
  s.role = KernelRole::kVendor;
  s.auto_rank = 20;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = openblas_can_implement;
  k.launch = openblas_launch;
  r.add(std::move(k));
}

std::string openblas_config() { return openblas_get_config(); }

}  // namespace tilekit::cpu
