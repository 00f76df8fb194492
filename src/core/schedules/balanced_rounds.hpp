// balanced_rounds.hpp — the balanced-rounds schedule: persistent blocks, every tile whole, but only
// as many blocks as its rounds need. The persistent schedule runs one block per slot, so where the
// last round is partial every slot works through the full rounds and most then idle through the
// last one; here ⌈tiles / rounds⌉ blocks (rounds = ⌈tiles / slots⌉) each walk `rounds` tiles or
// one fewer, and the slots left over idle from the start. The busiest slot's work is the same, so
// is the cost in the tile model; what differs is how many SMs share the GPU's power and L2 while
// the tiles run (measured per shape by the tuner, not modelled). Its plan and its cost; the walk
// is the persistent one (a stride of gridDim.x over whole tiles).
#pragma once

#include <algorithm>

#include "core/schedules/persistent.hpp"
#include "core/schedules/plan.hpp"
#include "core/tile_model_kernel.hpp"

namespace tilekit {

// ⌈tiles / rounds⌉ blocks over every tile whole, rounds = ⌈tiles / slots⌉; no tiles, no blocks.
inline TileWalkPlan balanced_rounds_plan(int slots, int tiles) {
  if (tiles <= 0 || slots <= 0) return persistent_plan(slots, tiles);
  const int rounds = (tiles + slots - 1) / slots;
  return TileWalkPlan{(tiles + rounds - 1) / rounds, tiles, 0};
}

struct BalancedRoundsSchedule : RunsEveryShape {
  static constexpr const char* kName = "balanced_rounds";
  static constexpr bool kStreamK = false;
  static TileWalkPlan plan(int slots, int tiles, int /*k_tiles*/) {
    return balanced_rounds_plan(slots, tiles);
  }
  static TileModelCost cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                            int64_t k, const TileCounts& counts) {
    return PersistentSchedule::cost(km, split_k, m, n, k, counts);
  }
};

}  // namespace tilekit
