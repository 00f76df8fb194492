// wgmma_gemm.cuh — the warp-specialised TMA + wgmma GEMM the Hopper steps share (sm_90a).
//
// One block = three warpgroups around a ring of `kStages` shared-memory stages:
//   producer  (warpgroup 0, one thread): waits until a stage is empty, announces its bytes on
//             the stage's `full` mbarrier, and issues the TMA loads of the next A and B k-tile.
//   consumers (warpgroups 1, 2): each owns 64 rows of the 128-row C tile; waits until a stage
//             is full, issues its wgmma on it (a k-tile is one 128-byte row: 64 16-bit or 32
//             tf32 elements), keeps one wgmma group in flight and frees the stage before last by
//             arriving on its `empty` mbarrier.
// The producer gives registers away (setmaxnreg) so that each consumer thread can keep its
// 64 × BN / 128 FP32 accumulators. Odd m, n, k: TMA zero-fills what lies past the edges and
// the epilogue stores only elements inside C. Blocks walk the tile list from blockIdx.x with
// stride gridDim.x; each step's `Schedule` says how many blocks (a tile each in step 01, one per
// SM from step 02), whether the tail is shared as stream-K ranges (step 03) and whether the
// consumers take whole tiles in turn (ping-pong, step 05), and whether blocks come in clusters
// that share B's k-tiles by TMA multicast (Schedule::kClusterM, step 06), and whether the
// consumers store C straight from registers or stage it in shared memory for TMA stores
// (Schedule::kEpilogue, step 07). Step 04's tf32 operands are read in place through rounding
// tensor maps where they are K-major, else prepared K-major in the workspace first
// (tma_operands.hpp).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/common/per_device_cache.hpp"
#include "cuda/gemm/detail/tile_order.cuh"
#include "cuda/gemm/detail/tile_walk_plan.hpp"
#include "cuda/gemm/sm90/hopper_ptx.cuh"
#include "cuda/gemm/sm90/tma_operands.hpp"
#include "cuda/gemm/sm90/wgmma_ops.cuh"

namespace tilekit::cuda::sm90 {

// How the tensor cores see the operands: the element type in shared memory and how many parts
// each FP32 input is split into (tf32: 1; 3xTF32: 2, a big and a small TF32 part), and whether
// an MN-major A reaches the wgmma through registers (kTf32ARegisters, step 09).
enum class Operands { k16Bit, kTf32, kTf32x3, kTf32ARegisters };

// How the consumers write a finished tile: each thread its accumulators straight to C
// (kRegisters), or each warp through shared-memory boxes that TMA stores (kTmaStore, step 07;
// used where C's tensor map can be made, otherwise kRegisters).
enum class Epilogue { kRegisters, kTmaStore };

// A tile policy: element type (bf16, f16, or float read as tf32), C tile kBm × kBn, k-tiles of
// 128-byte rows (64 16-bit or 32 FP32 elements), ring depth. kBm is 128 (two 64-row halves: one
// per consumer, or both for one ping-pong consumer) or 64 (ping-pong only: one half).
template <typename T, int kBnN, int kStagesN, Operands kOperandsN = Operands::k16Bit, int kBmN = 128>
struct WgmmaPolicy {
  using Element = T;
  static constexpr Operands kOperands = kOperandsN;
  static constexpr bool kTf32 = kOperands != Operands::k16Bit;
  static constexpr int kParts = kOperands == Operands::kTf32x3 ? 2 : 1;
  static constexpr bool kARegisters = kOperands == Operands::kTf32ARegisters;
  // 3xTF32 adds each k-tile's wgmma sum into FP32 registers with IEEE adds: the tensor cores'
  // own FP32 accumulation does not round to nearest, and over k = 16384 its error grew to 310x
  // SGEMM's (docs/hopper.md). Needs a second set of accumulators.
  static constexpr bool kPromote = kOperands == Operands::kTf32x3;
  static constexpr int kBm = kBmN, kBn = kBnN, kBk = 128 / sizeof(T), kStages = kStagesN;
  static constexpr int kHalves = kBm / 64;  // 64-row halves of the tile, one wgmma each per k-step
  static constexpr int kInstK = 32 / sizeof(T);  // k of one wgmma: 16 (16-bit), 8 (tf32)
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kATileBytes = kBm * 128;  // one part
  static constexpr int kBTileBytes = kBn * 128;
  static constexpr int kAStageBytes = kParts * kATileBytes;
  static constexpr int kBStageBytes = kParts * kBTileBytes;
  static constexpr int kAccumulators = kBn / 2;  // per consumer thread: 64 × kBn / 128
  // Ring, then 2 mbarriers per stage and 2 for the ping-pong turns; 1 KB of slack to align the
  // ring to the swizzle period.
  static constexpr size_t kSmemBytes =
      static_cast<size_t>(kStages) * (kAStageBytes + kBStageBytes) + 16 * kStages + 16 + 1024;
  static_assert(std::is_same_v<T, float> == kTf32, "tf32 modes read FP32 elements");
  static_assert(!kPromote || kBn == 128, "two sets of 128 x 256 accumulators do not fit");
  static_assert(kBn == 128 || kBn == 256, "wgmma_ops.cuh instantiates n = 128 and 256");
  static_assert(kBm == 128 || kBm == 64, "tiles are one or two 64-row wgmma halves");
  static_assert(kSmemBytes <= 227 * 1024, "the ring must fit the H100/H200 shared memory");

  static std::string suffix() {
    return std::to_string(kBm) + "x" + std::to_string(kBn) + "x" + std::to_string(kBk) + "_s" +
           std::to_string(kStages);
  }
  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm;
    t.block_n = kBn;
    t.block_k = kBk;
    t.warp_m = 64;  // one consumer warpgroup
    t.warp_n = kBn;
    t.stages = kStages;
    t.threads = kThreads;
    return t;
  }
};

// Registers per thread after setmaxnreg: 128·40 + 256·232 = 64512 ≤ 65536 per block.
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;

// Step 07's staging: each consumer warp owns kBuffers boxes of its 16 rows × 32 columns of C
// (128-byte rows in TMA's 128-byte swizzle), filling one while TMA reads the other. (Measured:
// 5 boxes beside a 3-stage ring instead of 2 beside 4 stages, bf16 128 × 256: level under ncu at
// 4096 and 8192, 1–4% slower in the bench.)
struct StoreBox {
  static constexpr int kRows = 16, kCols = 32, kBytes = kRows * kCols * 4, kBuffers = 2;
};

// Shared memory of a block: the policy's ring and barriers, plus the staging boxes of a step
// whose epilogue stores through TMA (between the ring and the barriers, 1024-byte aligned).
template <typename P, typename Schedule>
__host__ __device__ constexpr size_t staging_bytes() {
  return Schedule::kEpilogue == Epilogue::kTmaStore ? P::kConsumers * 4 * StoreBox::kBuffers * StoreBox::kBytes
                                                    : 0;
}
template <typename P, typename Schedule>
__host__ __device__ constexpr size_t smem_bytes() {
  static_assert(P::kSmemBytes + staging_bytes<P, Schedule>() <= 227 * 1024,
                "ring and staging must fit the H100/H200 shared memory");
  return P::kSmemBytes + staging_bytes<P, Schedule>();
}

struct WgmmaArgs {
  int m = 0, n = 0, k = 0;  // the row-major view (tma_operands.hpp)
  int tiles_m = 0, tiles_n = 0, k_tiles = 0;
  int group_rows = 1;       // tile rows walked together (L2-aware order)
  float alpha = 1, beta = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  bool c_pairs = false;     // ldc even and C 8-byte aligned: stores of 2 floats
  bool c_tma = false;       // step 07: C has a tensor map (OperandMaps::c) to store tiles through
  // Stream-K tail (step 03; zero elsewhere): the walk's first `whole_tiles` tiles go to blocks
  // whole, round robin; the k-tiles of the rest are cut into gridDim.x contiguous ranges
  // (stream_k_begin). A tile cut between blocks is summed by the block holding its last k-tile
  // from the others' partial tiles (`partials`, one slot per block, published on `flags`).
  int whole_tiles = 0;
  int64_t stream_k_iters = 0;  // k-tiles of the stream-K tiles, all together
  // Step 10 (0 elsewhere): each tile cut into this many equal k-pieces, block b computing piece
  // b % split_pieces of tile b / split_pieces; each publishes its partial tile, then sums its
  // share of the tile from all of them (sum_share).
  int split_pieces = 0;
  float* partials = nullptr;
  int* flags = nullptr;
};

