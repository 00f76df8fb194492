// mainloop_tensor_cores.cuh — along_k on the tensor cores, for 16-bit inputs: mma.sync m16n8k16
// with W as the A operand (16 outputs × 16 of k) and X as B (16 of k × 8 rows), FP32
// accumulators. A decode step does rows FMAs per element of W, more than the FP32 pipes keep up
// with at the memory's rate once rows passes a few; the tensor cores do them for free.
//
// The fragments come straight from global memory, without shared memory or ldmatrix: in a
// chunk of 32 of k, lane (g, t) = (lane / 4, lane % 4) reads 16 contiguous bytes of W's lines
// g and g + 8 and of X's row g, at k = 8t … 8t + 7. The mma's k order is a permutation of the
// chunk's (its k pair {2t, 2t + 1} is the lane's 8t, 8t + 1, {2t + 8, 2t + 9} is 8t + 2, 8t + 3,
// and the chunk's second mma takes 8t + 4 … 8t + 7); A and B are permuted alike, so the sum
// over the chunk is the same. Requires W's lines on 16-byte boundaries; k's last chunk of fewer
// than 32 is added by each lane for its own accumulators, one element at a time.
#pragma once

#include "cuda/gemm/gemv/mainloops.cuh"

namespace tilekit::cuda::gemv {

// A block: 2 groups of 16 outputs × 4 warps along k. The four warps of a group take every 4th
// batch of chunks of the block's k range, so that together they stream W's lines in order, and
// their sums meet in shared memory in warp order: no k slices across blocks (no counters to zero,
// no partials through L2) wherever the outputs alone give a block per SM.
constexpr int kTensorGroups = 2;
constexpr int kTensorAlongK = 4;
constexpr int kTensorThreads = kTensorGroups * kTensorAlongK * 32;
constexpr int kTensorColumns = kTensorGroups * 16;  // a block's strip of outputs
constexpr int kTensorChunk = 32;                    // of k, per pair of mma
constexpr int kTensorDepth = 4;                     // chunks in flight per lane: a batch
constexpr int kTensorStep = kTensorChunk * kTensorDepth * kTensorAlongK;  // k a block's pass takes

// Block (strip x, slice y): outputs [32x, 32x + 32) over k [y·k_slice, …); warp w owns outputs
// 32x + 16(w / 4) + [0, 16) and the batches b ≡ w (mod 4) of the range. kRows: 8 or 16 (one or
// two mma column tiles of X's rows).
template <typename T, typename Tc, int kRows>
__global__ void __launch_bounds__(kTensorThreads)
    gemv_along_k_tensor_kernel(Args<T, Tc> g, bool vec_x) {
  using E = Element<T>;
  constexpr int kTiles = kRows / 8, kU = kTensorDepth, kCols = kTensorColumns;
  constexpr int kBatch = kTensorChunk * kU;
  __shared__ float sums[kTensorAlongK][kRows][kCols];
  __shared__ float tile[kRows][kCols];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, gr = lane / 4, t = lane % 4;
  const int group = warp / kTensorAlongK, along = warp % kTensorAlongK;
  const int col0 = blockIdx.x * kCols, j_lo = col0 + group * 16 + gr, j_hi = j_lo + 8;
  const int k_begin = blockIdx.y * g.k_slice, k_end = min(g.k, k_begin + g.k_slice);
  const int k_vec = g.k / kTensorChunk * kTensorChunk, v_end = min(k_end, k_vec);
  const T* w_lo = g.w + min(j_lo, g.cols - 1) * g.ldw + 8 * t;  // clamped lines are not stored
  const T* w_hi = g.w + min(j_hi, g.cols - 1) * g.ldw + 8 * t;
  float c[kTiles][4] = {};

  for (int p0 = k_begin + along * kBatch; p0 < v_end; p0 += kBatch * kTensorAlongK) {
    uint4 lo[kU], hi[kU], xv[kU][kTiles];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int p = p0 + u * kTensorChunk;
      const bool in = p < v_end;
      lo[u] = in ? E::load_raw(w_lo + p) : uint4{};
      hi[u] = in ? E::load_raw(w_hi + p) : uint4{};
#pragma unroll
      for (int n = 0; n < kTiles; ++n) {
        const int r = n * 8 + gr;
        xv[u][n] = in && r < g.rows ? load_x(g.x, g.x_row, g.x_step, r, p + 8 * t, vec_x) : uint4{};
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (p0 + u * kTensorChunk >= v_end) break;
      const uint32_t a0[4] = {lo[u].x, hi[u].x, lo[u].y, hi[u].y};
      const uint32_t a1[4] = {lo[u].z, hi[u].z, lo[u].w, hi[u].w};
#pragma unroll
      for (int n = 0; n < kTiles; ++n) {
        const uint32_t b0[2] = {xv[u][n].x, xv[u][n].y}, b1[2] = {xv[u][n].z, xv[u][n].w};
        E::mma(c[n], a0, b0);
        E::mma(c[n], a1, b1);
      }
    }
  }
  // k's last partial chunk, by the group's first warp: each lane its own accumulators (outputs
  // j_lo, j_hi; rows 2t, 2t + 1 of each column tile).
  if (along == 0) {
    for (int p = max(k_begin, k_vec); p < k_end; ++p) {
      const float wl = E::load(w_lo - 8 * t + p), wh = E::load(w_hi - 8 * t + p);
#pragma unroll
      for (int n = 0; n < kTiles; ++n) {
        const int r = n * 8 + 2 * t;
        const float x0 = r < g.rows ? E::load(g.x + r * g.x_row + p * g.x_step) : 0.0f;
        const float x1 = r + 1 < g.rows ? E::load(g.x + (r + 1) * g.x_row + p * g.x_step) : 0.0f;
        c[n][0] = fmaf(wl, x0, c[n][0]), c[n][1] = fmaf(wl, x1, c[n][1]);
        c[n][2] = fmaf(wh, x0, c[n][2]), c[n][3] = fmaf(wh, x1, c[n][3]);
      }
    }
  }
  // The accumulators' places: c[n][0, 1] are (output j_lo; rows 8n + 2t, + 1), c[n][2, 3] j_hi's.
  const int o = group * 16 + gr;
#pragma unroll
  for (int n = 0; n < kTiles; ++n) {
    const int r = n * 8 + 2 * t;
    sums[along][r][o] = c[n][0], sums[along][r + 1][o] = c[n][1];
    sums[along][r][o + 8] = c[n][2], sums[along][r + 1][o + 8] = c[n][3];
  }
  __syncthreads();
  add_in_warp_order<kTensorThreads>(sums, tile, 0);
  __syncthreads();
  finish_tile<kTensorThreads, kRows, kCols>(g, tile, col0);
}

}  // namespace tilekit::cuda::gemv
