// epilogue_registers.cuh — the SIMT family's epilogue: each thread's accumulators to C (or to a
// split-K plane: CTarget), alpha and beta applied with one fixed rounding sequence, float4 rows
// where they lie wholly inside the matrix. It is the axis that a bias, an activation or another
// output type extends: the mainloops hand it accumulators and never touch C themselves.
//
// Contract: store_c_tile writes exactly the elements of the block tile that lie inside o.m × o.n;
// beta = 0 never reads C; a C element gets the same bits whichever store (float4 or scalar) writes
// it.
#pragma once

#include "cuda/gemm/ladder/ladder_common.cuh"
#include "cuda/gemm/simt/warp_tile.cuh"

namespace tilekit::cuda {

// Where a block's results go: C itself (alpha, beta), or a split-K partial slice (alpha 1, beta 0).
struct CTarget {
  float* c;
  int ldc;
  int m, n;
  float alpha, beta;
  bool vec;  // ldc a multiple of 4 and c 16-byte aligned: float4 stores inside the matrix
};

__device__ __forceinline__ float scale_c(const CTarget& o, float acc, const float* c) {
  // beta = 0 never reads C; alpha_acc_beta_c: the same rounding as the float4 stores below.
  return o.beta == 0.0f ? o.alpha * acc : alpha_acc_beta_c(o.alpha, acc, o.beta, *c);
}

// The thread's tile to C, float4 rows where they lie wholly inside the matrix.
template <typename P>
__device__ __forceinline__ void store_c_tile(const CTarget& o, int row0, int col0, ThreadOrigin t,
                                             const float (&acc)[P::kTm][P::kTn]) {
#pragma unroll
  for (int i = 0; i < P::kTm / 4; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int gi = row0 + t.row + i * P::kLanesM * 4 + r;
      if (gi >= o.m) continue;
#pragma unroll
      for (int j = 0; j < P::kTn / 4; ++j) {
        const int gj = col0 + t.col + j * P::kLanesN * 4;
        float* c = o.c + gi * o.ldc + gj;
        const float* v = &acc[4 * i + r][4 * j];
        if (o.vec && gj + 3 < o.n) {
          // The scalar path's arithmetic (scale_c), element by element: a C element gets the
          // same bits whichever store writes it.
          float4 out;
          if (o.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(alpha_acc_beta_c(o.alpha, v[0], o.beta, old.x),
                              alpha_acc_beta_c(o.alpha, v[1], o.beta, old.y),
                              alpha_acc_beta_c(o.alpha, v[2], o.beta, old.z),
                              alpha_acc_beta_c(o.alpha, v[3], o.beta, old.w));
          } else {
            out = make_float4(o.alpha * v[0], o.alpha * v[1], o.alpha * v[2], o.alpha * v[3]);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (gj + q < o.n) c[q] = scale_c(o, v[q], c + q);
        }
      }
    }
}

}  // namespace tilekit::cuda
