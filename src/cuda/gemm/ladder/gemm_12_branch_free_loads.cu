// gemm_12_branch_free_loads.cu — step 12 of the GEMM ladder.
// Adds:     operand loads without per-thread branches (branch_free_loads.cuh). Step 08 skips the
//           checks on interior tiles and branches per chunk on edge tiles: its main loop holds
//           16 branches in 3 BSSY/BSYNC regions, and 4-byte cp.async edge copies each padded by
//           ptxas with three `@!PT LDS` no-ops, where cuBLAS's loop has one branch and takes
//           edges with LDGSTS's zero-fill operand (docs/ladder.md, the ceiling section). Here a
//           chunk's edge test is data: cp.async zero-fills a chunk outside the operand (reading
//           the operand's first element instead of its own address), and the register path
//           reads a clamped address and zeroes the lanes outside with a select at the shared
//           store. Whole 16-byte chunks need the operand's columns to be a multiple of 4;
//           otherwise that operand goes by element loads. Pipeline, tiles, order: step 08.
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit sizes; operands
//           spanning more than 2^31 - 1 elements run in pieces: for_each_32bit_piece).
// Expect:   a gain where cp.async carries the operands (their edge paths leave the loop), a
//           small loss where registers do (a select and a clamped address per chunk on every
//           tile, where step 08's interior tiles had none). Measured (H200, same run as step
//           08): 128×256 s2 44.9 TFLOP/s = 0.88× cuBLAS at 4096 NN (08: 43.8, 0.86×), 45.2 at
//           8192 (43.9); TN 44.3 against 41.3 (+7%); NT 41.5 against 42.4 (−2%); 4097
//           (ld not a multiple of 4: element loads) 32.7 against 33.2. The two halves do not
//           separate: these copies with step 08's register path measured below this step on
//           every op that copies (4096 NN 43.0, TN 42.8), at NN below step 08 too, the loop's
//           FFMA block scheduled as step 08's (docs/ladder.md, "The hybrid").
#include "cuda/gemm/ladder/branch_free_loads.cuh"

namespace tilekit::cuda {
namespace {

template <typename P>
GemmKernel make_branch_free_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "12_branch_free", 12);
  s.auto_rank = auto_rank;
  return make_pipelined_entry<P, PaddedLayout, RowRaster>(s);
}

template <typename W, int kStages, int kMinBlocks>
using BranchFree = PipelinePolicy<W, kStages, kMinBlocks, BranchFreeLoads>;

using Warp128x128x8 = WarpTilePolicy<128, 128, 8, 2, 4, 8, 8, 8>;
using Warp64x64x16 = WarpTilePolicy<64, 64, 16, 2, 2, 4, 8, 4>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;

}  // namespace

// gemm.cuda.12_branch_free.f32.<tile>_w<warps>_t<thread tile>_s<stages>: step 08's policies
// that lead at some size (docs/ladder.md), side by side with their step 08 twins. Ranks equal to
// the twins': on a tie `auto` keeps the first registered (step 08), and step 10 outranks both.
void register_gemm_12_branch_free_loads(Registry& r) {
  r.add(make_branch_free_entry<BranchFree<Warp128x256x8, 2, 1>>(14));
  r.add(make_branch_free_entry<BranchFree<Warp128x256x8, 3, 1>>(13));
  r.add(make_branch_free_entry<BranchFree<Warp128x128x8, 4, 2>>(12));
  r.add(make_branch_free_entry<BranchFree<Warp64x64x16, 4, 4>>(11));
}

}  // namespace tilekit::cuda