// Tile `t` of the walk → its tile row and column (grouped order, detail/tile_order.cuh). With
// clusters of kCluster blocks (step 06) the walk is over groups of kCluster tiles stacked along
// m, one per block of the cluster, so that the blocks share B's k-tiles; a group that runs past
// the last tile row gives a block a tile outside C (zero-filled loads, nothing stored).
template <int kCluster = 1>
__device__ __forceinline__ void tile_coords(const WgmmaArgs& a, int t, int* tm, int* tn) {
  const int rows = (a.tiles_m + kCluster - 1) / kCluster;
  const GroupedTile g = grouped_tile(t, rows, a.tiles_n, a.group_rows);
  if constexpr (kCluster == 1) {
    *tm = g.m;
  } else {
    *tm = g.m * kCluster + static_cast<int>(cluster_rank());
  }
  *tn = g.n;
}

// A piece of work: k-tiles [k_begin, k_end) of tile `tile` (the walk's index).
struct Segment {
  int tile, k_begin, k_end;
};

__device__ __forceinline__ int k_tile_count(const WgmmaArgs& a) { return a.k_tiles; }

// Where block b's stream-K range starts, in k-tiles of the stream-K tiles (b = gridDim.x: end).
__device__ __forceinline__ int64_t stream_k_begin(const WgmmaArgs& a, int b) {
  const int64_t per_block = a.stream_k_iters / gridDim.x, extra = a.stream_k_iters % gridDim.x;
  return b * per_block + (b < extra ? b : extra);
}

// Calls f(segment) for this block's work, the producer and the consumers in the same order:
// its whole tiles, then its stream-K range from the last segment back to the first, so that a
// partial tile a block publishes at the end of its range is the first thing it computes, and a
// tile it finishes (at the start of its range) is the last: by then the lower-numbered block
// holding the rest of that tile has long published it. Blocks wait only for lower-numbered
// blocks, which were scheduled first.
// Clusters walk their tile groups the same way, the blocks of a cluster in step.
// kSplit: step 10's kernels, whose blocks have one piece each when WgmmaArgs::split_pieces is
// set (only their instantiations carry the code).
template <int kCluster, bool kSplit = false, typename F>
__device__ __forceinline__ void for_each_segment(const WgmmaArgs& a, F&& f) {
  static_assert(!kSplit || kCluster == 1, "step 10 has no clusters");
  const int k_tiles = k_tile_count(a);
  if constexpr (kSplit) {
    if (a.split_pieces > 0) {
      const int piece = blockIdx.x % a.split_pieces;
      f(Segment{static_cast<int>(blockIdx.x) / a.split_pieces,
                static_cast<int>(stream_k_range_begin(k_tiles, a.split_pieces, piece)),
                static_cast<int>(stream_k_range_begin(k_tiles, a.split_pieces, piece + 1))});
      return;
    }
  }
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  for (int t = first; t < a.whole_tiles; t += stride) f(Segment{t, 0, k_tiles});
  if (a.stream_k_iters == 0) return;
  const int64_t begin = stream_k_begin(a, blockIdx.x);
  for (int64_t end = stream_k_begin(a, blockIdx.x + 1); end > begin;) {
    const int64_t last = end - 1;
    const int tile = static_cast<int>(last / k_tiles);
    const int64_t tile_start = static_cast<int64_t>(tile) * k_tiles;
    const int64_t from = max(begin, tile_start);
    f(Segment{a.whole_tiles + tile, static_cast<int>(from - tile_start), static_cast<int>(end - tile_start)});
    end = from;
  }
}

// ---- producer -----------------------------------------------------------------------------------

// The tensor maps of a launch, one kernel parameter: A and B, for 3xTF32 their small parts,
// and C for a step that stores through TMA (valid when WgmmaArgs::c_tma).
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

// Step 06: this block's share of B's k-tile (1/kCluster of its rows, at its rank's offset),
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

// ---- consumers ----------------------------------------------------------------------------------

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

// One wgmma of the policy's shape and type.
template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void mma(float (&acc)[P::kAccumulators], uint64_t da, uint64_t db,
                                    int accumulate) {
  if constexpr (P::kTf32) {
    if constexpr (P::kBn == 256)
      wgmma_m64n256k8(acc, da, db, accumulate, 0.0f);
    else
      wgmma_m64n128k8(acc, da, db, accumulate, 0.0f);
  } else if constexpr (P::kBn == 256) {
    wgmma_m64n256k16<kAMn, kBMn>(acc, da, db, accumulate, typename P::Element{});
  } else {
    wgmma_m64n128k16<kAMn, kBMn>(acc, da, db, accumulate, typename P::Element{});
  }
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

// ---- step 09: A through registers --------------------------------------------------------------

// The row of the C tile (and so of the A tile) that a consumer thread's accumulator row r holds
// (r = 0 … 15 of its warp's 16: lane/4, or lane/4 + 8). In order, but for an MN-major A read into
// registers (kPermuted, step 09): stored m-contiguous, the 8 rows a k column's loads take would
// fill only two of a 128-byte row's eight 16-byte chunks, and the four k columns of one load
// would meet in the same banks. A warp's rows are instead rows {0–3, 16–19} (r < 8) and
// {4–7, 20–23} (r ≥ 8) of a 32-row chunk, 8 further for the odd warp: chunks four apart, which the
// 128-byte swizzle (chunk XOR k % 8) spreads over all eight for the four k of one load.
template <bool kPermuted>
__device__ __forceinline__ int accumulator_row(int half, int warp, int r) {
  if constexpr (!kPermuted) return half * 64 + warp * 16 + r;
  return half * 64 + (warp / 2) * 32 + (warp % 2) * 8 + ((r % 8) / 4) * 16 + (r / 8) * 4 + r % 4;
}

// Byte offset of A element (row, k) in an MN-major FP32 stage tile as TMA's 128-byte swizzle lays
// it out: blocks of kBk = 32 lines of 128 bytes (one line per k) holding 32 rows each, 16-byte
// chunk c of a line at c XOR line % 8.
__device__ __forceinline__ uint32_t mn_major_a_offset(int row, int k) {
  return (row / 32) * 4096 + k * 128 + ((((row % 32) / 4) ^ (k % 8)) * 16) + (row % 4) * 4;
}

// This thread's A fragment of wgmma k-step kk (k = 8kk … 8kk + 7) of tile half `half`: its rows
// r = lane/4 and lane/4 + 8, k = lane%4 and lane%4 + 4, in the order the wgmma takes them. The
// tile holds TF32 values already (TMA rounded them on the way in, or the pre-pass did).
__device__ __forceinline__ void load_a_fragment(const uint8_t* a_stage, int half, int kk, uint32_t (&frag)[4]) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const auto base = static_cast<uint32_t>(__cvta_generic_to_shared(a_stage));
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = accumulator_row<true>(half, warp, lane / 4 + 8 * (i % 2));
    const int k = 8 * kk + lane % 4 + 4 * (i / 2);
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(frag[i]) : "r"(base + mn_major_a_offset(row, k)));
  }
}

// Registers an in-flight wgmma reads: kept (the compiler sees them used) until this point.
template <int kSteps>
__device__ __forceinline__ void fence_fragments(uint32_t (&frag)[kSteps][4]) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(frag[s][i])::"memory");
}

// The C element at `c` from its accumulator: alpha·v, or alpha·v + beta·c. BLAS: beta = 0 never
// reads C. One rounding sequence for every element and both epilogues: `alpha * v + beta * c`
// may be contracted as fma(alpha, v, beta·c) or fma(beta, c, alpha·v), per code path, and a C
// element's bits would depend on where it lies in the launch (see alpha_acc_beta_c in the
// ladder's common header).
__device__ __forceinline__ float epilogue_value(const WgmmaArgs& a, float v, const float* c) {
  return a.beta == 0.0f ? a.alpha * v : __fmaf_rn(a.alpha, v, __fmul_rn(a.beta, *c));
}

__device__ __forceinline__ void store_pair(const WgmmaArgs& a, int row, int col, float v0, float v1) {
  if (row >= a.m || col >= a.n) return;
  float* p = a.c + static_cast<int64_t>(row) * a.ldc + col;
  const bool both = col + 1 < a.n;
  v0 = epilogue_value(a, v0, p);
  if (both) v1 = epilogue_value(a, v1, p + 1);
  if (both && a.c_pairs) {
    *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  } else {
    p[0] = v0;
    if (both) p[1] = v1;
  }
}

