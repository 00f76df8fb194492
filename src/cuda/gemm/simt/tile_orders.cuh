// tile_orders.cuh — which C tile a block of the SIMT family computes: the Raster a mainloop takes.
// RowRaster walks the tiles row after row in launch order; GroupedRaster<kGroup> walks kGroup tile
// rows at a time, column by column inside the group, so that the blocks resident at once share a
// few A panels and B panels in L2 (it matters where a row of tiles' B panels no longer fits in
// L2, n >= 8192).
//
// Contract: tile(id, tiles_m, tiles_n) is a bijection of [0, tiles_m·tiles_n) onto the tiles.
#pragma once

#include <string>

#include "cuda/gemm/detail/tile_order.cuh"

namespace tilekit::cuda {

struct TileCoord {
  int m, n;
};

struct RowRaster {
  static std::string name() { return "row"; }
  __device__ static __forceinline__ TileCoord tile(int id, int, int tiles_n) {
    return {id / tiles_n, id % tiles_n};
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
