// gemm_sm90_01_tma_wgmma.cu — step 1 of the Hopper GEMM family (sm_90a; docs/hopper.md).
//
// Adds:    tensor cores through wgmma, fed by TMA. A producer warpgroup streams 64-deep k-tiles
//          of A and B into a ring of shared-memory stages (128-byte swizzle, completion counted
//          in bytes on an mbarrier per stage); two consumer warpgroups each multiply a 64-row
//          half of the 128 × BN C tile with wgmma m64nBNk16 straight from shared memory, and
//          hand the stage back on a second mbarrier. setmaxnreg moves registers from the
//          producer to the consumers' accumulators. One block per C tile.
// Requires: sm_90 (the cubin is sm_90a); bf16 or f16 A and B, f32 C. Any m, n, k, op and
//          layout: TMA zero-fills past the edges, wgmma reads K-major and MN-major tiles. An ld
//          that is not a multiple of 8 elements (or an operand not 16-byte aligned) is repacked
//          once into the workspace.
// Expect:  several hundred TFLOP/s at 4096 (the SIMT ladder's ceiling is the 67 TFLOP/s FFMA
//          peak); short of cuBLAS where one wave of tiles leaves SMs idle at the tail and each
//          block's epilogue stalls its own tensor cores (step 02 answers both).
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// One block per C tile, tiles in row order.
struct TilePerBlock : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_01_tma_wgmma";
  static constexpr int kStep = 1;
  static constexpr int kGroupRows = 1;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kOneBlockPerTile;
  static sm90::WgmmaPlan plan(int /*sms*/, int tiles, int /*k_tiles*/) {
    return sm90::WgmmaPlan{tiles, tiles, 0};
  }
};

}  // namespace

void register_gemm_sm90_01_tma_wgmma(Registry& r) {
  sm90::add_16bit_policies<TilePerBlock>(r, 18, 19);
}

}  // namespace tilekit::cuda
