// schedule.hpp — the Hopper family's tile schedulers, one home each, and the schedule a kernel is
// built with: a tile scheduler composed with the consumers, the epilogue, the cluster shape and
// the tile order (host side; the walk's device side is tile_walk.cuh).
//
// A tile scheduler is a schedule module of src/core/schedules/, where its tag (schedule_tag, which
// TileDesc carries and the selector's tile model reads), plan(slots, tiles, k_tiles), refusal
// (refuses, kRefuses) and cost live; `slots` are SMs or, with clusters, clusters. The walk's
// device side is tile_walk.cuh. A new scheduler is a module there, its walk in tile_walk.cuh if
// it walks differently, and rows in the instance table (instances.cuh).
#pragma once

#include <string>
#include <type_traits>

#include "core/schedules/schedules.hpp"
#include "cuda/gemm/detail/stream_k_walk.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cuda::sm90 {

using WgmmaPlan = TileWalkPlan;

using TilePerBlockScheduler = OneBlockPerTileSchedule;  // a block per tile
using PersistentScheduler = PersistentSchedule;         // a block per slot, tiles whole
using StreamKTailScheduler = StreamKSchedule;           // the last rounds' k-tiles shared
using StreamKHalfTailScheduler = StreamKHalfTailSchedule;  // stream-K where the last round is thin
using SplitTilesScheduler = SplitTilesSchedule;         // few tiles cut into equal pieces

// How the consumer warpgroups share the tiles: both on each tile, a 64-row half each
// (kCooperative), or each every other tile whole (kPingPong: one multiplies while the other
// stores).
enum class Consumers { kCooperative, kPingPong };

// How the consumers write a finished tile: an epilogue part, a struct with
//   kStagingBuffers   StoreBox buffers of shared memory per consumer warp (0: none), between the
//                     ring and the barriers (TmaStoreState::boxes points at the warp's first);
//   kAsyncStores      whether its stores leave by TMA: the launch then encodes C's tensor map
//                     (maps.c, WgmmaArgs::c_tma), the consumers wait for them before the block
//                     ends, and ping-pong consumers hand the tensor cores over when the tile's
//                     last wgmma is issued rather than done;
//   store_half<P, kPermutedRows, kCTransposed>(args, acc, tm, tn, half, out)
//                     the 64-row `half` of tile (tm, tn) from the accumulators to C, clipped to
//                     C, each element alpha·v or alpha·v + beta·c rounded as epilogue_value does
//                     (so every epilogue gives the same bits), C read only where beta != 0.
// It sees the accumulators only after the mainloop is done with them, and nothing of the
// mainloop or the scheduler. Parts: DirectStoreEpilogue (epilogue_registers.cuh),
// TmaStoreEpilogue (epilogue_tma_store.cuh), StagedStoreEpilogue (epilogue_staged.cuh).

// The schedule a kernel is instantiated with: the scheduler's plan, and the other axes as the
// kernel reads them. kClusterM blocks stacked along m share B's k-tiles by TMA multicast; the
// walk hands out groups of kClusterM tiles to clusters, so a persistent plan of clusters becomes
// kClusterM times as many blocks. kGroupRows: tile rows (or cluster rows) walked together, the
// L2-aware order. `Unit`: a type private to the translation unit that instantiates the kernel,
// so that no two units ever share one kernel symbol (a template kernel registered by two
// non-RDC units had its shared-memory opt-in miss its launch).
template <typename Scheduler, Consumers kConsumersN, typename EpiloguePartT, int kClusterMN,
          int kGroupRowsN, typename Unit>
struct KernelSchedule {
  using Module = Scheduler;  // its schedule module (src/core/schedules/): tag, plan, refusal
  static constexpr bool kStreamK = Scheduler::kStreamK;
  static constexpr bool kSplitTiles = std::is_same_v<Scheduler, SplitTilesSchedule>;
  static constexpr bool kPingPong = kConsumersN == Consumers::kPingPong;
  using EpiloguePart = EpiloguePartT;
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
