// stream_k_half_tail.hpp — the stream-K half-tail schedule (the
// Hopper family's stream_k_half): stream-K only where the last round of tiles fills half the
// slots or fewer, persistent otherwise. Its plan and its cost in the tile model.
#pragma once

#include <cstdint>

#include "core/schedules/persistent.hpp"
#include "core/schedules/stream_k.hpp"

namespace tilekit {

struct StreamKHalfTailSchedule : RunsEveryShape {
  static constexpr bool kStreamK = true;
  static constexpr const char* kName = "stream_k_half_tail";
  // The rule both the plan and the cost follow: a last round of `tail` tiles on `slots` slots is
  // streamed when it is not empty and fills half the slots or fewer.
  static constexpr bool streams_tail(int64_t tail, int64_t slots) {
    return tail != 0 && 2 * tail <= slots;
  }
  static TileWalkPlan plan(int slots, int tiles, int k_tiles) {
    if (!streams_tail(tiles % slots, slots)) return persistent_plan(slots, tiles);
    return stream_k_tail_plan(slots, tiles, k_tiles);
  }
  static TileModelCost cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                            int64_t k, const TileCounts& counts) {
    const int64_t tail = counts.tiles - km.sms.floor_of(counts.tiles) * km.sms.value();
    if (!streams_tail(tail, km.sms.value()))
      return PersistentSchedule::cost(km, split_k, m, n, k, counts);
    return StreamKSchedule::cost(km, split_k, m, n, k, counts);
  }
};

}  // namespace tilekit
