// schedules.hpp — every tile schedule, by the tag a kernel's TileDesc carries (internal, host
// only). Each schedule is one module here, holding its name, plan, refusal, piece counts and cost
// in the selector's tile model: one_block_per_tile.hpp, persistent.hpp, stream_k.hpp,
// stream_k_half_tail.hpp, split_tiles.hpp. A new schedule is a new module, a value of
// TileSchedule (registry.hpp) and a line in each switch below.
#pragma once

#include <cstdint>

#include "core/schedules/one_block_per_tile.hpp"
#include "core/schedules/persistent.hpp"
#include "core/schedules/split_tiles.hpp"
#include "core/schedules/stream_k.hpp"
#include "core/schedules/stream_k_half_tail.hpp"

namespace tilekit {

// "one_block_per_tile", "persistent", … ("unmodelled" for kernels without a tile model).
constexpr const char* schedule_name(TileSchedule s) {
  switch (s) {
    case TileSchedule::kOneBlockPerTile: return OneBlockPerTileSchedule::kName;
    case TileSchedule::kPersistent: return PersistentSchedule::kName;
    case TileSchedule::kStreamK: return StreamKSchedule::kName;
    case TileSchedule::kStreamKHalfTail: return StreamKHalfTailSchedule::kName;
    case TileSchedule::kSplitTiles: return SplitTilesSchedule::kName;
    case TileSchedule::kUnmodelled: break;
  }
  return "unmodelled";
}

// Whether blocks of this schedule cut tiles into k-ranges of their own choosing (stream-K): such
// kernels take no run-time split, and a piece of C is not computed by one block alone.
constexpr bool is_stream_k(TileSchedule s) {
  return s == TileSchedule::kStreamK || s == TileSchedule::kStreamKHalfTail;
}

// The schedule's cost at one shape (tile_model.hpp's tile_model_cost, for a modelled kernel).
inline TileModelCost schedule_cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                                   int64_t k, const TileCounts& counts) {
  switch (km.schedule) {
    case TileSchedule::kPersistent:
      return PersistentSchedule::cost(km, split_k, m, n, k, counts);
    case TileSchedule::kStreamK:
      return StreamKSchedule::cost(km, split_k, m, n, k, counts);
    case TileSchedule::kStreamKHalfTail:
      return StreamKHalfTailSchedule::cost(km, split_k, m, n, k, counts);
    case TileSchedule::kSplitTiles:
      return SplitTilesSchedule::cost(km, split_k, m, n, k, counts);
    case TileSchedule::kOneBlockPerTile:
    case TileSchedule::kUnmodelled:
      break;
  }
  return OneBlockPerTileSchedule::cost(km, split_k, m, n, k, counts);
}

}  // namespace tilekit
