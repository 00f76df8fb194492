// tile_config.cuh — what every part of the Hopper family agrees on (sm_90a): how the tensor
// cores see the operands, the tile policy (block tile, k-tile, ring depth, accumulators, shared
// memory), the register split between producer and consumers, and the kernel's arguments.
// Contract: a policy is a type with the named constants below; every other part reads only those.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "cuda/gemm/sm90/schedule.hpp"
#include "cuda/gemm/sm90/tma_operands.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cuda::sm90 {

// How the tensor cores see the operands: the element type in shared memory and how many parts
// each FP32 input is split into (tf32: 1; 3xTF32: 2, a big and a small TF32 part), and whether
// an MN-major A reaches the wgmma through registers (kTf32ARegisters, mainloop_a_registers.cuh).
enum class Operands { k16Bit, kTf32, kTf32x3, kTf32ARegisters };

// A tile policy: element type (bf16, f16, or float read as tf32), C tile kBm × kBn, k-tiles of
// 128-byte rows (64 16-bit or 32 FP32 elements), ring depth. kBm is 128 (two 64-row halves: one
// per consumer, or both for one ping-pong consumer) or 64 (ping-pong only: one half). kBn is a
// wgmma n of wgmma_ops.cuh: 128 or 256, or a narrow 16, 32 or 64.
//
// A narrow tile is for a C with a short side: its policy puts that side along n (kernel_view
// computes Cᵀ = op(B)ᵀ·op(A)ᵀ where m < n), so that the long operand streams through the 128-row
// A tiles while the tensor cores compute at most 15 columns beyond the short side (a 16-row
// x·Wᵀ on a 128 × 128 tile computes 8 times the rows it keeps; the tile's k-range is cut among
// the SMs by its scheduler).
template <typename T, int kBnN, int kStagesN, Operands kOperandsN = Operands::k16Bit, int kBmN = 128>
struct WgmmaPolicy {
  using Element = T;
  static constexpr Operands kOperands = kOperandsN;
  static constexpr bool kTf32 = kOperands != Operands::k16Bit;
  static constexpr int kParts = kOperands == Operands::kTf32x3 ? 2 : 1;
  static constexpr bool kARegisters = kOperands == Operands::kTf32ARegisters;
  static constexpr bool kShortSideAlongN = kBnN < 128;  // a narrow tile (above)
  // 3xTF32 adds each k-tile's wgmma sum into FP32 registers with IEEE adds: the tensor cores'
  // own FP32 accumulation does not round to nearest, and its error grows with k far past
  // SGEMM's (docs/hopper.md, "FP32 promotion"). Needs further sets of accumulators (mainloop.cuh).
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
  static_assert(!kPromote || kBn <= 128, "two sets of 128 x 256 accumulators do not fit");
  static_assert(kBn == 16 || kBn == 32 || kBn == 64 || kBn == 128 || kBn == 256,
                "wgmma_ops.cuh instantiates n = 16, 32, 64, 128 and 256");
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
    t.short_side_along_n = kShortSideAlongN;
    return t;
  }
};

// Registers per thread after setmaxnreg: 128·40 + 256·232 = 64512 ≤ 65536 per block.
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;

// The kernel's arguments, filled on the host (wgmma_args, launch.cuh).
struct WgmmaArgs {
  int m = 0, n = 0, k = 0;  // the row-major view (tma_operands.hpp)
  int tiles_m = 0, tiles_n = 0, k_tiles = 0;
  int group_rows = 1;       // tile rows walked together (L2-aware order)
  float alpha = 1, beta = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  bool c_pairs = false;     // ldc even and C 8-byte aligned: stores of 2 floats
  bool c_tma = false;       // TMA-store epilogue: C has a tensor map (OperandMaps::c)
  // Stream-K tail (zero elsewhere): the walk's first `whole_tiles` tiles go to blocks
  // whole, round robin; the k-tiles of the rest are cut into gridDim.x contiguous ranges
  // (stream_k_begin). A tile cut between blocks is summed by the block holding its last k-tile
  // from the others' partial tiles (`partials`, one slot per block, published on `flags`).
  int whole_tiles = 0;
  int64_t stream_k_iters = 0;  // k-tiles of the stream-K tiles, all together
  // Split tiles (0 elsewhere): each tile cut into this many equal k-pieces, block b computing
  // piece b % split_pieces of tile b / split_pieces; each publishes its partial tile, then sums
  // its share of the tile from all of them (sum_share).
  int split_pieces = 0;
  float* partials = nullptr;
  int* flags = nullptr;
};

}  // namespace tilekit::cuda::sm90