// wgmma's accumulator layout (m64nN, FP32): warp w of the warpgroup holds accumulator rows
// 16w..16w+15 (the tile rows accumulator_row gives: permuted for step 09's MN-major A); for
// each 8-column group j, lane l holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) + {0, 1}.
template <typename P, bool kPermutedRows = false>
__device__ __forceinline__ void store_tile(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                           int tm, int tn, int half) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row = tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4);
  const int row8 = tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8);
  const int col0 = tn * P::kBn + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < P::kBn / 8; ++j) {
    store_pair(a, row, col0 + 8 * j, acc[4 * j], acc[4 * j + 1]);
    store_pair(a, row8, col0 + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

// Step 09's C stored transposed (WgmmaView::c_transposed): view element (row, col) at
// c[col · ldc + row], each lane storing its floats down the view's columns. (Tried and not kept:
// a 4 × 4 transpose by shuffles within each quad of lanes, so that each lane stored four
// consecutive floats as one float4: half the L2 write sectors, but level in the bench at 4096
// and 8192, so the simpler stores stayed.)
template <typename P, bool kPermutedRows>
__device__ __forceinline__ void store_tile_transposed(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                                      int tm, int tn, int half) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int rows[2] = {tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4),
                       tm * P::kBm + accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8)};
  const int col0 = tn * P::kBn + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < P::kBn / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {  // acc[4j + e]: row rows[e / 2], column col0 + 8j + e % 2
      const int row = rows[e / 2], col = col0 + 8 * j + e % 2;
      if (row >= a.m || col >= a.n) continue;
      float* p = a.c + static_cast<int64_t>(col) * a.ldc + row;
      *p = epilogue_value(a, acc[4 * j + e], p);
    }
}

// ---- step 07: C through shared memory and TMA stores ---------------------------------------------

// Where a consumer warp stages its tiles: its boxes and how many it has handed to TMA so far.
struct TmaStoreState {
  const CUtensorMap* map = nullptr;  // C's
  uint8_t* boxes = nullptr;          // StoreBox::kBuffers boxes of this warp
  int issued = 0;
};

// Where row r, column `col` of a staging box lies, in bytes from its start. Rows are 128 bytes
// whose 16-byte chunks TMA's 128-byte swizzle permutes (chunk XOR row % 8): the 8 rows a warp
// writes for one 8-column group land in 8 different chunk positions, two wavefronts per 256-byte
// store.
__device__ __forceinline__ int staged_offset(int r, int col) {
  const int chunk = (col / 4) ^ (r % 8);
  return r * 128 + chunk * 16 + (col % 4) * 4;
}

// The float pair at row r, column `col` (even) of a staging box.
__device__ __forceinline__ float2* staged_pair(uint8_t* box, int r, int col) {
  return reinterpret_cast<float2*>(box + staged_offset(r, col));
}

// Both elements of a pair for the staging box; outside C (clipped by the TMA store) they are 0
// and C is not read there.
__device__ __forceinline__ float2 staged_values(const WgmmaArgs& a, int row, int col, float v0, float v1) {
  const float* p = a.c + static_cast<int64_t>(row) * a.ldc + col;
  const bool in_rows = row < a.m;
  return make_float2(in_rows && col < a.n ? epilogue_value(a, v0, p) : 0.0f,
                     in_rows && col + 1 < a.n ? epilogue_value(a, v1, p + 1) : 0.0f);
}

// This warp's 16 rows of the tile, 32 columns at a time: the warp writes a box (waiting first
// until TMA has read what the box held before), fences it for the async proxy, and one lane
// issues its TMA store. Nobody waits for the stores to reach C: the consumers go on to the next
// tile while TMA drains the boxes (step 02's epilogue stopped the tensor cores while every
// thread stored its accumulators itself).
template <typename P>
__device__ void store_tile_tma(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                               int half, TmaStoreState& out) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row0 = tm * P::kBm + half * 64 + warp * 16;
  if (row0 >= a.m) return;  // the warp's rows lie below C (warp-uniform, as below)
  const int r = lane / 4, pair_col = 2 * (lane % 4);
  constexpr int kGroups = StoreBox::kCols / 8;  // the accumulators' 8-column groups per box
#pragma unroll
  for (int q = 0; q < P::kBn / StoreBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * StoreBox::kCols;
    if (col0 >= a.n) break;  // past C's last column
    uint8_t* box = out.boxes + (out.issued % StoreBox::kBuffers) * StoreBox::kBytes;
    if (lane == 0) tma_store_wait_read<StoreBox::kBuffers - 1>();  // the box's last store has read it
    __syncwarp();
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int j = q * kGroups + g, col = 8 * g + pair_col;
      *staged_pair(box, r, col) = staged_values(a, row0 + r, col0 + col, acc[4 * j], acc[4 * j + 1]);
      *staged_pair(box, r + 8, col) = staged_values(a, row0 + r + 8, col0 + col, acc[4 * j + 2], acc[4 * j + 3]);
    }
    fence_shared_for_tma();
    __syncwarp();
    if (lane == 0) {
      tma_store_2d(out.map, box, col0, row0);
      tma_store_commit();
    }
    ++out.issued;
  }
}

// Step 09's staging: the two warps of a pair (consumer warps 2p, 2p + 1) hold between them the
// 32 rows of one 32-row chunk of the tile (accumulator_row: in order, or step 09's permuted rows,
// where each warp holds two runs of 8), so they stage 32 × 32 boxes together in the space of
// their four StoreBox buffers, and one lane of the even warp hands each box to TMA. Stored
// transposed, a box row is a view column: 32 view rows are one 128-byte line of C.
struct PairBox {
  static constexpr int kRows = 32, kCols = 32, kBytes = kRows * kCols * 4, kBuffers = 2;
  static_assert(kBuffers * kBytes == 2 * StoreBox::kBuffers * StoreBox::kBytes, "a pair's boxes are its warps'");
};

// Synchronises the 128 threads of one consumer warpgroup (named barrier 1 + consumer; 0 is
// __syncthreads). The ids are immediates: with an id in a register ptxas reserves all 16
// barriers, and the runtime then fits only 4 blocks per SM whatever their size. (Step 09's
// pair boxes synchronised each warp pair on barriers of their own at first: 7 in the kernel, which
// the runtime's occupancy counts and tilekit's model does not — OccupancyGpu caught it.)
__device__ __forceinline__ void consumer_barrier(int consumer) {
  if (consumer == 0)
    asm volatile("bar.sync 1, 128;\n" ::: "memory");
  else
    asm volatile("bar.sync 2, 128;\n" ::: "memory");
}

// The `half` of tile (tm, tn) through the pairs' boxes, 32 columns at a time. Each thread writes
// its values (alpha and beta applied; 0 outside C, which the TMA store clips) where the box's
// 128-byte swizzle puts them: box row = view row and box column = view column, or the other way
// round where C is stored transposed (kCTransposed). The even warp's lane 0 issues its pair's
// stores and is the only thread that can wait for them, so the consumer warpgroup meets twice
// per box: once the boxes are written (they may go) and once the issuers know the next boxes
// free (they may be written). `half` is the consumer (two consumers, one half each).
template <typename P, bool kPermutedRows, bool kCTransposed>
__device__ void store_tile_tma_pairs(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                                     int half, TmaStoreState& out) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  uint8_t* boxes = out.boxes - (warp % 2) * StoreBox::kBuffers * StoreBox::kBytes;
  const int chunk0 = tm * P::kBm + half * 64 + (warp / 2) * 32;  // the pair's first view row
  // A pair whose rows lie below C writes and stores nothing, but meets the other pair.
  const bool rows_in = chunk0 < a.m;
  const bool issuer = rows_in && warp % 2 == 0 && lane == 0;
  const int r[2] = {accumulator_row<kPermutedRows>(half, warp, lane / 4) % 32,
                    accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8) % 32};
  constexpr int kGroups = PairBox::kCols / 8;
#pragma unroll
  for (int q = 0; q < P::kBn / PairBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * PairBox::kCols;
    if (col0 >= a.n) break;  // past C's last column (uniform over the warpgroup)
    uint8_t* box = boxes + (out.issued % PairBox::kBuffers) * PairBox::kBytes;
#pragma unroll
    for (int g = 0; g < kGroups && rows_in; ++g)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // acc[4j + e]: row r[e / 2], column 8g + 2(lane % 4) + e % 2
        const int j = q * kGroups + g, row = r[e / 2], col = 8 * g + 2 * (lane % 4) + e % 2;
        const int view_row = chunk0 + row, view_col = col0 + col;
        float v = 0.0f;
        if (view_row < a.m && view_col < a.n) {
          const float* c = kCTransposed ? a.c + static_cast<int64_t>(view_col) * a.ldc + view_row
                                        : a.c + static_cast<int64_t>(view_row) * a.ldc + view_col;
          v = epilogue_value(a, acc[4 * j + e], c);
        }
        const int offset = kCTransposed ? staged_offset(col, row) : staged_offset(row, col);
        *reinterpret_cast<float*>(box + offset) = v;
      }
    fence_shared_for_tma();
    consumer_barrier(half);  // the boxes are written
    if (issuer) {
      if (kCTransposed)
        tma_store_2d(out.map, box, chunk0, col0);
      else
        tma_store_2d(out.map, box, col0, chunk0);
      tma_store_commit();
      tma_store_wait_read<PairBox::kBuffers - 1>();  // the next box's last store has read it
    }
    // Counted only where stores go: the box after the last one stored is the one its wait freed
    // (a pair that skipped a tile must not step onto a box a store may still be reading).
    if (rows_in) ++out.issued;
    consumer_barrier(half);  // the next boxes may be written
  }
}

