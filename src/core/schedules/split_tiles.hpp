// split_tiles.hpp — the split-tiles schedule (the Hopper family's
// split_tiles): with few tiles, each cut into equal k-pieces over the SMs, every piece's block
// publishing its partial tile and then summing a 1/pieces share of the tile from all of them;
// it refuses the other shapes (the persistent kernels run them whole). Its piece count, plan,
// refusal and cost in the tile model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/schedules/persistent.hpp"
#include "core/schedules/stream_k.hpp"

namespace tilekit {

// Into how many equal k-pieces the split-tiles schedule cuts each of `tiles` tiles of `k_tiles`
// k-tiles on `slots` SMs: as many as fill the SMs, each piece at least kMinKTilesPerPiece
// k-tiles long; 1 (tiles whole) where that is fewer than 2. Every piece's block publishes its
// partial tile, then sums a 1/pieces share of the tile over all of them, so the fix-up does not
// grow with the pieces as stream-K's does (stream_k_max_pieces). The plan, the refusal and the
// tile model ask here.
inline int split_tile_pieces(int slots, int64_t tiles, int k_tiles) {
  constexpr int kMinKTilesPerPiece = 4;
  if (tiles <= 0) return 1;
  const int64_t pieces = std::min<int64_t>(slots / tiles, k_tiles / kMinKTilesPerPiece);
  return pieces >= 2 ? static_cast<int>(pieces) : 1;
}

// What the split-tiles sum (sum_share) costs a block, in k-iterations of one tile: its
// partial tile written, and a 1/pieces share of the tile read from each of the pieces — one
// tile's worth, as one stream-K fix-up (kStreamKFixUpPerPiece), whatever the number of pieces.
// Not fitted yet.
constexpr double kSplitTilesSum = 2 * kStreamKFixUpPerPiece;

// With few enough tiles, each cut into split_tile_pieces equal k-pieces, a block each; else
// persistent_plan.
inline TileWalkPlan split_tiles_plan(int slots, int tiles, int k_tiles) {
  const int pieces = split_tile_pieces(slots, tiles, k_tiles);
  if (pieces < 2) return persistent_plan(slots, tiles);
  TileWalkPlan plan;
  plan.blocks = tiles * pieces;
  plan.split_pieces = pieces;
  return plan;
}

struct SplitTilesSchedule {
  static constexpr bool kStreamK = false;
  static constexpr const char* kName = "split_tiles";
  static TileWalkPlan plan(int slots, int tiles, int k_tiles) {
    return split_tiles_plan(slots, tiles, k_tiles);
  }
  static constexpr const char* kRefuses =
      "; refuses shapes whose tiles would get fewer than 2 k-pieces of at least 4 k-tiles each "
      "(tiles at least half the SMs, or k short)";
  static std::string refuses(int sms, int64_t tiles, int k_tiles) {
    if (split_tile_pieces(sms, tiles, k_tiles) >= 2) return {};
    return "splits only when every tile gets 2 or more k-pieces of at least 4 k-tiles: " +
           std::to_string(tiles) + " tiles of " + std::to_string(k_tiles) + " k-tiles on " +
           std::to_string(sms) + " SMs give 1 (the persistent kernels run such shapes whole)";
  }
  // Equal pieces summed in shares, or the persistent rounds where it would not split.
  static TileModelCost cost(const TileModelKernel& km, int, int64_t, int64_t, int64_t,
                            const TileCounts& counts) {
    TileModelCost c;
    const int64_t tiles = counts.tiles, k_tiles = counts.k_tiles;
    if (const int pieces = split_tile_pieces(static_cast<int>(km.sms.value()), tiles,
                                             static_cast<int>(k_tiles));
        pieces > 1) {
      c.busiest_sm_work = static_cast<double>(ceil_by_small(k_tiles, pieces)) + kSplitTilesSum;
      return c;
    }
    c.busiest_sm_work = whole_tile_rounds_work(km, counts);
    return c;
  }
};

}  // namespace tilekit
