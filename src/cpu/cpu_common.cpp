// cpu_common.cpp — helpers every CPU kernel shares.
#include <omp.h>

#include "core/strides.hpp"
#include "cpu/cpu_kernels.hpp"

namespace tilekit::cpu {

int thread_count(const Context& ctx) {
  return ctx.cpu_threads > 0 ? ctx.cpu_threads : omp_get_max_threads();
}

namespace {
template <typename T, typename Scale>
void scale_each(const GemmProblem& p, const Context& ctx, Scale scale) {
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  T* c = static_cast<T*>(p.c);
#pragma omp parallel for num_threads(thread_count(ctx))
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) scale(c[i * sc.row + j * sc.col]);
}
}  // namespace

void scale_c(const GemmProblem& p, const Context& ctx) {
  const float beta = p.beta;
  // beta = 0 writes zeros, never 0 · NaN.
  if (p.types.c == DType::kBF16)
    scale_each<bf16_t>(p, ctx, [beta](bf16_t& c) {
      c = float_to_bf16(beta == 0.0f ? 0.0f : beta * bf16_to_float(c));
    });
  else
    scale_each<float>(p, ctx, [beta](float& c) { c = beta == 0.0f ? 0.0f : beta * c; });
}

}  // namespace tilekit::cpu