// A C that TMA cannot store (n, ldc or its address not a multiple of 16 bytes: a 4097-wide C)
// leaves through the same boxes, by the warp itself: it writes a box of raw accumulators as
// above, then stores it a row at a time, lane l taking column l — one instruction per row of 128
// contiguous bytes, where step 02's direct stores touch 8 rows per instruction, 4 or 8 bytes
// each (ncu, bf16 4096 × 4097 × 4096: with n odd, the 4-byte direct stores took ~37 µs of the
// kernel's 266 beyond what its extra round of tiles explains). Alpha and beta are applied on the
// way out, where C is read a row at a time too. No TMA here: one box, reused once the warp has
// read it back.
__device__ __forceinline__ float staged_value(const uint8_t* box, int r, int col) {
  return *reinterpret_cast<const float*>(box + staged_offset(r, col));
}

template <typename P>
__device__ void store_tile_staged(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                                  int half, uint8_t* box) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row0 = tm * P::kBm + half * 64 + warp * 16;
  if (row0 >= a.m) return;  // the warp's rows lie below C (warp-uniform, as below)
  const int r = lane / 4, pair_col = 2 * (lane % 4);
  const int rows = min(StoreBox::kRows, a.m - row0);
  constexpr int kGroups = StoreBox::kCols / 8;
#pragma unroll
  for (int q = 0; q < P::kBn / StoreBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * StoreBox::kCols;
    if (col0 >= a.n) break;  // past C's last column
    __syncwarp();            // every lane has read the box's previous rows
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int j = q * kGroups + g, col = 8 * g + pair_col;
      *staged_pair(box, r, col) = make_float2(acc[4 * j], acc[4 * j + 1]);
      *staged_pair(box, r + 8, col) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    }
    __syncwarp();
    if (col0 + lane < a.n) {
      float* p = a.c + static_cast<int64_t>(row0) * a.ldc + col0 + lane;
#pragma unroll
      for (int i = 0; i < StoreBox::kRows; ++i, p += a.ldc)
        if (i < rows) *p = epilogue_value(a, staged_value(box, i, lane), p);
    }
  }
}

// ---- stream-K partial tiles ---------------------------------------------------------------------

// Each thread's accumulators in its block's slot, laid out [consumer][register][thread] so that
// a warp's stores and loads are contiguous. Through L2 (st.cg / ld.cg): another SM reads them.
template <typename P>
__device__ __forceinline__ float* partial_slot(const WgmmaArgs& a, int block, int consumer) {
  return a.partials + (static_cast<int64_t>(block) * P::kConsumers + consumer) * P::kAccumulators * 128 +
         threadIdx.x % 128;
}

// `flag`: the counter to raise, this block's own (stream-K) or its tile's (step 10).
template <typename P>
__device__ void publish_partial(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int consumer,
                                int flag) {
  float* slot = partial_slot<P>(a, blockIdx.x, consumer);
#pragma unroll
  for (int i = 0; i < P::kAccumulators; ++i) __stcg(slot + i * 128, acc[i]);
  __threadfence();
  consumer_barrier(consumer);
  if (threadIdx.x % 128 == 0) atomicAdd(&a.flags[flag], 1);  // one per consumer warpgroup
}

// Adds the partial tiles of the blocks below this one that hold k-tiles [0, seg.k_begin) of
// the segment's tile, nearest block first: a fixed order, so the sum is the same every run.
template <typename P>
__device__ void add_partials(const WgmmaArgs& a, float (&acc)[P::kAccumulators], const Segment& seg,
                             int consumer) {
  const int64_t tile_start = static_cast<int64_t>(seg.tile - a.whole_tiles) * k_tile_count(a);
  for (int b = blockIdx.x - 1, covered = seg.k_begin; covered > 0; --b) {
    if (threadIdx.x % 128 == 0) {
      volatile int* flag = a.flags + b;
      while (*flag < P::kConsumers) {
      }
      __threadfence();
    }
    consumer_barrier(consumer);
    const float* slot = partial_slot<P>(a, b, consumer);
#pragma unroll
    for (int i = 0; i < P::kAccumulators; ++i) acc[i] += __ldcg(slot + i * 128);
    const int64_t piece_start = stream_k_begin(a, b) - tile_start;
    covered = piece_start > 0 ? static_cast<int>(piece_start) : 0;
  }
}

// Step 10: once every piece of this block's tile has published its partial tile (counted on the
// flag of the tile's first block: one flag to wait on, where a flag per piece cost an L2 round
// trip each, 117 in turn at 100 × 100 × 30000), the consumer sums its share of them, elements
// [begin, end) of its half of a slot (1/split_pieces of it), over the pieces in order (the same
// sum every run) and stores those elements of C. A slot holds register i of consumer thread t at
// i·128 + t: wgmma's accumulator layout (store_tile; kPermutedRows and kCTransposed as there, for
// step 09's policy) gives the element's row and column. Waits for higher-numbered blocks too:
// the plan never launches more blocks than the SMs hold at once (split_tiles_plan).
template <typename P, bool kPermutedRows, bool kCTransposed>
__device__ void sum_share(const WgmmaArgs& a, const Segment& seg, int consumer) {
  const int pieces = a.split_pieces, piece = static_cast<int>(blockIdx.x) % pieces;
  const int first = static_cast<int>(blockIdx.x) - piece;
  if (threadIdx.x % 128 == 0) {
    volatile int* published = a.flags + first;
    while (*published < pieces * P::kConsumers) {
    }
    __threadfence();
  }
  consumer_barrier(consumer);
  int tm, tn;
  tile_coords<1>(a, seg.tile, &tm, &tn);
  constexpr int kHalf = P::kAccumulators * 128;  // one consumer's elements in a slot
  const auto begin = static_cast<int>(stream_k_range_begin(kHalf, pieces, piece));
  const auto end = static_cast<int>(stream_k_range_begin(kHalf, pieces, piece + 1));
  const float* slots = a.partials + (static_cast<int64_t>(first) * P::kConsumers + consumer) * kHalf;
  constexpr int64_t kSlotStride = static_cast<int64_t>(P::kConsumers) * kHalf;
  for (int e = begin + static_cast<int>(threadIdx.x % 128); e < end; e += 128) {
    const int i = e / 128, t = e % 128, lane = t % 32;
    const int r = lane / 4 + 8 * ((i / 2) % 2);  // the thread's row in its warp's 16
    const int row = tm * P::kBm + accumulator_row<kPermutedRows>(consumer, t / 32, r);
    const int col = tn * P::kBn + (i / 4) * 8 + 2 * (lane % 4) + i % 2;
    // Unrolled so that 16 loads are in flight before their adds (each an L2 round trip; the
    // adds keep piece order).
    float sum = __ldcg(slots + e);
#pragma unroll 16
    for (int b = 1; b < pieces; ++b) sum += __ldcg(slots + b * kSlotStride + e);
    if (row < a.m && col < a.n) {
      float* p = kCTransposed ? a.c + static_cast<int64_t>(col) * a.ldc + row
                              : a.c + static_cast<int64_t>(row) * a.ldc + col;
      *p = epilogue_value(a, sum, p);
    }
  }
}

// Frees a stage: one arrival per consumer warp on its `empty` barrier, in every block of the
// cluster (step 06: each block's producer loads into all of them).
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
// chain of k / 32 FP32 adds into one total grows its rounding error with its length (at k =
// 16384, 512 adds: 2.2-2.65x SGEMM's normwise error on the H200); two levels of 16 and k / 512
// adds keep it within 2x (docs/hopper.md, "Two-level promotion").
constexpr int kPromoteGroupTiles = 16;

