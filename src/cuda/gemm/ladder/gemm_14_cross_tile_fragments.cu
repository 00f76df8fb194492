// gemm_14_cross_tile_fragments.cu — step 14 of the GEMM ladder.
// Adds:     the barrier inside each k-tile's last k-step (cross_tile_fragments.cuh): tile kt + 1's
//           first fragments are loaded while tile kt's last FFMAs run, where step 13 passes the
//           barrier at the top of every k-tile and then waits for its first fragments. Loop,
//           operand paths, split-K and tile order: step 13 (whole-chunk operands; step 10's
//           kernel otherwise).
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit offsets); split-K's
//           workspace (step 10). The fragments of two k-steps stay live across the loop's back
//           edge: 128×256×16 (247 registers) and 64×128×16 measured slower than step 13 and are
//           not registered.
// Expect:   fewer encoded stall cycles where both operands go by cp.async (cuobjdump -sass,
//           scripts/sass_control.py, CUDA 13.0, 128×256×8 main loop, TN: 1140 instructions and
//           1154 stall cycles, step 13 1153 and 1285, cuBLAS's loop 1154 and 1161). Measured
//           (H200, same run, against cuBLAS SGEMM): 4096 TN 51.2 TFLOP/s = 0.99× (step 13:
//           0.91×), NN 46.1 = 0.90× (step 13 0.91×), NT 0.91×, TT 0.93×, 8192 NN 0.91×; in
//           the targets table at 93651f1, 128×256×8 leads 1024–16384 NN (4096: 47.8, 0.94×). ncu at
//           4096 (TN against NN): FMA pipe 80.0% against 73.1% busy, 0.9 K against 7.1 K
//           barrier and 2.6 K against 17.7 K short-scoreboard stall samples. The register path
//           of a K-major operand (A in NN, B in NT) keeps the warps apart at the barrier.
#include "cuda/gemm/ladder/cross_tile_fragments.cuh"
#include "cuda/gemm/ladder/split_k.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {
namespace {

template <typename W, int kStages, int kMinBlocks>
using CrossTile = PipelinePolicy<W, kStages, kMinBlocks, CrossTileLoads>;

template <typename P>
GemmKernel make_cross_tile_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "14_cross_tile", 14);
  s.auto_rank = auto_rank;
  return make_split_k_entry<P, PaddedLayout, GroupedRaster<8>>(s);
}

using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;

}  // namespace

// gemm.cuda.14_cross_tile.f32.<tile>_w<warps>_t<thread tile>_s<stages>. Where nothing was tuned,
// `auto` takes 128×128×16 first: level with step 13's at every large square and op measured and
// ahead at NT; 128×256×8 leads TN by 9% (docs/ladder.md, "Steps 13 and 14").
void register_gemm_14_cross_tile_fragments(Registry& r) {
  r.add(make_cross_tile_entry<CrossTile<Warp128x128x16, 3, 2>>(21));
  r.add(make_cross_tile_entry<CrossTile<Warp128x256x8, 2, 1>>(19));
}

}  // namespace tilekit::cuda
