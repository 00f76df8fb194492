// kernel.cuh — the warp-specialised kernel: the block's shared memory (ring, staging boxes,
// mbarriers), one producer warpgroup and two consumer warpgroups, and the instantiation for the
// operands' majors.
#pragma once

#include "cuda/gemm/sm90/consumers.cuh"
#include "cuda/gemm/sm90/producer.cuh"

namespace tilekit::cuda::sm90 {

// Shared memory of a block: the policy's ring and barriers, plus the staging boxes.
template <typename P, typename Schedule>
__host__ __device__ constexpr size_t smem_bytes() {
  static_assert(P::kSmemBytes + staging_bytes<P, Schedule>() <= 227 * 1024,
                "ring and staging must fit the H100/H200 shared memory");
  return P::kSmemBytes + staging_bytes<P, Schedule>();
}

// `Schedule` (schedule.hpp, with its translation unit's private tag) is part of the
// instantiation so that two units never share one kernel symbol (non-RDC builds register a
// template kernel per file; sharing one made the second unit's smem opt-in miss its launch).
// kCTransposed: the A-from-registers view stores C transposed (WgmmaView::c_transposed).
// kPromoteSteps: 3xTF32 with k <= 32 (kStepPromotionMaxTiles), promoted per k-step.
template <typename P, typename Schedule, bool kAMn, bool kBMn, bool kCTransposed = false,
          bool kPromoteSteps = false>
__global__ void __launch_bounds__(P::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ OperandMaps maps, const WgmmaArgs args) {
  extern __shared__ uint8_t smem_raw[];
  // TMA's 128-byte swizzle and the descriptors assume 1024-byte-aligned tiles.
  uint8_t* ring_a = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint8_t* ring_b = ring_a + P::kStages * P::kAStageBytes;
  uint8_t* staging = ring_b + P::kStages * P::kBStageBytes;  // the TMA-store boxes (1024-byte aligned)
  auto* full = reinterpret_cast<uint64_t*>(staging + staging_bytes<P, Schedule>());
  uint64_t* empty = full + P::kStages;
  uint64_t* turn = empty + P::kStages;  // ping-pong only: turn[c] opens consumer c's next tile
  constexpr int kCluster = Schedule::kClusterM;
  // (What the walk assumes of the schedule is checked where the entry is made: make_wgmma_entry.)
  static_assert(Schedule::kPingPong || P::kBm == 128, "two consumers share a tile of two 64-row halves");
  if (threadIdx.x == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      barrier_init(&full[s], 1);                       // the producer's arrive_expect_bytes
      // One arrival per warp of the warpgroups that read the stage (both, or one in ping-pong),
      // in every block of the cluster.
      barrier_init(&empty[s], (Schedule::kPingPong ? 4 : P::kConsumers * 4) * kCluster);
    }
    barrier_init(&turn[0], 4);  // one arrival per warp of the other consumer
    barrier_init(&turn[1], 4);
    if constexpr (kCluster > 1) fence_barrier_init_for_cluster();
  }
  if constexpr (kCluster > 1)
    cluster_sync();  // no block loads into or arrives on another's barriers before they exist
  else
    __syncthreads();
  // The split-tiles walk and sum are compiled into their kernels only.
  constexpr bool kSplit = Schedule::kSplitTiles;
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    registers_shrink<kProducerRegisters>();
    if (threadIdx.x == 0) produce<P, kCluster, kAMn, kBMn, kSplit>(args, maps, ring_a, ring_b, full, empty);
  } else {
    registers_grow<kConsumerRegisters>();
    // Consumer warps are the block's warps 4 … 11: warp w stages in boxes w − 4.
    const TmaStoreState out{&maps.c, staging + (threadIdx.x / 32 - 4) * Schedule::EpiloguePart::kStagingBuffers *
                                               StoreBox::kBytes};
    if constexpr (Schedule::kPingPong)
      consume_ping_pong<P, typename Schedule::EpiloguePart, kAMn, kBMn>(args, ring_a, ring_b, full, empty, turn,
                                                            warpgroup - 1, out);
    else
      consume<P, kCluster, typename Schedule::EpiloguePart, kAMn, kBMn, kCTransposed, kPromoteSteps, kSplit>(
          args, ring_a, ring_b, full, empty, warpgroup - 1, out);
  }
  // The other blocks' consumers may still be arriving on this block's `empty` barriers: its
  // shared memory must outlive them.
  if constexpr (kCluster > 1) cluster_sync();
}

using WgmmaKernelFn = void (*)(OperandMaps, WgmmaArgs);

// The instantiation for the operands' majors, C stored in place or transposed (kCTransposed).
// tf32 operands are K-major in shared memory, but for an A in registers, which may be either.
template <typename P, typename Schedule, bool kCTransposed>
WgmmaKernelFn wgmma_kernel_for_majors(bool a_mn_major, bool b_mn_major) {
  if constexpr (P::kARegisters)
    return a_mn_major ? wgmma_gemm_kernel<P, Schedule, true, false, kCTransposed>
                      : wgmma_gemm_kernel<P, Schedule, false, false, kCTransposed>;
  if constexpr (P::kTf32) return wgmma_gemm_kernel<P, Schedule, false, false, kCTransposed>;
  if (!a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, false, kCTransposed>;
  if (!a_mn_major && b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, true, kCTransposed>;
  if (a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, true, false, kCTransposed>;
  return wgmma_gemm_kernel<P, Schedule, true, true, kCTransposed>;
}

// The instantiation for the operands' majors, for the views that store C transposed (an A in
// registers, a narrow tile: kernel_view) whether it is, and for 3xTF32 whether it promotes per
// k-step (3xTF32 views never swap A and B but with a narrow tile).
template <typename P, typename Schedule>
WgmmaKernelFn wgmma_kernel(bool a_mn_major, bool b_mn_major, bool c_transposed = false,
                           bool promote_steps = false) {
  if constexpr (P::kPromote) {
    if (promote_steps)
      return c_transposed && P::kShortSideAlongN ? wgmma_gemm_kernel<P, Schedule, false, false, true, true>
                                                 : wgmma_gemm_kernel<P, Schedule, false, false, false, true>;
  }
  if constexpr (P::kARegisters || P::kShortSideAlongN) {
    if (c_transposed) return wgmma_kernel_for_majors<P, Schedule, true>(a_mn_major, b_mn_major);
  }
  return wgmma_kernel_for_majors<P, Schedule, false>(a_mn_major, b_mn_major);
}

}  // namespace tilekit::cuda::sm90