// 3xTF32 problems of at most this many k-tiles (k <= 32) promote every k-step's sum instead of
// every k-tile's, in their own instantiation of the kernel (kPromoteSteps, chosen at launch).
// Within a wgmma group the tensor cores add each k8 step into the accumulator truncated (toward
// zero), so a k-tile's sum carries twelve such errors (three wgmmas per k8 step) before the IEEE
// add. At k = 16 and 32 the whole product is one k-tile, and SGEMM's error is that of a few
// roundings: with one sum per k-tile 3xTF32 measured 1.9-2.4x SGEMM's normwise error at k = 16
// (three input seeds), with a sum per k-step 1.3-1.5x (docs/hopper.md, "Promotion per k-step").
// Longer problems keep the k-tile sums: a wait per k-step cost 30% of the speed at
// 8192 x 8192 x 256, where the error was already within 1.7x SGEMM's. The choice is made at
// launch because a run-time branch per k-tile cost the long stream-K walks 3-14%, and two
// loops in one kernel made ptxas serialize the wgmmas (C7512).
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
// that reads it is done, before the adds: released after them, 3xTF32 ran 10-20% slower at 4096
// (two builds that both branched per k-tile). `grouped`: k-tiles already in `group`.
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

// Step 09's segment (A MN-major), pipelined by k-step: each k8 step is its own wgmma group, up
// to two stay in flight (wait<2>), and the fragments of the next step are loaded before a step's
// wgmma is issued, as CUTLASS's register-A mainloop does. Fragment registers are tied to a
// k-step's position in the k-tile (frag[kk], the k-tile loop not unrolled): loading step kk + 1
// (or the next k-tile's step 0) overwrites registers last read three groups earlier, by a group
// wait<2> has already seen done, and ptxas keeps the wgmma asynchronous (no C7513). A segment has
// k-tiles. (Before: each k-tile's fragments, then its group, waited for before the next k-tile's
// loads, since loading a whole k-tile into a second buffer while its group ran made ptxas
// serialize every wgmma. Level in the bench and under ncu at 4096 NN — 360 against 362 µs, the
// tensor pipe 84% busy either way: the other consumer's group covered the drain.)
template <typename P>
__device__ __forceinline__ void multiply_segment_a_registers(const Segment& seg, const uint8_t* ring_a,
                                                             const uint8_t* ring_b, uint64_t* full,
                                                             uint64_t* empty, int consumer, int& stage,
                                                             uint32_t& phase, float (&acc)[P::kAccumulators]) {
  constexpr int kSteps = P::kBk / P::kInstK;
  static_assert(kSteps >= 3, "a stage is released two groups into the next k-tile");
  const bool releases = threadIdx.x % 32 == 0;  // one arrival per consumer warp
  uint32_t frag[kSteps][4];
  fence_accumulators(acc);
  barrier_wait(&full[stage], phase);
  load_a_fragment(ring_a + stage * P::kAStageBytes, consumer, 0, frag[0]);
  int previous = -1;
  for (int kt = seg.k_begin; kt < seg.k_end; ++kt) {
    const uint8_t* a_stage = ring_a + stage * P::kAStageBytes;
    const uint8_t* b_stage = ring_b + stage * P::kBStageBytes;
    int next = stage + 1;
    uint32_t next_phase = phase;
    if (next == P::kStages) {
      next = 0;
      next_phase ^= 1;
    }
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      if (kk + 1 < kSteps) {
        load_a_fragment(a_stage, consumer, kk + 1, frag[kk + 1]);
      } else if (kt + 1 < seg.k_end) {
        barrier_wait(&full[next], next_phase);
        load_a_fragment(ring_a + next * P::kAStageBytes, consumer, 0, frag[0]);
      }
      wgmma_fence();
      const uint64_t db = b_descriptor<P, false>(b_stage, kk);
      const int accumulate = kt == seg.k_begin && kk == 0 ? 0 : 1;
      if constexpr (P::kBn == 256)
        wgmma_m64n256k8_a_registers(acc, frag[kk], db, accumulate);
      else
        wgmma_m64n128k8_a_registers(acc, frag[kk], db, accumulate);
      wgmma_commit();
      wgmma_wait<2>();
      // Two groups of this k-tile may still run: the previous k-tile's are done, its stage free.
      if (kk == 1 && previous >= 0 && releases) release_stage<1>(&empty[previous]);
    }
    previous = stage;
    stage = next;
    phase = next_phase;
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  fence_fragments(frag);  // the last groups read them until here
  if (previous >= 0 && releases) release_stage<1>(&empty[previous]);
}

// The 64-row `half` of tile (tm, tn) to C by the step's epilogue: from registers, or through
// this warp's staging boxes by TMA (step 07) or, for a C that TMA cannot store, by the warp.
// kPermutedRows: step 09's accumulator rows (accumulator_row); kCTransposed: its C stored
// transposed (WgmmaView::c_transposed, a template parameter of the kernel).
template <typename P, Epilogue kEpilogue, bool kPermutedRows = false, bool kCTransposed = false>
__device__ __forceinline__ void store_half(const WgmmaArgs& args, const float (&acc)[P::kAccumulators], int tm,
                                           int tn, int half, TmaStoreState& out) {
  if constexpr (P::kARegisters && kEpilogue == Epilogue::kTmaStore) {  // step 09: pair boxes
    if (args.c_tma)
      store_tile_tma_pairs<P, kPermutedRows, kCTransposed>(args, acc, tm, tn, half, out);
    else if constexpr (kCTransposed)
      store_tile_transposed<P, kPermutedRows>(args, acc, tm, tn, half);
    else
      store_tile<P, kPermutedRows>(args, acc, tm, tn, half);
  } else if constexpr (kCTransposed)
    store_tile_transposed<P, kPermutedRows>(args, acc, tm, tn, half);
  else if (kEpilogue != Epilogue::kTmaStore)
    store_tile<P, kPermutedRows>(args, acc, tm, tn, half);
  else if (args.c_tma)
    store_tile_tma<P>(args, acc, tm, tn, half, out);
  else
    store_tile_staged<P>(args, acc, tm, tn, half, out.boxes);
}

// A segment's sum: published as a partial tile, or completed with the others' and stored.
template <typename P, int kCluster, Epilogue kEpilogue, bool kPermutedRows, bool kCTransposed, bool kSplit>
__device__ __forceinline__ void finish_segment(const WgmmaArgs& args, float (&sum)[P::kAccumulators],
                                               const Segment& seg, int consumer, TmaStoreState& out) {
  if constexpr (kSplit) {
    if (args.split_pieces > 0) {  // step 10: every piece publishes, then sums its share
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
  store_half<P, kEpilogue, kPermutedRows, kCTransposed>(args, sum, tm, tn, consumer, out);
}

template <typename P, int kCluster, Epilogue kEpilogue, bool kAMn, bool kBMn, bool kCTransposed,
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
      finish_segment<P, kCluster, kEpilogue, kAMn, kCTransposed, kSplit>(args, acc, seg, consumer, out);
    } else if constexpr (P::kPromote) {
      multiply_segment<P, kCluster, kAMn, kBMn, kPromoteSteps>(seg, ring_a, ring_b, full, empty, consumer,
                                                               stage, phase, acc, promoted);
      finish_segment<P, kCluster, kEpilogue, false, false, kSplit>(args, promoted, seg, consumer, out);
    } else {
      multiply_segment<P, kCluster, kAMn, kBMn>(seg, ring_a, ring_b, full, empty, consumer, stage, phase, acc,
                                                acc);
      finish_segment<P, kCluster, kEpilogue, false, kCTransposed, kSplit>(args, acc, seg, consumer, out);
    }
  });
  // The last stores must have read their boxes before the block's shared memory goes, and have
  // written C before the kernel counts as done.
  if (kEpilogue == Epilogue::kTmaStore && threadIdx.x % 32 == 0) tma_store_wait_all();
}

// Ping-pong (step 05): consumer c takes every other segment of the walk and computes its whole
// tile (every 64-row half), so one warpgroup multiplies while the other stores its last tile.
// The ring is shared in walk order: a consumer steps over the other's stages without waiting.
// It starts a tile only when the other has issued its previous one (`turn`): an mbarrier's
// parity tells apart only consecutive phases, so waiting on a stage many laps ahead of the
// producer would be satisfied by an earlier lap's data. Step 05 hands the turn over once its
// last wgmma group is done; step 08 (kEpilogue = kTmaStore) as soon as that group is issued, so
// that the other warpgroup's first wgmma queues behind it and the tensor cores do not drain
// between tiles. Step 08 stores through the warp's staging boxes (`out`) as step 07 does.
template <typename P, Epilogue kEpilogue, bool kAMn, bool kBMn>
__device__ void consume_ping_pong(const WgmmaArgs& args, const uint8_t* ring_a, const uint8_t* ring_b,
                                  uint64_t* full, uint64_t* empty, uint64_t* turn, int consumer,
                                  TmaStoreState out) {
  constexpr bool kHandOffAtIssue = kEpilogue == Epilogue::kTmaStore;
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
    for (int h = 0; h < P::kHalves; ++h) store_half<P, kEpilogue>(args, acc[h], tm, tn, h, out);
  });
  // As in consume: the boxes must be read, and C written, before the block ends.
  if (kEpilogue == Epilogue::kTmaStore && threadIdx.x % 32 == 0) tma_store_wait_all();
}

