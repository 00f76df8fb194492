// cpu_common.cpp — helpers every CPU kernel shares.
#include <omp.h>

#include "core/strides.hpp"
#include "cpu/cpu_kernels.hpp"

namespace tilekit::cpu {

int thread_count(const Context& ctx) {
  return ctx.cpu_threads > 0 ? ctx.cpu_threads : omp_get_max_threads();
}

void scale_c(const GemmProblem& p, const Context& ctx) {
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
#pragma omp parallel for num_threads(thread_count(ctx))
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      float& c = p.c[i * sc.row + j * sc.col];
      c = p.beta == 0.0f ? 0.0f : p.beta * c;  // beta = 0 writes zeros, never 0 * NaN
    }
}

}  // namespace tilekit::cpu
