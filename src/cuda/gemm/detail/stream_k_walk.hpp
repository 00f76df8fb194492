// stream_k_walk.hpp — the device side of the stream-K and split-tiles schedules (their plans and
// costs: src/core/schedules/): where a block's share of the streamed k-tiles begins and ends,
// and which partial tiles the block finishing a tile adds. Both families' walks (the Hopper
// family's tile_walk.cuh, the SIMT family's schedule_stream_k.cuh) use it.
#pragma once

#include <cstdint>

#include "core/schedules/split_tiles.hpp"
#include "core/schedules/stream_k.hpp"

// The walk's arithmetic below runs in the kernels and in the CPU tests alike.
#if defined(__CUDACC__)
#define TILEKIT_WALK_FN __host__ __device__ inline
#else
#define TILEKIT_WALK_FN inline
#endif

namespace tilekit::cuda {

// Where block b of `blocks` starts its stream-K range, in k-tiles of the streamed tiles laid end
// to end (b = blocks: where the last range ends): equal ranges, the first iters % blocks of them
// one k-tile longer.
TILEKIT_WALK_FN int64_t stream_k_range_begin(int64_t iters, int blocks, int b) {
  const int64_t per_block = iters / blocks, extra = iters % blocks;
  return b * per_block + (b < extra ? b : extra);
}

// A piece of a stream-K range: k-tiles [k_begin, k_end) of streamed tile `tile` (0: the first
// tile after the whole ones).
struct StreamKPiece {
  int tile, k_begin, k_end;
};

// The last piece of the range [begin, end): its part in the tile holding k-tile end − 1. A block
// walks its range from the end, taking the piece's length off `end` after each piece: only its
// first piece computed can end inside a tile (a partial tile it publishes, one slot a block), and
// only its last can begin inside one (a tile it finishes with the others' partial tiles).
TILEKIT_WALK_FN StreamKPiece last_stream_k_piece(int64_t begin, int64_t end, int k_tiles) {
  const int tile = static_cast<int>((end - 1) / k_tiles);
  const int64_t tile_start = static_cast<int64_t>(tile) * k_tiles;
  const int64_t from = begin > tile_start ? begin : tile_start;
  return StreamKPiece{tile, static_cast<int>(from - tile_start),
                      static_cast<int>(end - tile_start)};
}

// For the block finishing streamed tile `tile`, which adds the lower blocks' partial tiles
// nearest first: once block b's is added, the tile's k-tiles still to add are [0, this).
TILEKIT_WALK_FN int k_tiles_left_below(int64_t iters, int blocks, int b, int tile, int k_tiles) {
  const int64_t start =
      stream_k_range_begin(iters, blocks, b) - static_cast<int64_t>(tile) * k_tiles;
  return start > 0 ? static_cast<int>(start) : 0;
}

}  // namespace tilekit::cuda
