// tile_shape.hpp — the SIMT FP32 family's block tiling as named fields (host and device): what a
// row of the instance table (instances.cuh) gives the policies of the mainloops.
//
// A block computes a block_m × block_n tile of C, block_k of k per shared-memory stage. With a
// warp grid, its warps_m × warps_n warps each own a (block_m / warps_m) × (block_n / warps_n)
// tile, made of lanes_m × (32 / lanes_m) lanes of thread_m × thread_n values; without one
// (warps_m = 0), threads own contiguous thread_m × thread_n tiles in a 2-D block.
#pragma once

#include <string>

namespace tilekit::cuda::simt {

struct TileShape {
  int block_m = 0, block_n = 0, block_k = 0;
  int warps_m = 0, warps_n = 0;  // 0 × 0: no warp tiling
  int lanes_m = 0;               // a warp's lanes along m
  int thread_m = 0, thread_n = 0;
  int stages = 1;      // shared-memory ring depth; 1: load, barrier, multiply, barrier
  int min_blocks = 1;  // blocks per SM the registers are capped for (__launch_bounds__)

  constexpr bool warp_tiled() const { return warps_m > 0; }
  constexpr TileShape with_warps(int m, int n, int lanes_along_m) const {
    TileShape s = *this;
    s.warps_m = m, s.warps_n = n, s.lanes_m = lanes_along_m;
    return s;
  }
  constexpr TileShape with_threads(int m, int n) const {
    TileShape s = *this;
    s.thread_m = m, s.thread_n = n;
    return s;
  }
  constexpr TileShape ring(int depth, int blocks_per_sm) const {
    TileShape s = *this;
    s.stages = depth, s.min_blocks = blocks_per_sm;
    return s;
  }
};

constexpr TileShape block_tile(int m, int n, int k) {
  TileShape s;
  s.block_m = m, s.block_n = n, s.block_k = k;
  return s;
}

// "128x256x8_w2x4_t8x16_s2": block tile, warp grid (when warp-tiled), thread tile, ring depth
// (when pipelined): the tile segment of the kernel's id.
inline std::string tile_name(const TileShape& s) {
  auto x = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  std::string out = x(s.block_m, s.block_n) + "x" + std::to_string(s.block_k);
  if (s.warp_tiled()) out += "_w" + x(s.warps_m, s.warps_n);
  out += "_t" + x(s.thread_m, s.thread_n);
  if (s.stages > 1) out += "_s" + std::to_string(s.stages);
  return out;
}

}  // namespace tilekit::cuda::simt
