// instances.cuh — the SIMT FP32 family's instance table: one row per registered kernel, each naming
// its mainloop, block tiling (tile_shape.hpp), shared layout, tile scheduler and its rank in the
// selector's default order. A new tile or stage variant is one row; a new part is a new value of
// a column (a Mainloop with its header, a Scheduler with its launch).
//
// Each mainloop's rows compile in one translation unit of their own (instances_<mainloop>.cu): a
// non-RDC build keeps one copy of a template kernel per unit, and a shared-memory opt-in made in
// one unit must reach the copy the same unit launches. register_gemm_simt (instances_registers.cu)
// registers every row in table order, the order `tilekit list` shows and in which the selector
// breaks ties of rank.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/kernel_entry.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/simt/shared_layouts.cuh"
#include "cuda/gemm/simt/tile_orders.cuh"
#include "cuda/gemm/simt/tile_shape.hpp"

namespace tilekit::cuda::simt {

// How operand tiles reach shared memory and are multiplied.
enum class Mainloop {
  kThreadTiles,  // registers, one buffer, contiguous thread tiles (mainloop_registers.cuh)
  kWarpTiles,    // registers, one buffer, warp tiles (mainloop_registers.cuh)
  kCpAsync,      // a cp.async ring, edge chunks on branches (mainloop_cp_async.cuh)
  kBranchFree,   // the ring with branch-free edge loads (loads_branch_free.cuh)
  kStraight,     // the ring's loop as one basic block (mainloop_straight.cuh)
  kCrossTile,    // the straight loop, barrier in the last k-step (mainloop_cross_tile.cuh)
  kPacked,       // operands packed as whole-chunk k rows, then cross-tile (mainloop_packed.cuh)
  kSkinnyRows,   // m <= 8: B streamed through registers, k sliced (skinny.cu)
};
enum class SharedLayout { kPadded, kSwizzled };  // shared_layouts.cuh
// Which tiles a block computes and who sums k (tile_orders.cuh and the schedule_* headers).
enum class Scheduler {
  kTileRows,       // one tile per block, whole k, tiles row after row
  kTileGroups,     // one tile per block, whole k, 8 tile rows walked together
  kSplitK,         // kTileGroups with k cut into slices summed in order (schedule_split_k.cuh)
  kStreamK,        // persistent blocks; the last rounds' k-tiles shared (schedule_stream_k.cuh)
  kHybridStreamK,  // whole rounds one block a tile, the rest stream-K (schedule_stream_k.cuh)
  kOwn,            // the kernel plans its own grid (kSkinnyRows)
};

// A row, built by named setters from a base row that names its mainloop and scheduler.
struct Instance {
  const char* former_name = "";  // the stem of its former id (its alias); "" for rows added since
  int step = 0;                  // its place in docs/ladder.md's walk
  Mainloop mainloop = Mainloop::kCpAsync;
  TileShape shape;
  SharedLayout layout = SharedLayout::kPadded;
  Scheduler scheduler = Scheduler::kTileRows;
  int auto_rank = 0;

