// epilogue_registers.cuh — C stored by each thread straight from its accumulators (alpha and
// beta applied; beta = 0 never reads C), in place or transposed: the direct-store epilogue part
// (its contract: schedule.hpp), and the stores the other epilogues fall back on.
#pragma once

#include "cuda/gemm/sm90/accumulators.cuh"

namespace tilekit::cuda::sm90 {

// The C element at `c` from its accumulator: alpha·v, or alpha·v + beta·c. BLAS: beta = 0 never
// reads C. One rounding sequence for every element and both epilogues: `alpha * v + beta * c`
// may be contracted as fma(alpha, v, beta·c) or fma(beta, c, alpha·v), per code path, and a C
// element's bits would depend on where it lies in the launch (see alpha_acc_beta_c in the
// ladder's common header).
__device__ __forceinline__ float epilogue_value(const WgmmaArgs& a, float v, const float* c) {
  return a.beta == 0.0f ? a.alpha * v : __fmaf_rn(a.alpha, v, __fmul_rn(a.beta, *c));
}

__device__ __forceinline__ void store_pair(const WgmmaArgs& a, int row, int col, float v0, float v1) {
  if (row >= a.m || col >= a.n) return;
  float* p = a.c + static_cast<int64_t>(row) * a.ldc + col;
  const bool both = col + 1 < a.n;
  v0 = epilogue_value(a, v0, p);
  if (both) v1 = epilogue_value(a, v1, p + 1);
  if (both && a.c_pairs) {
    *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  } else {
    p[0] = v0;
    if (both) p[1] = v1;
  }
}

// wgmma's accumulator layout (m64nN, FP32): warp w of the warpgroup holds accumulator rows
// 16w..16w+15 (the tile rows accumulator_row gives: permuted for an MN-major A in registers); for
// each 8-column group j, lane l holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) + {0, 1}.
template <typename P, bool kPermutedRows = false>
__device__ __forceinline__ void store_tile(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                           int tm, int tn, int half) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row = tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4);
  const int row8 = tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8);
  const int col0 = tn * P::kBn + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < P::kBn / 8; ++j) {
    store_pair(a, row, col0 + 8 * j, acc[4 * j], acc[4 * j + 1]);
    store_pair(a, row8, col0 + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

// C stored transposed (the A-from-registers view, WgmmaView::c_transposed): view element (row,
// col) at c[col · ldc + row], each lane storing its floats down the view's columns. (A 4 × 4
// shuffle transpose into float4 stores halved the L2 write sectors but measured level, so the
// simpler stores stayed: docs/hopper.md, "Tried and not kept".)
template <typename P, bool kPermutedRows>
__device__ __forceinline__ void store_tile_transposed(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                                      int tm, int tn, int half) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int rows[2] = {tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4),
                       tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8)};
  const int col0 = tn * P::kBn + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < P::kBn / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {  // acc[4j + e]: row rows[e / 2], column col0 + 8j + e % 2
      const int row = rows[e / 2], col = col0 + 8 * j + e % 2;
      if (row >= a.m || col >= a.n) continue;
      float* p = a.c + static_cast<int64_t>(col) * a.ldc + row;
      *p = epilogue_value(a, acc[4 * j + e], p);
    }
}

// No shared memory, no TMA: every thread stores its own accumulators, in place or transposed.
struct DirectStoreEpilogue {
  static constexpr int kStagingBuffers = 0;
  static constexpr bool kAsyncStores = false;
  // State: the warp's staging (TmaStoreState), which this epilogue does not use.
  template <typename P, bool kPermutedRows, bool kCTransposed, typename State>
  static __device__ __forceinline__ void store_half(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                                    int tm, int tn, int half, State& /*out*/) {
    if constexpr (kCTransposed)
      store_tile_transposed<P, kPermutedRows>(a, acc, tm, tn, half);
    else
      store_tile<P, kPermutedRows>(a, acc, tm, tn, half);
  }
};

}  // namespace tilekit::cuda::sm90