// ---- the kernel -----------------------------------------------------------------------------------

// `Schedule` (the step's launch: TilePerBlock, Persistent) is part of the instantiation so that
// two steps never share one kernel symbol across translation units (non-RDC builds register a
// template kernel per file; sharing one made the second step's smem opt-in miss its launch).
// kCTransposed: step 09's view stores C transposed (WgmmaView::c_transposed). kPromoteSteps:
// 3xTF32 with k <= 32 (kStepPromotionMaxTiles), promoted per k-step.
template <typename P, typename Schedule, bool kAMn, bool kBMn, bool kCTransposed = false,
          bool kPromoteSteps = false>
__global__ void __launch_bounds__(P::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ OperandMaps maps, const WgmmaArgs args) {
  extern __shared__ uint8_t smem_raw[];
  // TMA's 128-byte swizzle and the descriptors assume 1024-byte-aligned tiles.
  uint8_t* ring_a = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint8_t* ring_b = ring_a + P::kStages * P::kAStageBytes;
  uint8_t* staging = ring_b + P::kStages * P::kBStageBytes;  // step 07's boxes (1024-byte aligned)
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
  // Step 10's split walk and sum are compiled into its kernels only.
  constexpr bool kSplit = Schedule::kTileSchedule == TileSchedule::kSplitTiles;
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    registers_shrink<kProducerRegisters>();
    if (threadIdx.x == 0) produce<P, kCluster, kAMn, kBMn, kSplit>(args, maps, ring_a, ring_b, full, empty);
  } else {
    registers_grow<kConsumerRegisters>();
    // Consumer warps are the block's warps 4 … 11: warp w stages in boxes w − 4.
    const TmaStoreState out{&maps.c, staging + (threadIdx.x / 32 - 4) * StoreBox::kBuffers * StoreBox::kBytes};
    if constexpr (Schedule::kPingPong)
      consume_ping_pong<P, Schedule::kEpilogue, kAMn, kBMn>(args, ring_a, ring_b, full, empty, turn,
                                                            warpgroup - 1, out);
    else
      consume<P, kCluster, Schedule::kEpilogue, kAMn, kBMn, kCTransposed, kPromoteSteps, kSplit>(
          args, ring_a, ring_b, full, empty, warpgroup - 1, out);
  }
  // The other blocks' consumers may still be arriving on this block's `empty` barriers: its
  // shared memory must outlive them.
  if constexpr (kCluster > 1) cluster_sync();
}

using WgmmaKernelFn = void (*)(OperandMaps, WgmmaArgs);

// The instantiation for the operands' majors (tf32 operands are K-major in shared memory, but for
// step 09's A, which may be either), for step 09 whether C is stored transposed, and for 3xTF32
// whether it promotes per k-step.
template <typename P, typename Schedule>
WgmmaKernelFn wgmma_kernel(bool a_mn_major, bool b_mn_major, bool c_transposed = false,
                           bool promote_steps = false) {
  if constexpr (P::kPromote) {
    if (promote_steps) return wgmma_gemm_kernel<P, Schedule, false, false, false, true>;
  }
  if constexpr (P::kARegisters) {
    if (c_transposed)
      return a_mn_major ? wgmma_gemm_kernel<P, Schedule, true, false, true>
                        : wgmma_gemm_kernel<P, Schedule, false, false, true>;
    return a_mn_major ? wgmma_gemm_kernel<P, Schedule, true, false> : wgmma_gemm_kernel<P, Schedule, false, false>;
  }
  if constexpr (P::kTf32) return wgmma_gemm_kernel<P, Schedule, false, false>;
  if (!a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, false>;
  if (!a_mn_major && b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, true>;
  if (a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, true, false>;
  return wgmma_gemm_kernel<P, Schedule, true, true>;
}

// ---- host ---------------------------------------------------------------------------------------

// The types a policy's kernels implement.
template <typename P>
constexpr GemmTypes gemm_types() {
  if constexpr (P::kOperands == Operands::kTf32 || P::kOperands == Operands::kTf32ARegisters)
    return GemmTypes{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32};
  if constexpr (P::kOperands == Operands::kTf32x3)
    return GemmTypes{DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32};
  constexpr DType t = std::is_same_v<typename P::Element, __nv_bfloat16> ? DType::kBF16 : DType::kF16;
  return GemmTypes{t, t, DType::kF32, Compute::kBF16};
}

// How a step spreads the tiles over blocks (its Schedule::plan): detail/tile_walk_plan.hpp.
// Step 02's plan, which steps 03–05 also use, is persistent_plan (one block per SM); step 03's,
// which step 07 also offers, stream_k_tail_plan.
using WgmmaPlan = TileWalkPlan;
using cuda::persistent_plan;
using cuda::stream_k_tail_plan;

// Step 02's schedule, from which every step's schedule derives, declaring only its name, number
// and what it changes: one block per SM (persistent_plan), tiles walked in groups of 8 tile rows,
// both consumers sharing each tile, no clusters, C stored from registers.
struct PersistentSchedule {
  static constexpr int kGroupRows = 8;
  static constexpr bool kPingPong = false;
  static constexpr int kClusterM = 1;
  static constexpr Epilogue kEpilogue = Epilogue::kRegisters;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kPersistent;
  static WgmmaPlan plan(int sms, int tiles, int /*k_tiles*/) { return persistent_plan(sms, tiles); }
  // Why the step refuses `tiles` tiles of `k_tiles` k-tiles on `sms` SMs (empty: it runs them),
  // and that rule in words for `tilekit list` (appended to the requirements).
  static std::string refuses(int /*sms*/, int /*tiles*/, int /*k_tiles*/) { return {}; }
  static constexpr const char* kRefuses = "";
};

// `units`: what the walk hands out, tiles or (step 06) groups of kCluster tiles stacked along m.
template <typename P, int kCluster = 1>
struct WgmmaShape {
  int units = 0, k_tiles = 0;
  explicit WgmmaShape(const WgmmaView& v) : k_tiles(static_cast<int>((v.k + P::kBk - 1) / P::kBk)) {
    const auto tiles_m = static_cast<int>((v.m + P::kBm - 1) / P::kBm);
    const auto tiles_n = static_cast<int>((v.n + P::kBn - 1) / P::kBn);
    units = (tiles_m + kCluster - 1) / kCluster * tiles_n;
  }
};

// Whether the tf32 kernel of policy P reads `o` where it is (through a rounding tensor map)
// rather than a prepared copy: never for 3xTF32, whose parts are split in the pre-pass; A of
// step 09 MN-major too (`is_a`).
template <typename P>
bool reads_in_place(const TmaOperand& o, bool mn_major, int64_t uses, bool is_a) {
  if (P::kParts != 1) return false;
  return P::kARegisters && is_a ? tf32_reads_in_place_either_major(o, mn_major, uses)
                                : tf32_reads_in_place(o, mn_major, uses);
}

// The view a policy's kernels compute: step 09 swaps A and B (C then stored transposed) when B
// alone is MN-major, so that B becomes the A it reads through registers; and when both are and
// B is the larger (n > m), so that the one prepared K-major in the workspace is the smaller
// (tf32 TN 48 × 8000 × 8000: A's 1.5 MB instead of B's 256 MB).
template <typename P>
WgmmaView kernel_view(const GemmProblem& p) {
  const WgmmaView v = wgmma_view(p);
  if (P::kARegisters && v.b_mn_major && (!v.a_mn_major || v.n > v.m)) return transposed_view(v);
  return v;
}

// How the tile of P run by Schedule reads 16-bit rows off 128-byte lines (repack_pays).
template <typename P, typename Schedule>
constexpr OffLineReads off_line_reads() {
  return OffLineReads{P::kBm == 128 && P::kBn == 256, Schedule::kClusterM > 1};
}

// Workspace, in order: A and B as TMA reads them where they are not read in place (16-bit:
// repacked when repack_pays; tf32: prepared unless reads_in_place, `parts` copies each), then
// the partial tiles of stream-K or step 10 (one per block) and their flags.
template <typename P>
struct WgmmaWorkspace {
  size_t a = 0, b = 0, partials = 0, flags = 0;
  bool a_in_place = true, b_in_place = true;  // tf32: no prepared copy
  WgmmaWorkspace(const WgmmaView& v, const WgmmaPlan& plan, OffLineReads reads) {
    if constexpr (P::kTf32) {
      a_in_place = reads_in_place<P>(v.a, v.a_mn_major, v.n, true);
      b_in_place = reads_in_place<P>(v.b, v.b_mn_major, v.m, false);
      if (!a_in_place) a = P::kParts * tf32_part_bytes(v.m, v.k);
      if (!b_in_place) b = P::kParts * tf32_part_bytes(v.n, v.k);
    } else {
      a = repack_bytes(v.a, v.n, reads);
      b = repack_bytes(v.b, v.m, reads);
    }
    if (plan.partial_tiles()) {
      partials = static_cast<size_t>(plan.blocks) * P::kBm * P::kBn * sizeof(float);
      flags = static_cast<size_t>(plan.blocks) * sizeof(int);
    }
  }
  size_t total() const { return a + b + partials + flags; }
};

// The operands as the kernel's tensor maps read them.
struct PlacedOperands {
  TmaOperand a, b, a_small, b_small;
  bool a_mn_major = false, b_mn_major = false;
};

// One tf32 operand (`mn` rows of k once K-major) as its tensor map reads it: `o` itself when
// read in place, else prepared K-major (and split: `small`) into the `bytes` at `at`.
inline Status place_tf32_operand(const TmaOperand& o, bool mn_major, bool in_place, int64_t mn,
                                 int64_t k, int parts, uint8_t* at, size_t bytes, cudaStream_t stream,
                                 TmaOperand* big, TmaOperand* small) {
  if (in_place) {
    *big = o;
    return Status::ok();
  }
  const int64_t ld = tf32_prepared_ld(k);
  auto* big_data = reinterpret_cast<float*>(at);
  float* small_data = parts == 2 ? reinterpret_cast<float*>(at + bytes / 2) : nullptr;
  TILEKIT_RETURN_IF_ERROR(prepare_tf32_operand(o, mn_major, k, big_data, small_data, stream));
  *big = TmaOperand{big_data, mn, k, ld};
  *small = TmaOperand{small_data, mn, k, ld};
  return Status::ok();
}

// tf32: each operand read in place or prepared K-major (and split) into the workspace.
template <typename P>
Status prepare_tf32_operands(const WgmmaView& v, const WgmmaWorkspace<P>& layout, uint8_t* base,
                             cudaStream_t stream, PlacedOperands* out) {
  TILEKIT_RETURN_IF_ERROR(place_tf32_operand(v.a, v.a_mn_major, layout.a_in_place, v.m, v.k,
                                             P::kParts, base, layout.a, stream, &out->a,
                                             &out->a_small));
  TILEKIT_RETURN_IF_ERROR(place_tf32_operand(v.b, v.b_mn_major, layout.b_in_place, v.n, v.k,
                                             P::kParts, base + layout.a, layout.b, stream, &out->b,
                                             &out->b_small));
  // A prepared copy is K-major; so is any B read in place, and any A but step 09's.
  out->a_mn_major = layout.a_in_place && v.a_mn_major;
  out->b_mn_major = false;
  return Status::ok();
}

// Places A and B where the kernel's tensor maps read them and zeroes the stream-K flags
// (`flags`: null without stream-K), launching what that takes on `stream`.
template <typename P>
Status place_operands(const WgmmaView& v, const WgmmaWorkspace<P>& layout, Workspace ws, int* flags,
                      cudaStream_t stream, PlacedOperands* out) {
  auto* base = static_cast<uint8_t*>(ws.data);
  const auto flag_count = static_cast<int64_t>(layout.flags / sizeof(int));
  if constexpr (P::kTf32) {
    if (flags != nullptr) TILEKIT_CUDA_TRY(cudaMemsetAsync(flags, 0, layout.flags, stream));
    return prepare_tf32_operands<P>(v, layout, base, stream, out);
  } else {
    *out = PlacedOperands{v.a, v.b, {}, {}, v.a_mn_major, v.b_mn_major};
    return prepare_16bit_operands(&out->a, layout.a ? base : nullptr, &out->b,
                                  layout.b ? base + layout.a : nullptr, flags, flag_count, stream);
  }
}

// The tensor maps: K-major boxes of kBk × (kBm or kBn); MN-major boxes of 128 bytes × kBk. With clusters
// a block loads 1/kCluster of B's k-tile: K-major boxes of kBn / kCluster rows.
template <typename P, int kCluster = 1>
Status encode_maps(const PlacedOperands& o, OperandMaps* maps) {
  constexpr DType type = gemm_types<P>().a;
  // tf32's maps round what they load (a prepared copy is already rounded: no change to it).
  constexpr bool kRound = P::kTf32 && P::kParts == 1;
  // An MN-major box is kBk lines of 128 bytes (64 16-bit or 32 FP32 elements: kBk again).
  TILEKIT_RETURN_IF_ERROR(
      encode_tile_map(&maps->a, o.a, type, P::kBk, o.a_mn_major ? P::kBk : P::kBm, kRound));
  TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->b, o.b, type, P::kBk,
                                          o.b_mn_major ? P::kBk : P::kBn / kCluster, kRound));
  if constexpr (P::kParts == 2) {
    TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->a_small, o.a_small, type, P::kBk, P::kBm));
    TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->b_small, o.b_small, type, P::kBk, P::kBn));
  }
  return Status::ok();
}

