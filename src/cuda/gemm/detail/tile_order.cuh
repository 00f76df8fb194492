// tile_order.cuh — the grouped tile order the SIMT ladder (step 09's GroupedRaster) and the
// Hopper family share (device-only).
#pragma once

namespace tilekit::cuda {

// Tile `id` of a walk over tiles_m × tiles_n C tiles that takes `group` tile rows at a time,
// column by column inside the group, so that blocks running together reuse a few A row blocks
// and B column blocks from L2. group = 1 is plain row order.
struct GroupedTile {
  int m, n;
};
__device__ __forceinline__ GroupedTile grouped_tile(int id, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_m = id / per_group * group;
  const int rows = min(tiles_m - first_m, group);
  const int in_group = id % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

}  // namespace tilekit::cuda
