// tile_walk_plan.hpp — how a persistent grid shares a GEMM's tiles among its blocks (host only):
// the Hopper family's steps 02, 03 and 07 and the SIMT ladder's steps 16 and 17 plan alike.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tilekit::cuda {

// `blocks` blocks; the walk's first `whole_tiles` tiles go whole, round robin; the k-tiles of the
// rest, end to end, are cut into `blocks` equal stream-K ranges.
struct TileWalkPlan {
  int blocks = 0;
  int whole_tiles = 0;
  int64_t stream_k_iters = 0;
  bool stream_k() const { return stream_k_iters > 0; }
};

// One block per slot (fewer when there are fewer tiles), every tile whole.
inline TileWalkPlan persistent_plan(int slots, int tiles) {
  return TileWalkPlan{std::min(slots, tiles), tiles, 0};
}

// The tiles of the last partial round plus one full round are cut into `slots` equal k-ranges
// (stream-K), the others handed out whole; with no partial round, or fewer than 2 k-tiles a tile,
// persistent_plan. Below kMinItersPerBlock k-tiles per block a range is not worth its partial
// tile, so with fewer tiles than slots fewer blocks run.
inline TileWalkPlan stream_k_tail_plan(int slots, int tiles, int k_tiles) {
  constexpr int64_t kMinItersPerBlock = 4;
  const int rounds = tiles / slots, tail = tiles % slots;
  if (tail == 0 || k_tiles < 2) return persistent_plan(slots, tiles);
  const int streamed = tail + (rounds > 0 ? slots : 0);
  const int64_t iters = static_cast<int64_t>(streamed) * k_tiles;
  const int blocks = rounds > 0 ? slots
                                : static_cast<int>(std::max<int64_t>(
                                      1, std::min<int64_t>(slots, iters / kMinItersPerBlock)));
  return TileWalkPlan{blocks, tiles - streamed, iters};
}

// Step 17: the whole rounds go to a kernel of one block per tile, and what is left is streamed.
// A partial round that fills at least half the slots is streamed alone: each block then takes
// half a tile's k-tiles or more, so no tile is cut more than three ways. A thinner one is
// streamed with the last full round (stream_k_tail_plan), lest its few tiles be cut among many
// blocks, each adding the partial tiles of the next in turn.
inline TileWalkPlan hybrid_plan(int slots, int tiles, int k_tiles) {
  const int rounds = tiles / slots, tail = tiles % slots;
  if (rounds > 0 && tail > 0 && k_tiles >= 2 && 2 * tail >= slots)
    return TileWalkPlan{slots, tiles - tail, static_cast<int64_t>(tail) * k_tiles};
  return stream_k_tail_plan(slots, tiles, k_tiles);
}

}  // namespace tilekit::cuda