// Whether TMA can store C, given as stored (`rows` lines of `cols` floats, `ld` apart; step 09's
// transposed C is the view's Cᵀ): a 16-byte-aligned base, a row pitch of whole 16 bytes, and
// rows of whole 16 bytes too: a TMA store clips a box at C's last column only to the next
// 16-byte boundary, so with cols % 4 ≠ 0 it would write up to 3 floats past each row's end (into
// the padding of a larger ld: the registry's guard-band cases caught it). Otherwise (a 4097-wide
// C) the consumers store from registers.
inline bool tma_can_store_c(const TmaOperand& c) {
  return c.rows > 0 && c.cols > 0 && c.cols % 4 == 0 && c.ld % 4 == 0 &&
         reinterpret_cast<uintptr_t>(c.data) % 16 == 0;
}

inline Status sm_count(int device, int* out) {
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device));
  return Status::ok();
}

template <typename P>
WgmmaArgs wgmma_args(const WgmmaView& v, const WgmmaPlan& plan, int group_rows) {
  WgmmaArgs args;
  args.m = static_cast<int>(v.m);
  args.n = static_cast<int>(v.n);
  args.k = static_cast<int>(v.k);
  args.tiles_m = static_cast<int>((v.m + P::kBm - 1) / P::kBm);
  args.tiles_n = static_cast<int>((v.n + P::kBn - 1) / P::kBn);
  args.k_tiles = static_cast<int>((v.k + P::kBk - 1) / P::kBk);
  args.group_rows = group_rows;
  args.alpha = v.alpha;
  args.beta = v.beta;
  args.c = v.c;
  args.ldc = v.ldc;
  args.c_pairs = v.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(v.c) % 8 == 0;
  args.whole_tiles = plan.whole_tiles;
  args.stream_k_iters = plan.stream_k_iters;
  args.split_pieces = plan.split_pieces;  // 0 but in step 10's split plans
  return args;
}

// A launch of `blocks` blocks of policy P in clusters of Schedule::kClusterM (`attr` holds the
// cluster shape and must outlive the config).
template <typename P, typename Schedule>
cudaLaunchConfig_t cluster_launch(int blocks, cudaStream_t stream, cudaLaunchAttribute* attr) {
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = Schedule::kClusterM;
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(P::kThreads);
  config.dynamicSmemBytes = smem_bytes<P, Schedule>();
  config.stream = stream;
  config.attrs = attr;
  config.numAttrs = 1;
  return config;
}

// How many clusters of kCluster blocks of this kernel the device holds at once (step 06: the
// walk assumes them all resident, as step 02's does its blocks). Asked once per device.
template <typename P, typename Schedule>
Status resident_clusters(int device, int* out) {
  static PerDeviceCache cache;
  return cache.get(device, out, [](int* clusters) {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = cluster_launch<P, Schedule>(Schedule::kClusterM, nullptr, &cluster);
    TILEKIT_CUDA_TRY(cudaOccupancyMaxActiveClusters(clusters, wgmma_kernel<P, Schedule>(false, false), &config));
    if (*clusters < 1) return Status(StatusCode::kNotSupported, "no cluster of this kernel fits the device");
    return Status::ok();
  });
}

// The launch, with its cluster shape when the step uses clusters. Tried and not kept:
// programmatic dependent launch behind the repack (the GEMM's blocks set up while the repack's
// last blocks run, then wait in griddepcontrol.wait): bf16 stream-K walk 3–4% slower at 4097
// and 2–12% at 8193 in three alternating pairs of bench runs on the H200.
template <typename P, typename Schedule>
Status launch_kernel(WgmmaKernelFn kernel, int blocks, cudaStream_t stream, const OperandMaps& maps,
                     const WgmmaArgs& args) {
  if constexpr (Schedule::kClusterM == 1) {
    kernel<<<blocks, P::kThreads, smem_bytes<P, Schedule>(), stream>>>(maps, args);
  } else {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = cluster_launch<P, Schedule>(blocks, stream, &cluster);
    TILEKIT_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, maps, args));
  }
  TILEKIT_CUDA_CHECK_LAUNCH("wgmma_gemm_kernel");
  return Status::ok();
}

