// schedules.hpp — the tile schedules tilekit's families are built with (internal, host only), and
// a schedule's cost by the tag a kernel's TileDesc carries. Each schedule is one module, holding
// its name, plan, refusal, piece counts and cost in the selector's tile model:
// one_block_per_tile.hpp, persistent.hpp, stream_k.hpp, stream_k_half_tail.hpp, split_tiles.hpp
// (included here), balanced_rounds.hpp (by the instance table that uses it). A new schedule is a
// new module, included where it is used; its tag (schedule_tag, plan.hpp) carries its name and
// cost, so nothing lists the schedules.
#pragma once

#include <cstdint>

#include "core/schedules/one_block_per_tile.hpp"
#include "core/schedules/persistent.hpp"
#include "core/schedules/split_tiles.hpp"
#include "core/schedules/stream_k.hpp"
#include "core/schedules/stream_k_half_tail.hpp"

namespace tilekit {

// The schedule's cost at one shape (tile_model.hpp's tile_model_cost, for a modelled kernel).
inline TileModelCost schedule_cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                                   int64_t k, const TileCounts& counts) {
  if (km.schedule == nullptr) return OneBlockPerTileSchedule::cost(km, split_k, m, n, k, counts);
  return km.schedule->cost(km, split_k, m, n, k, counts);
}

}  // namespace tilekit
