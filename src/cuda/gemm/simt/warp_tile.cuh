// warp_tile.cuh — the FFMA multiply of the SIMT family: block → warp → thread tiles (tile_shape.hpp),
// each thread tile made of 4×4 sub-tiles spread across the warp tile, so that at one k the
// fragments a warp reads are adjacent 16-byte words of one shared row (every LDS.128 one
// conflict-free wavefront) and its C rows are stored as float4 (epilogue_registers.cuh).
//
// Contract: the shared tiles hold kBk k rows of kBm (A) and kBn (B) values in the Layout given;
// multiply_k_tile adds their product into the thread's kTm × kTn accumulators and reads nothing
// else. Callers synchronise the block around it.
#pragma once

#include <string>

#include "cuda/gemm/simt/tile_shape.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {

// A block of warps_m × warps_n warps; a warp of lanes_m × (32 / lanes_m) lanes; a thread tile of
// thread_m × thread_n made of 4×4 sub-tiles strided by the warp's lane extent, so the 4-wide
// fragments of neighbouring lanes are neighbouring 16-byte words. `Shape` is a type whose static
// constexpr simt::TileShape kShape names the tiling (the instance table's ShapeOf<row>).
template <typename Shape>
struct WarpTilePolicy {
  static constexpr simt::TileShape kShape = Shape::kShape;
  static constexpr int kBm = kShape.block_m, kBn = kShape.block_n, kBk = kShape.block_k;
  static constexpr int kWarpsM = kShape.warps_m, kWarpsN = kShape.warps_n;
  static constexpr int kLanesM = kShape.lanes_m, kLanesN = 32 / kShape.lanes_m;
  static constexpr int kTm = kShape.thread_m, kTn = kShape.thread_n;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kWarpM = kLanesM * kTm, kWarpN = kLanesN * kTn;  // a warp's C tile
  static_assert(kShape.warp_tiled(), "a warp grid is needed");
  static_assert(kLanesM * kLanesN == 32, "lanes must tile the warp");
  static_assert(kTm % 4 == 0 && kTn % 4 == 0, "thread tiles are made of 4×4 sub-tiles");
  static_assert(kBm == kWarpsM * kWarpM && kBn == kWarpsN * kWarpN, "warps must tile the block");

  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm, t.block_n = kBn, t.block_k = kBk;
    t.warp_m = kWarpM, t.warp_n = kWarpN;
    t.thread_m = kTm, t.thread_n = kTn;
    t.threads = kThreads;
    return t;
  }
};

// Offsets inside the block tile of this thread's first sub-tile; sub-tile (i, j) adds
// (i·kLanesM·4, j·kLanesN·4).
struct ThreadOrigin {
  int row, col;
};

template <typename P>
__device__ __forceinline__ ThreadOrigin thread_origin() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / P::kWarpsN, warp_col = warp % P::kWarpsN;
  return {warp_row * P::kWarpM + lane / P::kLanesN * 4, warp_col * P::kWarpN + lane % P::kLanesN * 4};
}

// one k of the thread's fragments: kTm/4 + kTn/4 LDS.128.
template <typename P, typename Layout>
__device__ __forceinline__ void load_fragments(const float* s_a, const float* s_b, ThreadOrigin t,
                                               int k, float (&a)[P::kTm], float (&b)[P::kTn]) {
#pragma unroll
  for (int i = 0; i < P::kTm / 4; ++i) {
    const float4 v = *reinterpret_cast<const float4*>(
        s_a + Layout::template offset<P::kBm>(k, t.row + i * P::kLanesM * 4));
    a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < P::kTn / 4; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(
        s_b + Layout::template offset<P::kBn>(k, t.col + j * P::kLanesN * 4));
    b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
  }
}

// acc += a·bᵀ for one k: kTm·kTn FMAs.
template <typename P>
__device__ __forceinline__ void add_outer_product(float (&acc)[P::kTm][P::kTn],
                                                  const float (&a)[P::kTm],
                                                  const float (&b)[P::kTn]) {
#pragma unroll
  for (int r = 0; r < P::kTm; ++r)
#pragma unroll
    for (int c = 0; c < P::kTn; ++c) acc[r][c] += a[r] * b[c];
}

// acc += the k-tile's product: per k, kTm·kTn FMAs on fragments loaded one k earlier (two
// fragment buffers), so the shared-load latency of k + 1 hides behind the FMAs of k.
template <typename P, typename Layout>
__device__ __forceinline__ void multiply_k_tile(const float* s_a, const float* s_b, ThreadOrigin t,
                                                float (&acc)[P::kTm][P::kTn]) {
  float a[2][P::kTm], b[2][P::kTn];
  load_fragments<P, Layout>(s_a, s_b, t, 0, a[0], b[0]);
#pragma unroll
  for (int k = 0; k < P::kBk; ++k) {
    if (k + 1 < P::kBk) load_fragments<P, Layout>(s_a, s_b, t, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
    add_outer_product<P>(acc, a[k % 2], b[k % 2]);
  }
}

}  // namespace tilekit::cuda
