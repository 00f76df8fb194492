// gemm_13_straight_loop.cu — step 13 of the GEMM ladder.
// Adds:     a main loop that is one basic block (straight_loop.cuh). Step 12's loop still
//           branches on launch-uniform facts (each operand's path, whether a next k-tile
//           exists); ptxas schedules inside basic blocks, so the loads' address arithmetic ran
//           as a serial block beside the FFMAs instead of among them. Here the operand paths are
//           template facts for operands in whole 16-byte chunks, and the last tiles' fetches
//           are zero fills instead of skipped, so the loop's only branch is its own. Other
//           operands (an ld or a column count not a multiple of 4, an unaligned base) run step
//           10's kernel with the same tiles. Tiles, split-K and tile order: step 10.
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit offsets); split-K's
//           workspace (step 10).
// Expect:   the same instructions as step 10 with fewer encoded stall cycles per k-tile
//           (cuobjdump -sass, scripts/sass_control.py, CUDA 13.0, 128×256×8 NN main loop:
//           1143 instructions and 1258 stall cycles over every path, against step 12's 1324 and
//           1681; cuBLAS's loop 1154 and 1161), so more of the FMA pipe's time issuing FFMAs.
//           Measured (H200, same run, best policy of each step against cuBLAS SGEMM): 4096 NN
//           46.6 TFLOP/s = 0.91× (step 10: 0.87×), 8192 0.92× (0.89×), 4096 TN / NT / TT
//           0.91× / 0.90× / 0.93× (step 10: 0.83× / 0.88× / 0.91×), 256×8192×8192 1.00×
//           (0.96×), 3456×4096×4096 0.89× (0.86×), 16384×16384×128 1.11× (1.08×).
#include "cuda/gemm/ladder/split_k.cuh"
#include "cuda/gemm/ladder/straight_loop.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {
namespace {

template <typename W, int kStages, int kMinBlocks>
using Straight = PipelinePolicy<W, kStages, kMinBlocks, StraightLoads>;

template <typename P>
GemmKernel make_straight_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "13_straight_loop", 13);
  s.auto_rank = auto_rank;
  return make_split_k_entry<P, PaddedLayout, GroupedRaster<8>>(s);
}

using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;
using Warp128x256x16 = WarpTilePolicy<128, 256, 16, 2, 4, 8, 8, 16>;
using Warp64x128x16 = WarpTilePolicy<64, 128, 16, 2, 2, 4, 8, 8>;

}  // namespace

// gemm.cuda.13_straight_loop.f32.<tile>_w<warps>_t<thread tile>_s<stages>: step 10's leading
// tiles (docs/ladder.md). Ranked above step 10, whose tiles each of them beats at every whole-chunk
// shape measured, and below step 14's 128×128×16 (`auto` where nothing was tuned).
void register_gemm_13_straight_loop(Registry& r) {
  r.add(make_straight_entry<Straight<Warp128x128x16, 3, 2>>(20));
  r.add(make_straight_entry<Straight<Warp128x256x8, 2, 1>>(6));
  r.add(make_straight_entry<Straight<Warp128x256x16, 2, 1>>(7));
  r.add(make_straight_entry<Straight<Warp64x128x16, 3, 3>>(5));
}

}  // namespace tilekit::cuda
