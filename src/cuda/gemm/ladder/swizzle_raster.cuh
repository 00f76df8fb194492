// swizzle_raster.cuh — step 09's two techniques, as the types the pipelined kernel takes
// (async_pipeline.cuh): SwizzledLayout for its shared tiles and GroupedRaster for its tile order.
// Step 10 builds on both. gemm_09_swizzle_raster.cu explains why.
#pragma once

#include <string>

#include "cuda/gemm/detail/tile_order.cuh"
#include "cuda/gemm/ladder/async_pipeline.cuh"

namespace tilekit::cuda {

// Rows of kWidth floats (a multiple of 32); float4 group g of row k stored at g XOR (k mod 8).
struct SwizzledLayout {
  static std::string name() { return "sw"; }
  template <int kWidth>
  __host__ __device__ static constexpr int stride() {
    static_assert(kWidth % 32 == 0, "the XOR permutes groups inside 32-float row segments");
    return kWidth;
  }
  template <int kWidth>
  __device__ static __forceinline__ int offset(int k, int outer) {
    return k * stride<kWidth>() + (outer ^ ((k & 7) << 2));
  }
};

// kGroup rows of tiles at a time, column by column inside the group.
template <int kGroup>
struct GroupedRaster {
  static std::string name() { return "g" + std::to_string(kGroup); }
  __device__ static __forceinline__ TileCoord tile(int id, int tiles_m, int tiles_n) {
    const GroupedTile t = grouped_tile(id, tiles_m, tiles_n, kGroup);
    return {t.m, t.n};
  }
};

}  // namespace tilekit::cuda
