// persistent.hpp — the persistent schedule: one block per slot (an SM,
// or with clusters a cluster) walks the tiles with stride gridDim.x, every tile whole. Its plan
// and its cost in the tile model: the busiest SM's rounds.
#pragma once

#include <algorithm>

#include "core/schedules/plan.hpp"
#include "core/tile_model_kernel.hpp"

namespace tilekit {

// One block per slot (fewer when there are fewer tiles), every tile whole.
inline TileWalkPlan persistent_plan(int slots, int tiles) {
  return TileWalkPlan{std::min(slots, tiles), tiles, 0};
}

struct PersistentSchedule : RunsEveryShape {
  static constexpr bool kStreamK = false;
  static constexpr const char* kName = "persistent";
  static TileWalkPlan plan(int slots, int tiles, int /*k_tiles*/) {
    return persistent_plan(slots, tiles);
  }
  static TileModelCost cost(const TileModelKernel& km, int, int64_t, int64_t, int64_t,
                            const TileCounts& counts) {
    TileModelCost c;
    c.busiest_sm_work = whole_tile_rounds_work(km, counts);
    return c;
  }
};

}  // namespace tilekit
