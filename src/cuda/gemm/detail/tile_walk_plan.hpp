// tile_walk_plan.hpp — how a persistent grid shares a GEMM's tiles among its blocks (host only):
// the Hopper family's steps 02, 03 and 07 and the SIMT ladder's steps 16 and 17 plan alike.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tilekit/registry.hpp"  // stream_k_max_pieces

// The walk's arithmetic below runs in the kernels and in the CPU tests alike.
#if defined(__CUDACC__)
#define TILEKIT_WALK_FN __host__ __device__ inline
#else
#define TILEKIT_WALK_FN inline
#endif

namespace tilekit::cuda {

// `blocks` blocks; the walk's first `whole_tiles` tiles go whole, round robin; the k-tiles of the
// rest, end to end, are cut into `blocks` equal stream-K ranges.
// Or (sm90 step 10) `blocks` = tiles × `split_pieces`: block b computes piece b % split_pieces of
// tile b / split_pieces, k-tiles [stream_k_range_begin(k_tiles, pieces, piece), … piece + 1).
struct TileWalkPlan {
  int blocks = 0;
  int whole_tiles = 0;
  int64_t stream_k_iters = 0;
  int split_pieces = 0;
  bool stream_k() const { return stream_k_iters > 0; }
  bool split() const { return split_pieces > 1; }
  bool partial_tiles() const { return stream_k() || split(); }  // a slot and a flag per block
};

// One block per slot (fewer when there are fewer tiles), every tile whole.
inline TileWalkPlan persistent_plan(int slots, int tiles) {
  return TileWalkPlan{std::min(slots, tiles), tiles, 0};
}

// The tiles of the last partial round plus one full round are cut into `slots` equal k-ranges
// (stream-K), the others handed out whole; with no partial round, or fewer than 2 k-tiles a tile,
// persistent_plan. With fewer tiles than slots fewer blocks run: at most one per
// kMinItersPerBlock k-tiles (a shorter range is not worth its partial tile), and at most
// stream_k_max_pieces per tile (registry.hpp: the finishing block adds the pieces in turn).
inline TileWalkPlan stream_k_tail_plan(int slots, int tiles, int k_tiles) {
  constexpr int64_t kMinItersPerBlock = 4;
  const int rounds = tiles / slots, tail = tiles % slots;
  if (tail == 0 || k_tiles < 2) return persistent_plan(slots, tiles);
  const int streamed = tail + (rounds > 0 ? slots : 0);
  const int64_t iters = static_cast<int64_t>(streamed) * k_tiles;
  if (rounds > 0) return TileWalkPlan{slots, tiles - streamed, iters};
  const int64_t most = std::min<int64_t>(
      {slots, iters / kMinItersPerBlock, static_cast<int64_t>(tiles) * stream_k_max_pieces(k_tiles)});
  return TileWalkPlan{static_cast<int>(std::max<int64_t>(1, most)), tiles - streamed, iters};
}

// Sm90 step 10: with few enough tiles, each cut into split_tile_pieces equal k-pieces, a block
// each (registry.hpp); else persistent_plan.
inline TileWalkPlan split_tiles_plan(int slots, int tiles, int k_tiles) {
  const int pieces = split_tile_pieces(slots, tiles, k_tiles);
  if (pieces < 2) return persistent_plan(slots, tiles);
  TileWalkPlan plan;
  plan.blocks = tiles * pieces;
  plan.split_pieces = pieces;
  return plan;
}

// Step 17: the whole rounds go to a kernel of one block per tile, and what is left is streamed.
// A partial round that fills at least half the slots is streamed alone: each block then takes
// half a tile's k-tiles or more, so no tile is cut more than three ways. A thinner one is
// streamed with the last full round (stream_k_tail_plan), lest its few tiles be cut among many
// blocks, each adding the partial tiles of the next in turn. A partial round that fills at
// least kWholeRoundFill of the slots runs whole: streaming could win back at most the idle
// slots' share of one round, less than the stream-K loop and its partial tiles cost (2048²:
// 128 tiles of 128×256 on 132 slots, streamed 0.8% slower than step 15's kernel alone).
inline TileWalkPlan hybrid_plan(int slots, int tiles, int k_tiles) {
  constexpr double kWholeRoundFill = 0.95;
  const int rounds = tiles / slots, tail = tiles % slots;
  if (tail >= kWholeRoundFill * slots) return persistent_plan(slots, tiles);
  if (rounds > 0 && tail > 0 && k_tiles >= 2 && 2 * tail >= slots)
    return TileWalkPlan{slots, tiles - tail, static_cast<int64_t>(tail) * k_tiles};
  return stream_k_tail_plan(slots, tiles, k_tiles);
}

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