  constexpr Instance tile(TileShape s) const {
    Instance r = *this;
    r.shape = s;
    return r;
  }
  // A ring of `depth` stages, registers capped for `blocks_per_sm` blocks an SM.
  constexpr Instance ring(int depth, int blocks_per_sm) const {
    Instance r = *this;
    r.shape = shape.ring(depth, blocks_per_sm);
    return r;
  }
  constexpr Instance swizzled() const {
    Instance r = *this;
    r.layout = SharedLayout::kSwizzled;
    return r;
  }
  constexpr Instance scheduled(Scheduler s) const {
    Instance r = *this;
    r.scheduler = s;
    return r;
  }
  // A row added since the family was renamed: no former id to resolve.
  constexpr Instance no_former_id() const {
    Instance r = *this;
    r.former_name = "";
    return r;
  }
  constexpr Instance rank(int auto_rank_value) const {
    Instance r = *this;
    r.auto_rank = auto_rank_value;
    return r;
  }
};

constexpr Instance base(const char* former_name, int step, Mainloop m, Scheduler s) {
  Instance r;
  r.former_name = former_name;
  r.step = step;
  r.mainloop = m;
  r.scheduler = s;
  return r;
}

// ---- tilings ----
// Thread tiles without a warp grid: (block_n / thread_n) × (block_m / thread_m) threads.
constexpr TileShape kT64x64x16 = block_tile(64, 64, 16).with_threads(8, 4);
constexpr TileShape kT128x128x8 = block_tile(128, 128, 8).with_threads(8, 8);
// Warp tiles: warps_m × warps_n warps of lanes_m × (32 / lanes_m) lanes.
constexpr TileShape kW64x64x16 = block_tile(64, 64, 16).with_warps(2, 2, 4).with_threads(8, 4);
constexpr TileShape kW64x128x16 = block_tile(64, 128, 16).with_warps(2, 2, 4).with_threads(8, 8);
constexpr TileShape kW128x128x8 = block_tile(128, 128, 8).with_warps(2, 4, 8).with_threads(8, 8);
constexpr TileShape kW128x128x16 = block_tile(128, 128, 16).with_warps(2, 4, 8).with_threads(8, 8);
constexpr TileShape kW128x256x8 = block_tile(128, 256, 8).with_warps(2, 4, 8).with_threads(8, 16);
constexpr TileShape kW128x256x16 =
    block_tile(128, 256, 16).with_warps(2, 4, 8).with_threads(8, 16);
constexpr TileShape kW256x128x8 = block_tile(256, 128, 8).with_warps(4, 2, 4).with_threads(16, 8);

// ---- the bases: what each former ladder step turned on (docs/ladder.md walks them) ----
constexpr Instance kThreadTiles =
    base("06_vectorized", 6, Mainloop::kThreadTiles, Scheduler::kTileRows);
constexpr Instance kWarpTiles =
    base("07_warp_tiled", 7, Mainloop::kWarpTiles, Scheduler::kTileRows);
constexpr Instance kCpAsync = base("08_cp_async", 8, Mainloop::kCpAsync, Scheduler::kTileRows);
constexpr Instance kCpAsyncLayouts =
    base("09_swizzle_raster", 9, Mainloop::kCpAsync, Scheduler::kTileRows);
constexpr Instance kCpAsyncSplitK = base("10_split_k", 10, Mainloop::kCpAsync, Scheduler::kSplitK);
constexpr Instance kSkinny = base("11_skinny", 11, Mainloop::kSkinnyRows, Scheduler::kOwn);
constexpr Instance kBranchFree =
    base("12_branch_free", 12, Mainloop::kBranchFree, Scheduler::kTileRows);
constexpr Instance kStraight =
    base("13_straight_loop", 13, Mainloop::kStraight, Scheduler::kSplitK);
constexpr Instance kCrossTile = base("14_cross_tile", 14, Mainloop::kCrossTile, Scheduler::kSplitK);
constexpr Instance kPacked = base("15_packed", 15, Mainloop::kPacked, Scheduler::kSplitK);
constexpr Instance kPackedStreamK = base("16_stream_k", 16, Mainloop::kPacked, Scheduler::kStreamK);
constexpr Instance kPackedHybrid =
    base("17_hybrid", 17, Mainloop::kPacked, Scheduler::kHybridStreamK);

// Ranks: higher is tried first by the selector where no tuned entry covers a shape; the tuned
// tables and the tile model decide everywhere else (docs/tuning.md). Equal ranks: the earlier row.
// The measurements behind them are in docs/ladder.md.
constexpr Instance kInstances[] = {
    kThreadTiles.tile(kT64x64x16).rank(8),
    kThreadTiles.tile(kT128x128x8).rank(9),
    kWarpTiles.tile(kW128x128x8).rank(11),
    kWarpTiles.tile(kW64x64x16).rank(10),
    // 2 blocks of 8 warps an SM (registers capped at 128) or 1 block with 128 values a thread.
    kCpAsync.tile(kW128x128x8).ring(3, 2).rank(13),
    kCpAsync.tile(kW128x128x8).ring(4, 2).rank(12),
    kCpAsync.tile(kW64x64x16).ring(4, 4).rank(11),
    kCpAsync.tile(kW256x128x8).ring(3, 1).rank(12),
    kCpAsync.tile(kW128x256x8).ring(2, 1).rank(14),
    kCpAsync.tile(kW128x256x8).ring(3, 1).rank(13),
    kCpAsync.tile(kW128x256x8).ring(4, 1).rank(12),
    kCpAsyncLayouts.tile(kW128x256x8).ring(2, 1).scheduled(Scheduler::kTileGroups).rank(16),
    kCpAsyncLayouts.tile(kW128x256x8).ring(2, 1).swizzled().rank(15),
    kCpAsyncLayouts.tile(kW128x256x8).ring(2, 1).swizzled().scheduled(Scheduler::kTileGroups)
        .rank(15),
    // 16-deep k-tiles: half the barriers and stage switches per FFMA of the 8-deep ones; the
    // 128×128×16 tile leads or ties at more shapes than any other.
    kCpAsyncSplitK.tile(kW128x128x16).ring(3, 2).rank(18),
    kCpAsyncSplitK.tile(kW128x256x8).ring(2, 1).rank(17),
    kCpAsyncSplitK.tile(kW128x128x8).ring(3, 2).rank(16),
    kCpAsyncSplitK.tile(kW64x64x16).ring(4, 4).rank(10),
    kCpAsyncSplitK.tile(kW64x128x16).ring(3, 3).rank(9),
    kCpAsyncSplitK.tile(kW128x256x16).ring(2, 1).rank(8),
    // Where it applies (m <= 8), the memory-bound path beats every tiled kernel.
    kSkinny.rank(19),
    // Level with their cp.async twins (which the earlier rows win ties for).
    kBranchFree.tile(kW128x256x8).ring(2, 1).rank(14),
    kBranchFree.tile(kW128x256x8).ring(3, 1).rank(13),
    kBranchFree.tile(kW128x128x8).ring(4, 2).rank(12),
    kBranchFree.tile(kW64x64x16).ring(4, 4).rank(11),
    kStraight.tile(kW128x128x16).ring(3, 2).rank(20),
    kStraight.tile(kW128x256x8).ring(2, 1).rank(6),
    kStraight.tile(kW128x256x16).ring(2, 1).rank(7),
    kStraight.tile(kW64x128x16).ring(3, 3).rank(5),
    // 64 × 64 tiles, four blocks an SM: four times the blocks of 128 × 128 for shapes of few
    // tiles (256–1024), where the tuner or the tile model picks it.
    kStraight.tile(kW64x64x16).ring(4, 4).no_former_id().rank(4),
    kCrossTile.tile(kW128x128x16).ring(3, 2).rank(21),
    kCrossTile.tile(kW128x256x8).ring(2, 1).rank(19),
    kPacked.tile(kW128x128x16).ring(3, 2).rank(23),
    kPacked.tile(kW128x256x8).ring(2, 1).rank(22),
    kPackedStreamK.tile(kW128x128x16).ring(3, 2).rank(24),
    // Below the other packed rows until measured ahead: untuned `auto` does not take them first.
    kPackedHybrid.tile(kW128x256x8).ring(2, 1).rank(3),
    kPackedHybrid.tile(kW128x128x16).ring(3, 2).rank(2),
};
constexpr size_t kInstanceCount = std::size(kInstances);

// ---- which parts go together, written once ----

constexpr bool is_ring(Mainloop m) {
  return m != Mainloop::kThreadTiles && m != Mainloop::kWarpTiles && m != Mainloop::kSkinnyRows;
}
constexpr bool compatible(const Instance& r) {
  const bool skinny = r.mainloop == Mainloop::kSkinnyRows;
  const bool tiling_ok = skinny || (r.mainloop == Mainloop::kThreadTiles) != r.shape.warp_tiled();
  // The ring mainloops need two stages; the register ones have one buffer.
  const bool stages_ok =
      skinny || (is_ring(r.mainloop) ? r.shape.stages >= 2 : r.shape.stages == 1);
  // Only the edge-branch ring was built with the swizzled layout (it measured slower there).
  const bool layout_ok = r.layout == SharedLayout::kPadded || r.mainloop == Mainloop::kCpAsync;
  bool scheduler_ok = false;
  switch (r.scheduler) {
    case Scheduler::kOwn: scheduler_ok = skinny; break;
    // Without a ring: a 2-D grid of tiles in row order only.
    case Scheduler::kTileRows: scheduler_ok = !skinny && r.mainloop != Mainloop::kPacked; break;
    case Scheduler::kTileGroups: scheduler_ok = r.mainloop == Mainloop::kCpAsync; break;
    // The straight and cross-tile loops read their k range from split-K's arguments.
    case Scheduler::kSplitK:
      scheduler_ok = is_ring(r.mainloop) && r.mainloop != Mainloop::kBranchFree;
      break;
    // The stream-K walk runs the cross-tile loop on packed operands.
    case Scheduler::kStreamK:
    case Scheduler::kHybridStreamK: scheduler_ok = r.mainloop == Mainloop::kPacked; break;
  }
  return tiling_ok && stages_ok && layout_ok && scheduler_ok;
}
constexpr bool all_compatible() {
  for (const Instance& r : kInstances)
    if (!compatible(r)) return false;
  return true;
}
static_assert(all_compatible(), "a row combines parts that do not go together (compatible())");

// ---- from a row to its id and types ----

// The row's tiling as the type the policies take (WarpTilePolicy, ThreadTilePolicy).
template <size_t I>
struct ShapeOf {
  static constexpr TileShape kShape = kInstances[I].shape;
};

template <size_t I>
using LayoutOf = std::conditional_t<kInstances[I].layout == SharedLayout::kSwizzled,
                                    SwizzledLayout, PaddedLayout>;
template <size_t I>
using RasterOf = std::conditional_t<kInstances[I].scheduler == Scheduler::kTileRows, RowRaster,
                                    GroupedRaster<8>>;

// "cp_async", "split_k", ...: the id's words for a row's mainloop and scheduler.
constexpr const char* mainloop_name(Mainloop m) {
  switch (m) {
    case Mainloop::kThreadTiles:
    case Mainloop::kWarpTiles: return "registers";
    case Mainloop::kCpAsync: return "cp_async";
    case Mainloop::kBranchFree: return "branch_free";
    case Mainloop::kStraight: return "straight";
    case Mainloop::kCrossTile: return "cross_tile";
    case Mainloop::kPacked: return "packed";
    case Mainloop::kSkinnyRows: return "skinny";
  }
  return "?";
}

constexpr const char* scheduler_name(Scheduler s) {
  switch (s) {
    case Scheduler::kTileRows: return "rows";
    case Scheduler::kTileGroups: return "grouped";
    case Scheduler::kSplitK: return "split_k";
    case Scheduler::kStreamK: return "stream_k";
    case Scheduler::kHybridStreamK: return "hybrid_stream_k";
    case Scheduler::kOwn: return "";
  }
  return "?";
}

// The row's registry spec: id gemm.cuda.simt.f32.<tile>.<mainloop>[.swizzled].<scheduler>
// (gemm.cuda.simt.f32.skinny_m8 for the skinny kernel), its former id as an alias, its rank.
EntrySpec instance_spec(const Instance& row);

struct IndexedEntry {
  size_t row;
  GemmKernel kernel;
};

// Calls make(std::integral_constant<size_t, I>{}) for every row I whose mainloop is M and keeps
// the entries with their row numbers.
template <Mainloop M, typename Make, size_t... I>
void add_rows_of(std::vector<IndexedEntry>* out, Make&& make, std::index_sequence<I...>) {
  auto one = [&](auto index) {
    constexpr size_t kRow = decltype(index)::value;
    if constexpr (kInstances[kRow].mainloop == M) out->push_back({kRow, make(index)});
  };
  (one(std::integral_constant<size_t, I>{}), ...);
}
template <Mainloop M, typename Make>
void add_rows_of(std::vector<IndexedEntry>* out, Make&& make) {
  add_rows_of<M>(out, std::forward<Make>(make), std::make_index_sequence<kInstanceCount>{});
}

// One per translation unit (instances_<mainloop>.cu), each adding its mainloop's rows.
void make_register_rows(std::vector<IndexedEntry>* out);
void make_cp_async_rows(std::vector<IndexedEntry>* out);
void make_branch_free_rows(std::vector<IndexedEntry>* out);
void make_straight_rows(std::vector<IndexedEntry>* out);
void make_cross_tile_rows(std::vector<IndexedEntry>* out);
void make_packed_rows(std::vector<IndexedEntry>* out);
void make_skinny_rows(std::vector<IndexedEntry>* out);

}  // namespace tilekit::cuda::simt
