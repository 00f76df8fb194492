// mainloop.cuh — the multiply: wgmma over the ring's stages into FP32 accumulators, for 16-bit,
// tf32 and 3xTF32 operands (3xTF32 with its promotion into IEEE-added sums), freeing each stage
// once its wgmma group is done. A from registers is its own part (mainloop_a_registers.cuh).
#pragma once

#include "cuda/gemm/sm90/hopper_ptx.cuh"
#include "cuda/gemm/sm90/tile_walk.cuh"
#include "cuda/gemm/sm90/wgmma_ops.cuh"

namespace tilekit::cuda::sm90 {

// Descriptors of the wgmma step `kk` of a stage. K-major tiles advance 32 bytes (16 16-bit or
// 8 FP32 elements) along their 128-byte rows; MN-major tiles advance 16 rows of k (2 KB).
// Half h of the tile (its consumer's, or in ping-pong one of the warpgroup's) is A rows
// 64h..64h+63: 8 KB into the tile either way.
template <typename P, bool kAMn>
__device__ __forceinline__ uint64_t a_descriptor(const uint8_t* tile, int half, int kk) {
  const uint8_t* base = tile + half * 64 * 128;
  return kAMn ? smem_descriptor(base + kk * 16 * 128, 64 * P::kBk * 2, 1024)
              : smem_descriptor(base + kk * 32, 16, 1024);
}
template <typename P, bool kBMn>
__device__ __forceinline__ uint64_t b_descriptor(const uint8_t* tile, int kk) {
  return kBMn ? smem_descriptor(tile + kk * 16 * 128, 64 * P::kBk * 2, 1024)
              : smem_descriptor(tile + kk * 32, 16, 1024);
}

// One wgmma of the policy's shape (its n: the accumulators' count, wgmma_ops.cuh) and type.
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void mma(float (&acc)[P::kAccumulators], uint64_t da, uint64_t db,
                                    int accumulate) {
  if constexpr (P::kTf32)
    wgmma_m64k8(acc, da, db, accumulate, 0.0f);
  else
    wgmma_m64k16<kAMn, kBMn>(acc, da, db, accumulate, typename P::Element{});
}

// The wgmma of k8/k16 step `kk` of a stage for the 64 A rows of `half` (0 or 1) of the tile.
// 3xTF32: small·big and big·small before big·big, the small terms first while the accumulator is
// still small.
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void issue_step(float (&acc)[P::kAccumulators], const uint8_t* a_stage,
                                           const uint8_t* b_stage, int half, int kk, int accumulate) {
  const uint64_t da = a_descriptor<P, kAMn>(a_stage, half, kk);
  const uint64_t db = b_descriptor<P, kBMn>(b_stage, kk);
  if constexpr (P::kParts == 2) {
    const uint64_t da_small = a_descriptor<P, kAMn>(a_stage + P::kATileBytes, half, kk);
    const uint64_t db_small = b_descriptor<P, kBMn>(b_stage + P::kBTileBytes, kk);
    mma<P, kAMn, kBMn>(acc, da_small, db, accumulate);
    mma<P, kAMn, kBMn>(acc, da, db_small, 1);
    mma<P, kAMn, kBMn>(acc, da, db, 1);
  } else {
    mma<P, kAMn, kBMn>(acc, da, db, accumulate);
  }
}

// The wgmmas of one stage for the 64 A rows of `half`.
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void issue_stage(float (&acc)[P::kAccumulators], const uint8_t* a_stage,
                                            const uint8_t* b_stage, int half, bool first) {
#pragma unroll
  for (int kk = 0; kk < P::kBk / P::kInstK; ++kk)
    issue_step<P, kAMn, kBMn>(acc, a_stage, b_stage, half, kk, first && kk == 0 ? 0 : 1);
}

// One stage for one consumer's 64-row half, as one wgmma group.
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void multiply_stage(float (&acc)[P::kAccumulators], const uint8_t* a_stage,
                                               const uint8_t* b_stage, int consumer, bool first) {
  wgmma_fence();
  fence_accumulators(acc);
  issue_stage<P, kAMn, kBMn>(acc, a_stage, b_stage, consumer, first);
  wgmma_commit();
  fence_accumulators(acc);
}

// One stage for every half of the tile (ping-pong: one warpgroup owns the whole tile).
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void multiply_stage_whole(float (&acc)[P::kHalves][P::kAccumulators],
                                                     const uint8_t* a_stage, const uint8_t* b_stage, bool first) {
  wgmma_fence();
#pragma unroll
  for (int h = 0; h < P::kHalves; ++h) fence_accumulators(acc[h]);
#pragma unroll
  for (int h = 0; h < P::kHalves; ++h) issue_stage<P, kAMn, kBMn>(acc[h], a_stage, b_stage, h, first);
  wgmma_commit();
#pragma unroll
  for (int h = 0; h < P::kHalves; ++h) fence_accumulators(acc[h]);
}

// Frees a stage: one arrival per consumer warp on its `empty` barrier, in every block of the
// cluster (each block's producer loads into all of them).
template <int kCluster>
__device__ __forceinline__ void release_stage(uint64_t* empty_bar) {
  if constexpr (kCluster == 1) {
    barrier_arrive(empty_bar);
  } else {
#pragma unroll
    for (int cta = 0; cta < kCluster; ++cta) barrier_arrive_in_block(empty_bar, cta);
  }
}

// k-tiles whose promoted sums meet in a group sum before the group is added into the total: a
// chain of k / 32 FP32 adds into one total grows its rounding error with its length; two levels
// of 16 and k / 512 adds keep 3xTF32 within 2x SGEMM's error (docs/hopper.md, "Two-level
// promotion").
constexpr int kPromoteGroupTiles = 16;

// 3xTF32 problems of at most this many k-tiles (k <= 32) promote every k-step's sum instead of
// every k-tile's, in their own instantiation of the kernel (kPromoteSteps, chosen at launch).
// Within a wgmma group the tensor cores add each k8 step into the accumulator truncated (toward
// zero), so a k-tile's sum carries twelve such errors (three wgmmas per k8 step) before the IEEE
// add. At k = 16 and 32 the whole product is one k-tile, SGEMM's error is that of a few
// roundings, and only a sum per k-step keeps 3xTF32 within 2x of it (docs/hopper.md, "Promotion
// per k-step"). Longer problems keep the k-tile sums, already within 2x: a wait per k-step costs
// them about a third of the speed. The choice is made at launch: a run-time branch per k-tile
// slowed the long stream-K walks, and two loops in one kernel made ptxas serialize the wgmmas
// (C7512).
constexpr int kStepPromotionMaxTiles = 1;

// Adds a finished wgmma sum into the group sum (`first`: the group starts with it).
template <typename P>
__device__ __forceinline__ void add_into_group(float (&group)[P::kAccumulators],
                                               const float (&acc)[P::kAccumulators], bool first) {
#pragma unroll
  for (int i = 0; i < P::kAccumulators; ++i) group[i] = first ? acc[i] : group[i] + acc[i];
}

// One k-tile of 3xTF32 into the group sum, as one wgmma group or (kPerStep) one per k-step,
// each waited for and added with IEEE adds. The stage is released as soon as the last wgmma
// that reads it is done, before the adds (released after them measured slower: docs/hopper.md,
// "Tried and not kept"). `grouped`: k-tiles already in `group`.
template <typename P, int kCluster, bool kAMn, bool kBMn, bool kPerStep>
__device__ __forceinline__ void multiply_stage_promoting(float (&acc)[P::kAccumulators],
                                                         float (&group)[P::kAccumulators],
                                                         const uint8_t* a_stage, const uint8_t* b_stage,
                                                         uint64_t* empty_bar, bool releases, int consumer,
                                                         int grouped) {
  if constexpr (!kPerStep) {
    multiply_stage<P, kAMn, kBMn>(acc, a_stage, b_stage, consumer, true);
    wgmma_wait<0>();
    fence_accumulators(acc);
    if (releases) release_stage<kCluster>(empty_bar);
    add_into_group<P>(group, acc, grouped == 0);
  } else {
    constexpr int kSteps = P::kBk / P::kInstK;
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      wgmma_fence();
      fence_accumulators(acc);
      issue_step<P, kAMn, kBMn>(acc, a_stage, b_stage, consumer, kk, 0);
      wgmma_commit();
      wgmma_wait<0>();
      fence_accumulators(acc);
      if (kk == kSteps - 1 && releases) release_stage<kCluster>(empty_bar);
      add_into_group<P>(group, acc, grouped == 0 && kk == 0);
    }
  }
}

