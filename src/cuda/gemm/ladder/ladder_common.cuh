// ladder_common.cuh — device-side helpers the GEMM ladder steps share.
#pragma once

#include <type_traits>
#include <utility>

#include "cuda/common/cuda_check.hpp"
#include "cuda/gemm/ladder/ladder.hpp"

namespace tilekit::cuda {

// Element (r, c) of op(X) for a row-major X with leading dimension ld.
template <bool kTrans>
__device__ __forceinline__ float op_element(const float* x, int ld, int r, int c) {
  return kTrans ? x[c * ld + r] : x[r * ld + c];
}

// alpha·acc + beta·c with one fixed rounding sequence: fma(alpha, acc, round(beta·c)).
// Written as `alpha * acc + beta * c`, the compiler (fmad on) may contract it either as
// fma(alpha, acc, beta·c) or as fma(beta, c, alpha·acc), and it chooses per code path: the
// interior and edge instantiations of step 05, or the float4 and scalar stores of steps 07–09,
// gave different last bits for the same element, so a C element's value depended on where the
// element lay in its launch (a column panel of C, computed by the multi-GPU path, then
// differed from the whole launch). __fmul_rn is never contracted, so every path rounds alike.
__device__ __forceinline__ float alpha_acc_beta_c(float alpha, float acc, float beta, float c) {
  return __fmaf_rn(alpha, acc, __fmul_rn(beta, c));
}

// C[i][j] = alpha·acc + beta·C[i][j]; beta = 0 never reads C (NaN there must not leak).
__device__ __forceinline__ void store_c(const RowMajorGemm& g, int i, int j, float acc) {
  float* c = g.c + i * g.ldc + j;
  *c = g.beta == 0.0f ? g.alpha * acc : alpha_acc_beta_c(g.alpha, acc, g.beta, *c);
}

// Calls f(std::bool_constant<trans_a>{}, std::bool_constant<trans_b>{}) for the runtime ops, so
// one launcher instantiates a kernel for all four op combinations.
template <typename F>
Status dispatch_ops(bool trans_a, bool trans_b, F&& f) {
  if (!trans_a && !trans_b) return f(std::false_type{}, std::false_type{});
  if (!trans_a && trans_b) return f(std::false_type{}, std::true_type{});
  if (trans_a && !trans_b) return f(std::true_type{}, std::false_type{});
  return f(std::true_type{}, std::true_type{});
}

inline unsigned ceil_div(int a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace tilekit::cuda
