// gemm_08_cp_async_pipeline.cu — step 8 of the GEMM ladder.
// Adds:     a multi-stage pipeline (async_pipeline.cuh): a ring of kStages shared stages; while
//           the warps multiply tile kt, tiles kt+1 … kt+kStages−1 are in flight. One barrier per
//           k-tile (steps 5–7 had two and no overlap at all). Operands whose memory rows run
//           along k (Aᵀ, B) with float4 allowed go global → shared by 16-byte cp.async, without
//           registers; the others (A, Bᵀ, or an ld not a multiple of 4) by step 06's float4 loads
//           issued before the tile's math and stored (transposed) after it. A tile wholly inside
//           the matrix skips per-chunk checks; edge chunks are copied element by element and the
//           rest zeroed. Warp tiling as step 07; a 1-D grid of tiles, row after row.
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit sizes; operands
//           spanning more than 2^31 - 1 elements run in pieces: for_each_32bit_piece).
// Expect:   global latency hidden behind math (ncu: "stall long scoreboard" falls, FFMA issue
//           rises). Shared memory: kStages·kBk·(kBm+4 + kBn+4)·4 bytes. Measured (H200, 4096):
//           128×256 t8×16 s2 43.1 TFLOP/s = 0.84× cuBLAS, the ladder's best; s3/s4 41.9/42.1;
//           128×128 s4 39.8 (step 7: 38.9). The first version, 4-byte cp.async for the
//           transposed operand, gained nothing (docs/ladder.md says why).
#include "cuda/gemm/ladder/async_pipeline.cuh"

namespace tilekit::cuda {
namespace {

template <typename P>
GemmKernel make_cp_async_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "08_cp_async", 8);
  s.auto_rank = auto_rank;
  return make_pipelined_entry<P, PaddedLayout, RowRaster>(s);
}

using Warp128x128x8 = WarpTilePolicy<128, 128, 8, 2, 4, 8, 8, 8>;
using Warp64x64x16 = WarpTilePolicy<64, 64, 16, 2, 2, 4, 8, 4>;
using Warp256x128x8 = WarpTilePolicy<256, 128, 8, 4, 2, 4, 16, 8>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;

}  // namespace

// gemm.cuda.08_cp_async.f32.<tile>_w<warps>_t<thread tile>_s<stages>
void register_gemm_08_cp_async_pipeline(Registry& r) {
  // 2 blocks of 8 warps per SM (registers capped at 128) or 1 block with 128 values per thread.
  r.add(make_cp_async_entry<PipelinePolicy<Warp128x128x8, 3, 2>>(13));
  r.add(make_cp_async_entry<PipelinePolicy<Warp128x128x8, 4, 2>>(12));
  r.add(make_cp_async_entry<PipelinePolicy<Warp64x64x16, 4, 4>>(11));
  r.add(make_cp_async_entry<PipelinePolicy<Warp256x128x8, 3, 1>>(12));
  r.add(make_cp_async_entry<PipelinePolicy<Warp128x256x8, 2, 1>>(14));
  r.add(make_cp_async_entry<PipelinePolicy<Warp128x256x8, 3, 1>>(13));
  r.add(make_cp_async_entry<PipelinePolicy<Warp128x256x8, 4, 1>>(12));
}

}  // namespace tilekit::cuda
