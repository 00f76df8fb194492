// consumers.cuh — the consumer warpgroups: cooperative (both share each tile, a 64-row half
// each) or ping-pong (each takes every other tile whole), each segment multiplied by its
// mainloop and finished by its epilogue.
#pragma once

#include "cuda/gemm/sm90/epilogue_tma_store.cuh"
#include "cuda/gemm/sm90/mainloop.cuh"
#include "cuda/gemm/sm90/mainloop_a_registers.cuh"
#include "cuda/gemm/sm90/partial_tiles.cuh"

namespace tilekit::cuda::sm90 {

// A segment's sum: published as a partial tile, or completed with the others' and stored.
template <typename P, int kCluster, typename Epi, bool kPermutedRows, bool kCTransposed, bool kSplit>
__device__ __forceinline__ void finish_segment(const WgmmaArgs& args, float (&sum)[P::kAccumulators],
                                               const Segment& seg, int consumer, TmaStoreState& out) {
  if constexpr (kSplit) {
    if (args.split_pieces > 0) {  // split tiles: every piece publishes, then sums its share
      publish_partial<P>(args, sum, consumer, blockIdx.x - blockIdx.x % args.split_pieces);
      sum_share<P, kPermutedRows, kCTransposed>(args, seg, consumer);
      return;
    }
  }
  if (seg.k_end < k_tile_count(args)) {  // the rest of this tile is summed by a higher block
    publish_partial<P>(args, sum, consumer, blockIdx.x);
    return;
  }
  if (seg.k_begin > 0) add_partials<P>(args, sum, seg, consumer);
  int tm, tn;
  tile_coords<kCluster>(args, seg.tile, &tm, &tn);
  Epi::template store_half<P, kPermutedRows, kCTransposed>(args, sum, tm, tn, consumer, out);
}

template <typename P, int kCluster, typename Epi, bool kAMn, bool kBMn, bool kCTransposed,
          bool kPromoteSteps, bool kSplit>
__device__ void consume(const WgmmaArgs& args, const uint8_t* ring_a, const uint8_t* ring_b,
                        uint64_t* full, uint64_t* empty, int consumer, TmaStoreState out) {
  int stage = 0;
  uint32_t phase = 0;
  float acc[P::kAccumulators] = {};  // overwritten by each segment's first wgmma (accumulate = 0)
  float promoted[P::kAccumulators];  // used only with P::kPromote
  for_each_segment<kCluster, kSplit>(args, [&](const Segment& seg) {
    if constexpr (P::kARegisters && kAMn) {
      multiply_segment_a_registers<P>(seg, ring_a, ring_b, full, empty, consumer, stage, phase, acc);
      finish_segment<P, kCluster, Epi, kAMn, kCTransposed, kSplit>(args, acc, seg, consumer, out);
    } else if constexpr (P::kPromote) {
      multiply_segment<P, kCluster, kAMn, kBMn, kPromoteSteps>(seg, ring_a, ring_b, full, empty, consumer,
                                                               stage, phase, acc, promoted);
      finish_segment<P, kCluster, Epi, false, kCTransposed, kSplit>(args, promoted, seg, consumer, out);
    } else {
      multiply_segment<P, kCluster, kAMn, kBMn>(seg, ring_a, ring_b, full, empty, consumer, stage, phase, acc,
                                                acc);
      finish_segment<P, kCluster, Epi, false, kCTransposed, kSplit>(args, acc, seg, consumer, out);
    }
  });
  // The last stores must have read their boxes before the block's shared memory goes, and have
  // written C before the kernel counts as done.
  if (Epi::kAsyncStores && threadIdx.x % 32 == 0) tma_store_wait_all();
}

// Ping-pong: consumer c takes every other segment of the walk and computes its whole
// tile (every 64-row half), so one warpgroup multiplies while the other stores its last tile.
// The ring is shared in walk order: a consumer steps over the other's stages without waiting.
// It starts a tile only when the other has issued its previous one (`turn`): an mbarrier's
// parity tells apart only consecutive phases, so waiting on a stage many laps ahead of the
// producer would be satisfied by an earlier lap's data. With the registers epilogue the turn is handed over once its
// last wgmma group is done; with the TMA-store epilogue as soon as that group is issued, so
// that the other warpgroup's first wgmma queues behind it and the tensor cores do not drain
// between tiles, and the tiles leave through the warp's staging boxes (`out`).
template <typename P, typename Epi, bool kAMn, bool kBMn>
__device__ void consume_ping_pong(const WgmmaArgs& args, const uint8_t* ring_a, const uint8_t* ring_b,
                                  uint64_t* full, uint64_t* empty, uint64_t* turn, int consumer,
                                  TmaStoreState out) {
  constexpr bool kHandOffAtIssue = Epi::kAsyncStores;
  const bool releases = threadIdx.x % 32 == 0;  // one arrival per warp of this warpgroup
  int stage = 0, index = 0, tiles_done = 0;
  uint32_t phase = 0;
  // Overwritten by each tile's first wgmma (accumulate = 0), so left uninitialized: zeroing it
  // here made ptxas serialize every wgmma of the loop (C7515, "non wgmma instructions defining
  // accumulator registers … between start and end of the pipeline stage").
  float acc[P::kHalves][P::kAccumulators];
  for_each_segment<1>(args, [&](const Segment& seg) {
    if (index++ % 2 != consumer) {  // the other warpgroup's tile
      const int advanced = stage + (seg.k_end - seg.k_begin);
      phase ^= (advanced / P::kStages) & 1;
      stage = advanced % P::kStages;
      return;
    }
    // Turn n of consumer 1 follows tile n of consumer 0; turn n ≥ 1 of consumer 0 follows tile
    // n − 1 of consumer 1. Consumer 0 starts its first tile at once.
    if (consumer == 1 || tiles_done > 0)
      barrier_wait(&turn[consumer], static_cast<uint32_t>(consumer == 1 ? tiles_done : tiles_done - 1) & 1);
    int previous = -1;
    for (int kt = seg.k_begin; kt < seg.k_end; ++kt) {
      barrier_wait(&full[stage], phase);
      multiply_stage_whole<P, kAMn, kBMn>(acc, ring_a + stage * P::kAStageBytes,
                                          ring_b + stage * P::kBStageBytes, kt == seg.k_begin);
      if (kHandOffAtIssue && kt + 1 == seg.k_end && releases) barrier_arrive(&turn[1 - consumer]);
      wgmma_wait<1>();
      if (previous >= 0 && releases) barrier_arrive(&empty[previous]);
      previous = stage;
      if (++stage == P::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
#pragma unroll
    for (int h = 0; h < P::kHalves; ++h) fence_accumulators(acc[h]);
    if (releases) {
      barrier_arrive(&empty[previous]);
      if (!kHandOffAtIssue) barrier_arrive(&turn[1 - consumer]);  // the other warpgroup may multiply now
    }
    ++tiles_done;
    int tm, tn;
    tile_coords(args, seg.tile, &tm, &tn);
#pragma unroll
    for (int h = 0; h < P::kHalves; ++h) Epi::template store_half<P, false, false>(args, acc[h], tm, tn, h, out);
  });
  // As in consume: the boxes must be read, and C written, before the block ends.
  if (Epi::kAsyncStores && threadIdx.x % 32 == 0) tma_store_wait_all();
}

}  // namespace tilekit::cuda::sm90
