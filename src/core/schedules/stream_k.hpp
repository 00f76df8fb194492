// stream_k.hpp — the stream-K schedule: persistent blocks, with the
// k-iterations of the last partial round plus one full round shared evenly among them; a tile cut
// between blocks is summed in a fixed order by the block holding its last k-tile (bit-identical
// run to run). Its plans (the tail plan of both families, the SIMT hybrid's), how many pieces a
// tile may be cut into, and its cost in the tile model. The walk's device side:
// cuda/gemm/detail/stream_k_walk.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/schedules/persistent.hpp"
#include "core/schedules/plan.hpp"
#include "core/tile_model_kernel.hpp"

namespace tilekit {

// The most pieces a stream-K walk cuts a tile of `k_tiles` k-tiles into when there are fewer
// tiles than SMs. The block finishing a tile adds the other pieces' partial tiles one after
// another, each costing about as much as 4 k-tiles of multiplying (the tile model's
// kStreamKFixUpPerPiece). So p pieces take about k_tiles / p + 4p k-tiles' time, which is least
// at p = sqrt(k_tiles / 4). Without a cap, one 100 × 100 × 30000 bf16 tile (469 k-tiles) went to
// 117 blocks. The block finishing it added 116 partial tiles in turn: 186 µs, against 20 µs for
// cuBLAS (docs/hopper.md).
// The selector's tile model calls this in every search, so it is a square root, not a loop.
inline int stream_k_max_pieces(int k_tiles) {
  int p = static_cast<int>(std::sqrt(k_tiles / 4.0));
  while (4LL * (p + 1) * (p + 1) <= k_tiles) ++p;  // the exact ⌊sqrt(k_tiles / 4)⌋
  while (p > 0 && 4LL * p * p > k_tiles) --p;
  return std::max(p, 2);
}

// What a stream-K walk costs beyond its even share, in k-iterations of one tile: its tiles' pieces
// wait for one another (a share that starts inside a tile adds its partial sums only after the
// earlier piece is done), taken as half of a tile's k-iterations, and each piece's fix-up (the
// partial tile written, read back and added) as 4. Fitted, as co_resident_time was, on the H200
// table's bf16 entries, whose sm90 stream_k_half walk ran 1.5–2.4× its persistent walk's time where
// the even share promised 0.3–0.7× (9 to 64 tiles of 6 to 16 k-iterations, 384³–1024³), and
// 0.7–1.17× where it promised 0.02–0.12× (1 to 16 tiles of 128–257). Both terms were chosen by
// leave-one-out over those entries (`tilekit tune --replay`): the choice nearest the entry's
// fastest kernel most often. docs/tuning.md.
constexpr double kStreamKWaitPerKTile = 0.5;
constexpr double kStreamKFixUpPerPiece = 4;

// The tiles of the last partial round plus one full round are cut into `slots` equal k-ranges
// (stream-K), the others handed out whole; with no partial round, or fewer than 2 k-tiles a tile,
// persistent_plan. With fewer tiles than slots fewer blocks run: at most one per
// kMinItersPerBlock k-tiles (a shorter range is not worth its partial tile), and at most
// stream_k_max_pieces per tile (the finishing block adds the pieces in turn).
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

// The SIMT hybrid scheduler: the whole rounds go to a kernel of one block per tile, and what is
// left is streamed. A partial round that fills at least half the slots is streamed alone: each block then takes
// half a tile's k-tiles or more, so no tile is cut more than three ways. A thinner one is
// streamed with the last full round (stream_k_tail_plan), lest its few tiles be cut among many
// blocks, each adding the partial tiles of the next in turn. A partial round that fills at
// least kWholeRoundFill of the slots runs whole: streaming could win back at most the idle
// slots' share of one round, less than the stream-K loop and its partial tiles cost (2048²:
// 128 tiles of 128×256 on 132 slots, streamed 0.8% slower than the one-block-per-tile kernel alone).
inline TileWalkPlan hybrid_plan(int slots, int tiles, int k_tiles) {
  constexpr double kWholeRoundFill = 0.95;
  const int rounds = tiles / slots, tail = tiles % slots;
  if (tail >= kWholeRoundFill * slots) return persistent_plan(slots, tiles);
  if (rounds > 0 && tail > 0 && k_tiles >= 2 && 2 * tail >= slots)
    return TileWalkPlan{slots, tiles - tail, static_cast<int64_t>(tail) * k_tiles};
  return stream_k_tail_plan(slots, tiles, k_tiles);
}

struct StreamKSchedule : RunsEveryShape {
  static constexpr bool kStreamK = true;
  static constexpr const char* kName = "stream_k";
  static TileWalkPlan plan(int slots, int tiles, int k_tiles) {
    return stream_k_tail_plan(slots, tiles, k_tiles);
  }
  // Even shares, down to 4 k-iterations a block, capped pieces a tile.
  static TileModelCost cost(const TileModelKernel& km, int, int64_t, int64_t, int64_t,
                            const TileCounts& counts) {
    TileModelCost c;
    const int64_t tiles = counts.tiles, k_tiles = counts.k_tiles;
    const double all = static_cast<double>(tiles), per_tile = static_cast<double>(k_tiles);
    const double sms = static_cast<double>(km.sms.value());
    const double most = std::min(sms, all * stream_k_max_pieces(static_cast<int>(k_tiles)));
    const double units = std::clamp(std::floor(all * per_tile / 4), 1.0, most);
    // The pieces of one tile: the SMs that share it when there are fewer tiles than SMs, else
    // about two (a share ends inside a tile and the next one begins there).
    const double pieces = all < units ? std::ceil(units / all) : 2;
    c.busiest_sm_work = all * per_tile / units + kStreamKWaitPerKTile * per_tile +
                        kStreamKFixUpPerPiece * pieces;
    return c;
  }
};

}  // namespace tilekit
