// schedule.hpp — the Hopper family's tile schedulers, one home each, and the schedule a kernel is
// built with: a tile scheduler composed with the consumers, the epilogue, the cluster shape and
// the tile order (host side; the walk's device side is tile_walk.cuh).
//
// A tile scheduler declares
//   kTileSchedule  the tag TileDesc carries (registry.hpp), which the selector's tile model reads;
//   plan(slots, units, k_tiles)  how many blocks run and which units go whole, streamed or split
//                  (detail/tile_walk_plan.hpp), `slots` being SMs (or, with clusters, clusters);
//   refuses(sms, units, k_tiles) why it does not run a shape (empty: it does), and kRefuses, that
//                  rule in words for `tilekit list`.
// A new scheduler is one struct here, its walk in tile_walk.cuh if it walks differently, and rows
// in the instance table (instances.cuh).
#pragma once

#include <algorithm>
#include <string>

#include "cuda/gemm/detail/tile_walk_plan.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cuda::sm90 {

using WgmmaPlan = TileWalkPlan;
using cuda::persistent_plan;
using cuda::stream_k_tail_plan;

// What schedulers that refuse nothing declare.
struct RunsEveryShape {
  static std::string refuses(int /*sms*/, int /*units*/, int /*k_tiles*/) { return {}; }
  static constexpr const char* kRefuses = "";
};

// A block per tile, as many blocks as tiles.
struct TilePerBlockScheduler : RunsEveryShape {
  static constexpr TileSchedule kTileSchedule = TileSchedule::kOneBlockPerTile;
  static WgmmaPlan plan(int /*slots*/, int units, int /*k_tiles*/) { return WgmmaPlan{units, units, 0}; }
};

// One block per slot, walking the tiles with stride gridDim.x, every tile whole.
struct PersistentScheduler : RunsEveryShape {
  static constexpr TileSchedule kTileSchedule = TileSchedule::kPersistent;
  static WgmmaPlan plan(int slots, int units, int /*k_tiles*/) { return persistent_plan(slots, units); }
};

// Persistent, with the last partial round plus one full round cut into equal k-ranges (stream-K),
// each cut tile summed in a fixed order by the block holding its last k-tile.
struct StreamKTailScheduler : RunsEveryShape {
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamK;
  static WgmmaPlan plan(int slots, int units, int k_tiles) {
    return stream_k_tail_plan(slots, units, k_tiles);
  }
};

// Stream-K only where the last round fills half the slots or fewer; persistent otherwise.
struct StreamKHalfTailScheduler : RunsEveryShape {
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamKHalfTail;
  static WgmmaPlan plan(int slots, int units, int k_tiles) {
    if (units % slots > slots / 2) return persistent_plan(slots, units);
    return stream_k_tail_plan(slots, units, k_tiles);
  }
};

// Few tiles: each cut into equal k-pieces, a block each (split_tile_pieces, registry.hpp), every
// piece publishing its partial tile and then summing its share of the tile from all of them.
struct SplitTilesScheduler {
  static constexpr TileSchedule kTileSchedule = TileSchedule::kSplitTiles;
  static WgmmaPlan plan(int slots, int units, int k_tiles) {
    return split_tiles_plan(slots, units, k_tiles);
  }
  static constexpr const char* kRefuses =
      "; refuses shapes whose tiles would get fewer than 2 k-pieces of at least 4 k-tiles each "
      "(tiles at least half the SMs, or k short)";
  static std::string refuses(int sms, int units, int k_tiles) {
    if (split_tile_pieces(sms, units, k_tiles) >= 2) return {};
    return "splits only when every tile gets 2 or more k-pieces of at least 4 k-tiles: " +
           std::to_string(units) + " tiles of " + std::to_string(k_tiles) + " k-tiles on " +
           std::to_string(sms) + " SMs give 1 (the persistent kernels run such shapes whole)";
  }
};

// How the consumer warpgroups share the tiles: both on each tile, a 64-row half each
// (kCooperative), or each every other tile whole (kPingPong: one multiplies while the other
// stores).
enum class Consumers { kCooperative, kPingPong };

// How the consumers write a finished tile: each thread its accumulators straight to C
// (kRegisters), or each warp through shared-memory boxes that TMA stores (kTmaStore; where C's
// tensor map cannot be made, the warps store the boxes themselves).
enum class Epilogue { kRegisters, kTmaStore };

// The schedule a kernel is instantiated with: the scheduler's plan, and the other axes as the
// kernel reads them. kClusterM blocks stacked along m share B's k-tiles by TMA multicast; the
// walk hands out groups of kClusterM tiles to clusters, so a persistent plan of clusters becomes
// kClusterM times as many blocks. kGroupRows: tile rows (or cluster rows) walked together, the
// L2-aware order. `Unit`: a type private to the translation unit that instantiates the kernel,
// so that no two units ever share one kernel symbol (a template kernel registered by two
// non-RDC units had its shared-memory opt-in miss its launch).
template <typename Scheduler, Consumers kConsumersN, Epilogue kEpilogueN, int kClusterMN, int kGroupRowsN,
          typename Unit>
struct KernelSchedule {
  static constexpr TileSchedule kTileSchedule = Scheduler::kTileSchedule;
  static constexpr bool kPingPong = kConsumersN == Consumers::kPingPong;
  static constexpr Epilogue kEpilogue = kEpilogueN;
  static constexpr int kClusterM = kClusterMN;
  static constexpr int kGroupRows = kGroupRowsN;
  // With clusters, `slots` are clusters and the scheduler persistent (make_wgmma_entry's rules).
  static WgmmaPlan plan(int slots, int units, int k_tiles) {
    WgmmaPlan p = Scheduler::plan(slots, units, k_tiles);
    p.blocks *= kClusterM;
    return p;
  }
  static std::string refuses(int sms, int units, int k_tiles) {
    return Scheduler::refuses(sms, units, k_tiles);
  }
  static constexpr const char* kRefuses = Scheduler::kRefuses;
};

}  // namespace tilekit::cuda::sm90
