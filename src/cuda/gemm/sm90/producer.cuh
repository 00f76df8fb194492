// producer.cuh — operand staging: the producer thread's TMA loads of A and B k-tiles into the
// ring of shared-memory stages (with clusters, B's k-tile shared by multicast), paced by the
// stages' `full` and `empty` mbarriers.
#pragma once

#include "cuda/gemm/sm90/hopper_ptx.cuh"
#include "cuda/gemm/sm90/tile_walk.cuh"

namespace tilekit::cuda::sm90 {

// The tensor maps of a launch, one kernel parameter: A and B, for 3xTF32 their small parts,
// and C for the TMA-store epilogue (valid when WgmmaArgs::c_tma).
struct OperandMaps {
  CUtensorMap a, b, a_small, b_small, c;
};

// A k-tile of one operand into `dst`, for C tile row (A) or column (B) `tile` of `kRows` rows:
// one box of kBk k × kRows (K-major), or kRows / kChunk boxes of kChunk m-or-n × kBk k
// (MN-major: kChunk elements make a 128-byte row; each chunk its own block of kBk such rows).
template <typename P, int kRows, bool kMnMajor>
__device__ __forceinline__ void load_operand(uint8_t* dst, const CUtensorMap* map, int tile, int kt,
                                             uint64_t* full) {
  if constexpr (!kMnMajor) {
    tma_load_2d(dst, map, kt * P::kBk, tile * kRows, full);
  } else {
    constexpr int kChunk = 128 / sizeof(typename P::Element);
#pragma unroll
    for (int j = 0; j < kRows / kChunk; ++j)
      tma_load_2d(dst + j * 128 * P::kBk, map, tile * kRows + kChunk * j, kt * P::kBk, full);
  }
}

// With clusters: this block's share of B's k-tile (1/kCluster of its rows, at its rank's offset),
// delivered to every block of the cluster.
template <typename P, int kCluster, bool kMnMajor>
__device__ __forceinline__ void load_b_share(uint8_t* b_stage, const CUtensorMap* map, int tn, int kt,
                                             uint64_t* full) {
  constexpr int kRows = P::kBn / kCluster;
  const int rank = static_cast<int>(cluster_rank());
  uint8_t* dst = b_stage + rank * (P::kBTileBytes / kCluster);
  const int first_row = tn * P::kBn + rank * kRows;
  constexpr uint16_t kAll = (1u << kCluster) - 1;
  if constexpr (!kMnMajor) {
    tma_load_2d_multicast(dst, map, kt * P::kBk, first_row, full, kAll);
  } else {
#pragma unroll
    for (int j = 0; j < kRows / 64; ++j)
      tma_load_2d_multicast(dst + j * 64 * P::kBk * 2, map, first_row + 64 * j, kt * P::kBk, full, kAll);
  }
}

template <typename P, int kCluster, bool kAMn, bool kBMn, bool kSplit>
__device__ void produce(const WgmmaArgs& args, const OperandMaps& maps, uint8_t* ring_a,
                        uint8_t* ring_b, uint64_t* full, uint64_t* empty) {
  int stage = 0;
  uint32_t phase = 0;
  for_each_segment<kCluster, kSplit>(args, [&](const Segment& seg) {
    int tm, tn;
    tile_coords<kCluster>(args, seg.tile, &tm, &tn);
    for (int kt = seg.k_begin; kt < seg.k_end; ++kt) {
      // With clusters, `empty` completes only when the consumers of every block of the cluster
      // have freed the stage: this block's loads also land in theirs.
      barrier_wait(&empty[stage], phase ^ 1);
      // The whole stage's bytes: with clusters the other blocks' shares of B land here too.
      barrier_arrive_expect_bytes(&full[stage], P::kAStageBytes + P::kBStageBytes);
      uint8_t* a_stage = ring_a + stage * P::kAStageBytes;
      uint8_t* b_stage = ring_b + stage * P::kBStageBytes;
      load_operand<P, P::kBm, kAMn>(a_stage, &maps.a, tm, kt, &full[stage]);
      if constexpr (kCluster == 1)
        load_operand<P, P::kBn, kBMn>(b_stage, &maps.b, tn, kt, &full[stage]);
      else
        load_b_share<P, kCluster, kBMn>(b_stage, &maps.b, tn, kt, &full[stage]);
      if constexpr (P::kParts == 2) {
        load_operand<P, P::kBm, kAMn>(a_stage + P::kATileBytes, &maps.a_small, tm, kt, &full[stage]);
        load_operand<P, P::kBn, kBMn>(b_stage + P::kBTileBytes, &maps.b_small, tn, kt, &full[stage]);
      }
      if (++stage == P::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
  });
}

}  // namespace tilekit::cuda::sm90
