// tile_walk.cuh — the device side of the tile schedulers (src/core/schedules/ plans them on the
// host): which tile a block's walk reaches next, as whole tiles, stream-K ranges or split pieces,
// in the same order for the producer and the consumers.
#pragma once

#include "cuda/gemm/detail/tile_order.cuh"
#include "cuda/gemm/detail/stream_k_walk.hpp"
#include "cuda/gemm/sm90/hopper_ptx.cuh"
#include "cuda/gemm/sm90/tile_config.cuh"

namespace tilekit::cuda::sm90 {

// Tile `t` of the walk → its tile row and column (grouped order, detail/tile_order.cuh). With
// clusters of kCluster blocks the walk is over groups of kCluster tiles stacked along
// m, one per block of the cluster, so that the blocks share B's k-tiles; a group that runs past
// the last tile row gives a block a tile outside C (zero-filled loads, nothing stored).
template <int kCluster = 1>
__device__ __forceinline__ void tile_coords(const WgmmaArgs& a, int t, int* tm, int* tn) {
  const int rows = (a.tiles_m + kCluster - 1) / kCluster;
  const GroupedTile g = grouped_tile(t, rows, a.tiles_n, a.group_rows);
  if constexpr (kCluster == 1) {
    *tm = g.m;
  } else {
    *tm = g.m * kCluster + static_cast<int>(cluster_rank());
  }
  *tn = g.n;
}

// A piece of work: k-tiles [k_begin, k_end) of tile `tile` (the walk's index).
struct Segment {
  int tile, k_begin, k_end;
};

__device__ __forceinline__ int k_tile_count(const WgmmaArgs& a) { return a.k_tiles; }

// Where block b's stream-K range starts, in k-tiles of the stream-K tiles (b = gridDim.x: end).
__device__ __forceinline__ int64_t stream_k_begin(const WgmmaArgs& a, int b) {
  const int64_t per_block = a.stream_k_iters / gridDim.x, extra = a.stream_k_iters % gridDim.x;
  return b * per_block + (b < extra ? b : extra);
}

// Calls f(segment) for this block's work, the producer and the consumers in the same order:
// its whole tiles, then its stream-K range from the last segment back to the first, so that a
// partial tile a block publishes at the end of its range is the first thing it computes, and a
// tile it finishes (at the start of its range) is the last: by then the lower-numbered block
// holding the rest of that tile has long published it. Blocks wait only for lower-numbered
// blocks, which were scheduled first.
// Clusters walk their tile groups the same way, the blocks of a cluster in lockstep.
// kSplit: the split-tiles kernels, whose blocks have one piece each when WgmmaArgs::split_pieces is
// set (only their instantiations carry the code).
template <int kCluster, bool kSplit = false, typename F>
__device__ __forceinline__ void for_each_segment(const WgmmaArgs& a, F&& f) {
  static_assert(!kSplit || kCluster == 1, "split tiles have no clusters");
  const int k_tiles = k_tile_count(a);
  if constexpr (kSplit) {
    if (a.split_pieces > 0) {
      const int piece = blockIdx.x % a.split_pieces;
      f(Segment{static_cast<int>(blockIdx.x) / a.split_pieces,
                static_cast<int>(stream_k_range_begin(k_tiles, a.split_pieces, piece)),
                static_cast<int>(stream_k_range_begin(k_tiles, a.split_pieces, piece + 1))});
      return;
    }
  }
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  for (int t = first; t < a.whole_tiles; t += stride) f(Segment{t, 0, k_tiles});
  if (a.stream_k_iters == 0) return;
  const int64_t begin = stream_k_begin(a, blockIdx.x);
  for (int64_t end = stream_k_begin(a, blockIdx.x + 1); end > begin;) {
    const int64_t last = end - 1;
    const int tile = static_cast<int>(last / k_tiles);
    const int64_t tile_start = static_cast<int64_t>(tile) * k_tiles;
    const int64_t from = max(begin, tile_start);
    f(Segment{a.whole_tiles + tile, static_cast<int>(from - tile_start), static_cast<int>(end - tile_start)});
    end = from;
  }
}

}  // namespace tilekit::cuda::sm90
