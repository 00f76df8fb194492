// gemm_reference.cpp — the CPU reference GEMM (the oracle every other kernel is checked against).
// Adds:     nothing clever: one dot product per element of C, accumulated in double.
// Requires: float32 inputs; any layout, ops, sizes and leading dimensions.
// Expect:   slow (about a GFLOP/s per core); its value is being obviously right.
#include <cmath>

#include "core/strides.hpp"
#include "core/kernel_entry.hpp"
#include "cpu/cpu_kernels.hpp"

namespace tilekit::cpu {

void reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude) {
  const Strides sa = op_strides(p.layout, p.op_a, p.lda);
  const Strides sb = op_strides(p.layout, p.op_b, p.ldb);
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  const double alpha = p.alpha, beta = p.beta;
  const bool use_product = p.alpha != 0.0f && p.k > 0;
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0.0, abs_sum = 0.0;
      if (use_product) {
        for (int64_t l = 0; l < p.k; ++l) {
          const double prod = static_cast<double>(p.a[i * sa.row + l * sa.col]) *
                              static_cast<double>(p.b[l * sb.row + j * sb.col]);
          sum += prod;
          abs_sum += std::fabs(prod);
        }
      }
      double v = alpha * sum, mag = std::fabs(alpha) * abs_sum;
      if (beta != 0.0) {  // beta = 0 never reads C: NaN there must not leak
        const double c0 = p.c[i * sc.row + j * sc.col];
        v += beta * c0;
        mag += std::fabs(beta * c0);
      }
      value[i * p.n + j] = v;
      if (magnitude) magnitude[i * p.n + j] = mag;
    }
  }
}

namespace {

Status reference_launch(const GemmProblem& p, const Context& ctx) {
  const Strides sa = op_strides(p.layout, p.op_a, p.lda);
  const Strides sb = op_strides(p.layout, p.op_b, p.ldb);
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
#pragma omp parallel for schedule(dynamic, 4) num_threads(thread_count(ctx))
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0.0;
      for (int64_t l = 0; l < p.k; ++l)
        sum += static_cast<double>(p.a[i * sa.row + l * sa.col]) *
               static_cast<double>(p.b[l * sb.row + j * sb.col]);
      float& c = p.c[i * sc.row + j * sc.col];
      double v = static_cast<double>(p.alpha) * sum;
      if (p.beta != 0.0f) v += static_cast<double>(p.beta) * c;
      c = static_cast<float>(v);
    }
  }
  return Status::ok();
}

}  // namespace

GemmKernel reference_gemm_kernel() {
  // auto_rank 0: the slowest; auto picks it only when nothing else can run.
  GemmKernel k = make_entry<GemmProblem>("gemm.cpu.reference.f32", "gemm", Backend::kCpu, 0, "",
                                         "any layout, op, size and leading dimension", 0);
  k.info.is_reference = true;
  k.info.tile_m = k.info.tile_n = 1;  // a dot product per element, like the naive GPU step
  k.launch = reference_launch;
  return k;
}

}  // namespace tilekit::cpu
