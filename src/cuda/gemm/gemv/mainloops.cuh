// mainloops.cuh — the gemv family's two mainloops and the slice sums they end in.
//
// A product with a few rows of X (GemvView, core/gemv_view.hpp) reads W once and does 2·rows
// FLOPs per element of it: memory bound. Both mainloops stream W from global memory through
// registers in 16-byte (or 8-byte) pieces with several loads in flight per lane, keep X's
// elements in L1 (every warp of a block reads the same piece of X), and multiply in FP32:
//   along_k — W's lines run along k (x·Wᵀ): a warp owns kJ outputs and its lanes walk k;
//             the lanes' sums meet in a shuffle tree.
//   along_n — W's lines run along the outputs (x·W): a lane owns 4 adjacent outputs, the
//             block's 8 warps take every 8th line of W; their sums meet in shared memory.
// k is cut over grid.y into slices when the outputs alone give too few blocks; the slices'
// sums are added in slice order by the last block of a column strip to arrive (an integer
// counter, zeroed before the launch): the same bits on every run, no float atomics.
#pragma once

#include <cstdint>

#include "cuda/gemm/gemv/elements.cuh"

namespace tilekit::cuda::gemv {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kAlongNColumnsPerLane = 4;
constexpr int kAlongNColumns = 32 * kAlongNColumnsPerLane;  // a block's strip of outputs
constexpr int kAlongNBatch = 8;                             // lines of W in flight per lane

// The outputs per warp and the 16-byte pieces in flight per lane (per output) of along_k, for
// a row count: fewer rows read X less often per piece of W, so they take more outputs.
__host__ __device__ constexpr int along_k_outputs(int rows) { return rows <= 2 ? 2 : 4; }
__host__ __device__ constexpr int along_k_depth(int rows) { return 8 / along_k_outputs(rows); }

template <typename T, typename Tc>
struct Args {
  int rows = 0, cols = 0, k = 0;
  float alpha = 1, beta = 0;
  const T* x = nullptr;
  long long x_row = 0, x_step = 0;
  const T* w = nullptr;
  long long ldw = 0;
  Tc* d = nullptr;
  long long d_row = 0, d_col = 0;
  int k_slice = 0;               // k per slice of grid.y: a multiple of the mainloop's step
  unsigned* arrivals = nullptr;  // one counter per column strip, zero at launch (slices > 1)
  float* partials = nullptr;     // slices × strips × rows × columns of the block's tile
};

template <typename T, typename Tc>
__device__ __forceinline__ void store_output(const Args<T, Tc>& g, int r, int j, float sum) {
  Tc* p = g.d + r * g.d_row + j * g.d_col;
  // beta = 0 never reads D (NaN there must not leak); __fmul_rn keeps the FMA from contracting.
  const float v = g.beta == 0.0f ? g.alpha * sum
                                 : __fmaf_rn(g.alpha, sum, __fmul_rn(g.beta, Out<Tc>::load(p)));
  Out<Tc>::store(p, v);
}

// The block's sums over its slice, tile[r][c] for output column col0 + c, into D: directly with
// one slice, else through the partials (each block publishes its tile; the last of a strip to
// arrive sums them in slice order). kBlock: the block's threads.
template <int kBlock, int kRows, int kCols, typename T, typename Tc>
__device__ void finish_tile(const Args<T, Tc>& g, const float (&tile)[kRows][kCols], int col0) {
  constexpr int kTile = kRows * kCols;
  if (gridDim.y == 1) {
    for (int e = threadIdx.x; e < kTile; e += kBlock) {
      const int r = e / kCols, j = col0 + e % kCols;
      if (r < g.rows && j < g.cols) store_output(g, r, j, tile[r][e % kCols]);
    }
    return;
  }
  __shared__ bool last_to_arrive;
  float* mine = g.partials + (static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * kTile;
  for (int e = threadIdx.x; e < kTile; e += kBlock) mine[e] = tile[e / kCols][e % kCols];
  // Publish, then count arrivals: the block that brings the count to gridDim.y sees every
  // slice's sums (each block's fence orders its stores before its arrival).
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    last_to_arrive = atomicAdd(&g.arrivals[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last_to_arrive) return;
  __threadfence();
  const size_t plane = static_cast<size_t>(gridDim.x) * kTile;
  const float* first = g.partials + static_cast<size_t>(blockIdx.x) * kTile;
  for (int e = threadIdx.x; e < kTile; e += kBlock) {
    const int r = e / kCols, j = col0 + e % kCols;
    if (r >= g.rows || j >= g.cols) continue;
    float s = -0.0f;  // -0 + x == x: the sum is exactly slice 0 + slice 1 + …
    for (unsigned y = 0; y < gridDim.y; ++y) s += __ldcg(first + y * plane + e);  // other SMs' stores
    store_output(g, r, j, s);
  }
}

// tile[r0 + r][c] = parts[0][r][c] + parts[1][r][c] + … for r < kPartRows: the shares of a
// block's sums that its warps left in shared memory, added in warp order so that every run
// gives the same bits. The caller synchronizes before and after.
template <int kBlock, int kParts, int kPartRows, int kRows, int kCols>
__device__ __forceinline__ void add_in_warp_order(const float (&parts)[kParts][kPartRows][kCols],
                                                  float (&tile)[kRows][kCols], int r0) {
  for (int e = threadIdx.x; e < kPartRows * kCols; e += kBlock) {
    const int r = e / kCols, c = e % kCols;
    float s = parts[0][r][c];
#pragma unroll
    for (int w = 1; w < kParts; ++w) s += parts[w][r][c];
    tile[r0 + r][c] = s;
  }
}

// X(r, p … p + kVec) as stored: 16 bytes when X lies along k on 16-byte boundaries (vec_x),
// else gathered one element at a time.
template <typename T>
__device__ __forceinline__ typename Element<T>::Raw load_x(const T* x, long long x_row,
                                                           long long x_step, int r, int p,
                                                           bool vec_x) {
  const T* at = x + r * x_row + p * x_step;
  return vec_x ? Element<T>::load_raw(at) : Element<T>::gather(at, x_step);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// along_k. Block (strip x, slice y): outputs [x·8·kJ, …) over k [y·k_slice, …); warp w owns
// outputs x·8·kJ + w·kJ + [0, kJ). vec_w: W's lines start on 16-byte boundaries, so [0, k rounded
// down to kVec) is read in 16-byte pieces; the rest (all of k without vec_w) one element a lane.
template <typename T, typename Tc, typename Round, int kRows>
__global__ void __launch_bounds__(kThreads)
    gemv_along_k_kernel(Args<T, Tc> g, bool vec_w, bool vec_x) {
  using E = Element<T>;
  constexpr int kV = E::kVec, kJ = along_k_outputs(kRows), kU = along_k_depth(kRows);
  constexpr int kCols = kWarps * kJ;
  __shared__ float tile[kRows][kCols];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int col0 = blockIdx.x * kCols, j0 = col0 + warp * kJ;
  const int k_begin = blockIdx.y * g.k_slice, k_end = min(g.k, k_begin + g.k_slice);
  const int k_vec = vec_w ? g.k / kV * kV : 0;
  const int v_end = min(k_end, k_vec);
  float acc[kRows][kJ] = {};

  for (int p0 = k_begin + lane * kV; p0 < v_end; p0 += 32 * kV * kU) {
    typename E::Raw raw[kU][kJ];
#pragma unroll
    for (int u = 0; u < kU; ++u)
#pragma unroll
      for (int jj = 0; jj < kJ; ++jj) {
        const int p = p0 + u * 32 * kV, j = j0 + jj;
        raw[u][jj] = p < v_end && j < g.cols ? E::load_raw(g.w + j * g.ldw + p) : typename E::Raw{};
      }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int p = p0 + u * 32 * kV;
      if (p >= v_end) break;
      float wf[kJ][kV];
#pragma unroll
      for (int jj = 0; jj < kJ; ++jj) {
        E::unpack(raw[u][jj], wf[jj]);
#pragma unroll
        for (int e = 0; e < kV; ++e) wf[jj][e] = Round::apply(wf[jj][e]);
      }
      // X's pieces for every row first, so that their loads overlap (one, then its FMAs, would
      // wait an L1 or L2 round trip per row).
      typename E::Raw xr[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        xr[r] = r < g.rows ? load_x(g.x, g.x_row, g.x_step, r, p, vec_x) : typename E::Raw{};
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (r >= g.rows) break;
        float xf[kV];
        E::unpack(xr[r], xf);
#pragma unroll
        for (int e = 0; e < kV; ++e) xf[e] = Round::apply(xf[e]);
#pragma unroll
        for (int jj = 0; jj < kJ; ++jj)
#pragma unroll
          for (int e = 0; e < kV; ++e) acc[r][jj] = fmaf(xf[e], wf[jj][e], acc[r][jj]);
      }
    }
  }
  for (int p = max(k_begin, k_vec) + lane; p < k_end; p += 32) {
    float wf[kJ];
#pragma unroll
    for (int jj = 0; jj < kJ; ++jj)
      wf[jj] = j0 + jj < g.cols ? Round::apply(E::load(g.w + (j0 + jj) * g.ldw + p)) : 0.0f;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (r >= g.rows) break;
      const float xv = Round::apply(E::load(g.x + r * g.x_row + p * g.x_step));
#pragma unroll
      for (int jj = 0; jj < kJ; ++jj) acc[r][jj] = fmaf(xv, wf[jj], acc[r][jj]);
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int jj = 0; jj < kJ; ++jj) {
      const float s = warp_sum(acc[r][jj]);
      if (lane == (r * kJ + jj) % 32) tile[r][warp * kJ + jj] = s;
    }
  __syncthreads();
  finish_tile<kThreads, kRows, kCols>(g, tile, col0);
}

// along_n. Block (strip x, slice y): outputs [128x, 128x + 128) over k [y·k_slice, …); lane l of
// every warp owns outputs 128x + 4l + [0, 4), warp w the lines p ≡ w (mod 8) of the slice.
// vec_w: the four outputs' elements of a line are one aligned 16- or 8-byte piece.
template <typename T, typename Tc, typename Round, int kRows>
__global__ void __launch_bounds__(kThreads) gemv_along_n_kernel(Args<T, Tc> g, bool vec_w) {
  using E = Element<T>;
  constexpr int kC = kAlongNColumnsPerLane, kCols = kAlongNColumns, kB = kAlongNBatch;
  constexpr int kStage = kRows < 8 ? kRows : 8;  // rows staged per round: 32 KB at most
  __shared__ float stage[kWarps][kStage][kCols];
  __shared__ float tile[kRows][kCols];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int col0 = blockIdx.x * kCols, j = col0 + lane * kC;
  const int k_begin = blockIdx.y * g.k_slice, k_end = min(g.k, k_begin + g.k_slice);
  const bool whole = vec_w && j + kC <= g.cols;
  float acc[kRows][kC] = {};

  for (int p0 = k_begin + warp; p0 < k_end; p0 += kWarps * kB) {
    float wf[kB][kC];
#pragma unroll
    for (int u = 0; u < kB; ++u) {
      const int p = p0 + u * kWarps;
      const T* line = g.w + p * g.ldw + j;
      if (p < k_end && whole) {
        E::load4(line, wf[u]);
      } else {
#pragma unroll
        for (int c = 0; c < kC; ++c) wf[u][c] = p < k_end && j + c < g.cols ? E::load(line + c) : 0.0f;
      }
#pragma unroll
      for (int c = 0; c < kC; ++c) wf[u][c] = Round::apply(wf[u][c]);
    }
#pragma unroll
    for (int u = 0; u < kB; ++u) {
      const int p = p0 + u * kWarps;
      if (p >= k_end) break;
      float xv[kRows];  // X(·, p): the same for all lanes; loaded together, then used
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        xv[r] = r < g.rows ? Round::apply(E::load(g.x + r * g.x_row + p * g.x_step)) : 0.0f;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (r >= g.rows) break;
#pragma unroll
        for (int c = 0; c < kC; ++c) acc[r][c] = fmaf(xv[r], wf[u][c], acc[r][c]);
      }
    }
  }
  // The warps' sums of each output, added in warp order, kStage rows at a time.
#pragma unroll
  for (int r0 = 0; r0 < kRows; r0 += kStage) {
#pragma unroll
    for (int r = 0; r < kStage; ++r)
#pragma unroll
      for (int c = 0; c < kC; ++c) stage[warp][r][lane * kC + c] = acc[r0 + r][c];
    __syncthreads();
    add_in_warp_order<kThreads>(stage, tile, r0);
    __syncthreads();
  }
  finish_tile<kThreads, kRows, kCols>(g, tile, col0);
}

}  // namespace tilekit::cuda::gemv
