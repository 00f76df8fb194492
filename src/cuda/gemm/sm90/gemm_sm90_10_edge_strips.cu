// gemm_sm90_10_edge_strips.cu — step 10 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    the rows and columns of an odd size past the last whole tile, when there are at most
//          kEdgeMaxRows (8) of them, leave the tensor-core kernel: it computes the whole tiles
//          only, and thin products (edge_strips.cu) compute the edges after it on the same
//          stream, each reading the other operand once at memory speed. At 4097² in 128 × 256
//          tiles the kernel walks 512 tiles (3.88 rounds on 132 SMs) instead of 561 (4.25), of
//          which 49 held one row or one column of C.
// Requires: as step 07 (16-bit and 3xTF32) or step 09 (tf32); the edge rows are read as the
//          mode reads its inputs (tf32: rounded to nearest even; 3xTF32: FP32 products, at least
//          as accurate as the split).
// Expect:  H200, the 4097² problem's time less what the edge tiles took: 4096 × 4096 × 4097
//          (no edge tiles, A repacked) ran in 0.221 ms (bf16) and 0.420 ms (tf32) against 0.282
//          and 0.534 ms for 4097² (binaries of `0fde4b5`), plus the strips' two reads of A and B.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// Step 07's walks (the stream-K tail where the last round is at most half full) and epilogue.
struct EdgeStripsTmaStore : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_10_edge_strips";
  static constexpr int kStep = 10;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamKHalfTail;
  static constexpr bool kEdgeStrips = true;
  static sm90::WgmmaPlan plan(int sms, int tiles, int k_tiles) {
    return sm90::half_tail_plan(sms, tiles, k_tiles);
  }
};

// Step 09's walk: A through registers, C through pair boxes.
struct EdgeStripsARegisters : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_10_edge_strips";
  static constexpr int kStep = 10;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
  static constexpr bool kEdgeStrips = true;
};

using sm90::Operands;
using sm90::WgmmaPolicy;

}  // namespace

// The policies that ran fastest at 4097 and at 4096 × 4096 × 4097 in their mode. Ranked below
// the steps they extend: where nothing is left over they are those steps, and where something
// is, two more launches cost more than the edge tiles save on small problems; the tuner's table
// chooses them where they pay.
void register_gemm_sm90_10_edge_strips(Registry& r) {
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<__nv_bfloat16, 256, 4>, EdgeStripsTmaStore>(19));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<__half, 256, 4>, EdgeStripsTmaStore>(19));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 256, 4, Operands::kTf32ARegisters>, EdgeStripsARegisters>(19));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>, EdgeStripsTmaStore>(19));
}

}  // namespace tilekit::cuda