// One segment's k-tiles into `acc`. With promotion (P::kPromote) every k-tile's wgmma sum starts
// fresh and is added into a group sum once it is done (kPromoteSteps: every k-step's), every
// kPromoteGroupTiles k-tiles (and at the segment's end) the group sum into `total`; otherwise one
// group stays in flight and `total` is unused. Frees every stage it read.
template <typename P, int kCluster, bool kAMn, bool kBMn, bool kPromoteSteps = false>
__device__ __forceinline__ void multiply_segment(const Segment& seg, const uint8_t* ring_a,
                                                 const uint8_t* ring_b, uint64_t* full, uint64_t* empty,
                                                 int consumer, int& stage, uint32_t& phase,
                                                 float (&acc)[P::kAccumulators],
                                                 float (&total)[P::kAccumulators]) {
  const bool releases = threadIdx.x % 32 == 0;  // one arrival per consumer warp
  int previous = -1;
  float group[P::kPromote ? P::kAccumulators : 1];
  int grouped = 0;  // k-tiles in `group`
  for (int kt = seg.k_begin; kt < seg.k_end; ++kt) {
    barrier_wait(&full[stage], phase);
    const uint8_t* a_stage = ring_a + stage * P::kAStageBytes;
    const uint8_t* b_stage = ring_b + stage * P::kBStageBytes;
    if constexpr (P::kPromote) {
      multiply_stage_promoting<P, kCluster, kAMn, kBMn, kPromoteSteps>(
          acc, group, a_stage, b_stage, &empty[stage], releases, consumer, grouped);
      if (++grouped == kPromoteGroupTiles || kt + 1 == seg.k_end) {
        const bool first = kt + 1 - seg.k_begin <= kPromoteGroupTiles;
#pragma unroll
        for (int i = 0; i < P::kAccumulators; ++i) total[i] = first ? group[i] : total[i] + group[i];
        grouped = 0;
      }
    } else {
      multiply_stage<P, kAMn, kBMn>(acc, a_stage, b_stage, consumer, kt == seg.k_begin);
      wgmma_wait<1>();  // the previous k-tile's group is done: its stage may be refilled
      if (previous >= 0 && releases) release_stage<kCluster>(&empty[previous]);
      previous = stage;
    }
    if (++stage == P::kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
  if constexpr (!P::kPromote) {
    wgmma_wait<0>();
    fence_accumulators(acc);
    if (releases) release_stage<kCluster>(&empty[previous]);
  }
}

}  // namespace tilekit::cuda::sm90