// Runs p with the blocks and tile order of `Schedule` (the step's plan and kGroupRows).
template <typename P, typename Schedule>
Status launch_wgmma(const GemmProblem& p, const Context& ctx, Workspace ws) {
  constexpr int kCluster = Schedule::kClusterM;
  const WgmmaView v = kernel_view<P>(p);
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  int sms = 0;
  TILEKIT_RETURN_IF_ERROR(sm_count(ctx.device, &sms));
  // Context::sm_limit leaves SMs to work beside this kernel (prepare_kernel sized the workspace
  // for the same limit: the plan may differ, stream-K on fewer SMs).
  if (ctx.sm_limit > 0) sms = std::min(sms, ctx.sm_limit);
  // Without clusters a plan places blocks on `slots` SMs; with them, clusters on `slots`.
  int slots = sms;
  if constexpr (kCluster > 1) {
    TILEKIT_RETURN_IF_ERROR((resident_clusters<P, Schedule>(ctx.device, &slots)));
    slots = std::max(1, std::min(slots, sms / kCluster));
  }
  const WgmmaShape<P, kCluster> shape(v);
  const WgmmaPlan plan = Schedule::plan(slots, shape.units, shape.k_tiles);
  const WgmmaWorkspace<P> layout(v, plan, off_line_reads<P, Schedule>());
  if (ws.bytes < layout.total())
    return invalid_argument("workspace of " + std::to_string(ws.bytes) + " bytes, the kernel needs " +
                            std::to_string(layout.total()));
  WgmmaArgs args = wgmma_args<P>(v, plan, Schedule::kGroupRows);
  if (plan.partial_tiles()) {
    auto* area = static_cast<uint8_t*>(ws.data) + layout.a + layout.b;
    args.partials = reinterpret_cast<float*>(area);
    args.flags = reinterpret_cast<int*>(area + layout.partials);
  }
  PlacedOperands placed;
  TILEKIT_RETURN_IF_ERROR(place_operands<P>(v, layout, ws, args.flags, stream, &placed));
  OperandMaps maps;
  TILEKIT_RETURN_IF_ERROR((encode_maps<P, kCluster>(placed, &maps)));
  if constexpr (Schedule::kEpilogue == Epilogue::kTmaStore) {
    // Step 09 stores 32 × 32 pair boxes, of Cᵀ where the view is transposed (its rows are C's).
    const TmaOperand c = v.c_transposed ? TmaOperand{v.c, v.n, v.m, v.ldc} : TmaOperand{v.c, v.m, v.n, v.ldc};
    args.c_tma = tma_can_store_c(c);
    if (args.c_tma)
      TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps.c, c, DType::kF32, StoreBox::kCols,
                                              P::kARegisters ? PairBox::kRows : StoreBox::kRows));
  }
  const bool promote_steps = P::kPromote && shape.k_tiles <= kStepPromotionMaxTiles;
  const WgmmaKernelFn kernel =
      wgmma_kernel<P, Schedule>(placed.a_mn_major, placed.b_mn_major, v.c_transposed, promote_steps);
  return launch_kernel<P, Schedule>(kernel, plan.blocks, stream, maps, args);
}

template <typename P, typename Schedule>
Status opt_into_wgmma_smem() {
  for (int variant = 0; variant < 16; ++variant) {  // A, B MN-major; C transposed; promoted per k-step
    const WgmmaKernelFn kernel = wgmma_kernel<P, Schedule>(variant & 1, variant & 2, variant & 4, variant & 8);
    TILEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem_bytes<P, Schedule>())));
  }
  return Status::ok();
}

// The registry entry of policy P run by `Schedule` (its step's name and number).
template <typename P, typename Schedule>
GemmKernel make_wgmma_entry(int auto_rank) {
  // Here, on the host side, is_stream_k (a host function) can be asked; every entry is checked.
  constexpr bool kStreamK = is_stream_k(Schedule::kTileSchedule);
  static_assert(Schedule::kClusterM == 1 || (!Schedule::kPingPong && P::kParts == 1 && !kStreamK),
                "clusters (step 06) share B's k-tiles of whole tiles, one part, both consumers");
  static_assert(!Schedule::kPingPong || !kStreamK, "ping-pong consumers take whole tiles");
  static_assert(Schedule::kTileSchedule != TileSchedule::kSplitTiles ||
                    (!Schedule::kPingPong && Schedule::kClusterM == 1),
                "step 10's sum (sum_share) reads the two consumers' accumulators of whole tiles");
  static_assert(!P::kARegisters || (!Schedule::kPingPong && Schedule::kClusterM == 1),
                "step 09's A in registers: two consumers, no clusters");
  EntrySpec s = cuda_spec("sm90", Schedule::kName, Schedule::kStep);
  s.types = gemm_types<P>();
  s.suffix = P::suffix();
  s.tiling = P::tiling();
  s.tiling.schedule = Schedule::kTileSchedule;
  // Stream-K cuts k into ranges per shape by its plan; GemmProblem::split_k does not reach it, so
  // the tiling does not declare a run-time split (TileDesc::split_k = -1): the tuner measured
  // each "split" of these kernels as a separate candidate, all of them the same run.
  s.requirements = P::kParts == 2 ? "any shape, layout, op and ld (A and B split K-major into "
                                     "two TF32 parts in the workspace)"
                 : P::kARegisters ? "any shape, layout, op and ld (TMA rounds the operands to TF32 as it "
                                    "loads them, an MN-major A through registers; of two MN-major "
                                    "operands the smaller, or an operand TMA cannot read, is prepared "
                                    "K-major in the workspace)"
                 : P::kTf32 ? "any shape, layout, op and ld (TMA rounds a K-major operand to TF32 as "
                              "it loads it; an MN-major or unaligned one is prepared K-major in the "
                              "workspace)"
                            : "16-bit A and B, f32 C; any shape, layout, op and ld (an ld TMA cannot "
                              "read, or a large operand's rows off 128-byte lines, is repacked into "
                              "the workspace)";
  s.requirements += Schedule::kRefuses;
  s.auto_rank = auto_rank;
  s.min_sm = 90;
  s.max_sm = 90;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo* d) {
    TILEKIT_RETURN_IF_ERROR(check_wgmma_problem(p, gemm_types<P>()));
    const WgmmaShape<P, Schedule::kClusterM> shape(kernel_view<P>(p));
    // Without a device (a CPU caller asking), the H200's 132 SMs, as workspace_bytes assumes.
    const int sms = d != nullptr ? d->sm_count : 132;
    const std::string why = Schedule::refuses(sms, shape.units, shape.k_tiles);
    return why.empty() ? Status::ok() : not_supported(why);
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) {
    const WgmmaView v = kernel_view<P>(p);
    const WgmmaShape<P, Schedule::kClusterM> shape(v);
    // Without a device (a CPU caller asking), the H200's 132 SMs. (A cluster step's plan is
    // given SMs rather than clusters here: it needs no workspace either way.)
    const WgmmaPlan plan = Schedule::plan(d != nullptr ? d->sm_count : 132, shape.units, shape.k_tiles);
    return WgmmaWorkspace<P>(v, plan, off_line_reads<P, Schedule>()).total();
  };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_wgmma_smem<P, Schedule>();
  };
  k.launch = launch_wgmma<P, Schedule>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(wgmma_kernel<P, Schedule>(false, true)), P::kThreads,
                            smem_bytes<P, Schedule>(), out);
  };
  return k;
}

// The four 16-bit policies that steps 01–03 and 06 register: bf16 and f16 inputs, 128 × 128
// tiles with 6 stages (ranked rank_128) and 128 × 256 with 4 (rank_256).
template <typename Schedule>
void add_16bit_policies(Registry& r, int rank_128, int rank_256) {
  r.add(make_wgmma_entry<WgmmaPolicy<__nv_bfloat16, 128, 6>, Schedule>(rank_128));
  r.add(make_wgmma_entry<WgmmaPolicy<__nv_bfloat16, 256, 4>, Schedule>(rank_256));
  r.add(make_wgmma_entry<WgmmaPolicy<__half, 128, 6>, Schedule>(rank_128));
  r.add(make_wgmma_entry<WgmmaPolicy<__half, 256, 4>, Schedule>(rank_256));
}

}  // namespace tilekit::cuda::sm90
