// one_block_per_tile.hpp — the one-block-per-tile schedule: a
// grid of one block per C tile, times the k-slices where the kernel splits k (split-K), resident
// as occupancy allows. Its plan, its k-slice counts (shared by the SIMT split-K launch,
// cuda/gemm/simt/schedule_split_k.cuh, and the selector's model, so both count alike) and its
// cost in the tile model.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/schedules/plan.hpp"
#include "core/tile_model_kernel.hpp"

namespace tilekit {

// Split-K's k-slices, asked for or not: at least one, never more than kMaxKSlices (the
// reduction's cost) or than there are k-tiles (no empty slice).
constexpr int64_t kMaxKSlices = 64;
inline int64_t clamp_k_slices(int64_t count, int64_t k_tiles) {
  return std::max<int64_t>(1, std::min<int64_t>({count, kMaxKSlices, k_tiles}));
}

// Split-K's k-slices when the problem names none: as many as fill the blocks resident at once
// (none when the tiles already do), no slice shorter than kSplitKMinSliceK k, clamped as above.
constexpr int64_t kSplitKMinSliceK = 64;
inline int64_t default_k_slices_of(int64_t tiles, int64_t k, int64_t k_tiles,
                                   int64_t resident_blocks) {
  // (No division where the tiles alone fill the slots, the common case at large shapes: the
  // autotuner's model runs this for every split-K choice of every search.)
  const int64_t fill =
      tiles > resident_blocks ? 0 : resident_blocks / std::max<int64_t>(tiles, 1);
  const int64_t count = std::min<int64_t>(fill, k / kSplitKMinSliceK);
  return clamp_k_slices(count, k_tiles);
}
inline int64_t default_k_slices(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk,
                                int64_t resident_blocks) {
  const int64_t tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  return default_k_slices_of(tiles, k, (k + bk - 1) / bk, resident_blocks);
}

struct OneBlockPerTileSchedule : RunsEveryShape {
  static constexpr bool kStreamK = false;
  static constexpr const char* kName = "one_block_per_tile";
  static TileWalkPlan plan(int /*slots*/, int tiles, int /*k_tiles*/) {
    return TileWalkPlan{tiles, tiles, 0};
  }
  // The tiles and k-slices spread over the SMs, the blocks resident on one together, plus the
  // split-K reduction pass where there is more than one slice. `split_k` as the kernel would run
  // it (0: its default); m and n are C's rows and columns in the row-major view.
  static TileModelCost cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                            int64_t k, const TileCounts& counts) {
    TileModelCost c;
    const int64_t tiles = counts.tiles, k_tiles = counts.k_tiles;
    int64_t slices = 1;
    if (km.run_time_split)
      slices = split_k > 0 ? clamp_k_slices(split_k, k_tiles)
                           : default_k_slices_of(tiles, k, k_tiles, km.slots);
    const int64_t on_busiest = km.sms.ceil_of(tiles * slices);
    const int64_t resident = km.blocks_per_sm.value();
    const int64_t full_rounds = km.blocks_per_sm.floor_of(on_busiest),
                  last_round = on_busiest - full_rounds * resident;
    const int64_t slice_k_tiles = ceil_by_small(k_tiles, slices);
    c.busiest_sm_work = (static_cast<double>(full_rounds) * km.co_resident_full +
                         co_resident_time(last_round)) *
                        static_cast<double>(slice_k_tiles);
    if (slices > 1)  // the partial planes read once, C written once, and a launch
      c.reduction_s = static_cast<double>((slices + 1) * m * n * 4) * km.seconds_per_byte + 2e-6;
    return c;
  }
};

}  // namespace tilekit
