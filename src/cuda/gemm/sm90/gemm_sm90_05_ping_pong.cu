// gemm_sm90_05_ping_pong.cu — step 5 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    ping-pong consumers. In steps 01–04 both consumer warpgroups share each tile (64 rows
//          each), so both stop multiplying while they store it. Here each consumer takes every
//          other tile of the walk whole (two m64 wgmma per k-step, 128 × 128 accumulators) and
//          the shared ring hands them their k-tiles in walk order: while one warpgroup stores
//          tile t, the other is already multiplying tile t + 1, and the tensor cores never wait
//          for an epilogue. Persistent blocks and grouped tile order as step 02.
// Requires: as step 01. 128 × 128 tiles (a whole tile's accumulators must fit one warpgroup).
// Expect:  the epilogue hidden (a few % at n ≥ 4096), against 1.33x the L2 traffic of 128 × 256
//          tiles. Measured (H200, bf16): first 0.53x step 02 at 4096 and 8192, because ptxas
//          serialized every wgmma of the loop (C7515: the accumulators' zero-initialisation
//          counted as non-wgmma definitions). Without it: 666 TFLOP/s at 4096, 676 at 8192 and
//          581 at 2048, against 656 / 659 / 563 for step 02 with 128 × 128 tiles and 651 / 654 /
//          578 for step 07 with 128 × 256 (cuBLAS 761 / 661 / 593); 440 at 4097 against step
//          07's 469. A second run: 664 / 686 / 574 against step 07's 673 / 675 / 572.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct PingPong : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_05_ping_pong";
  static constexpr int kStep = 5;
  static constexpr bool kPingPong = true;
};

template <typename P>
GemmKernel make_ping_pong_entry(int auto_rank) {
  return sm90::make_wgmma_entry<P, PingPong>(auto_rank);
}

}  // namespace

// Ranked between step 07's 128 × 128 and 128 × 256 entries: in two runs since the fix it was
// ahead of step 07's 128 × 256 tiles at 8192 and level or behind at 2048 and 4096.
void register_gemm_sm90_05_ping_pong(Registry& r) {
  r.add(make_ping_pong_entry<sm90::WgmmaPolicy<__nv_bfloat16, 128, 6>>(22));
  r.add(make_ping_pong_entry<sm90::WgmmaPolicy<__half, 128, 6>>(22));
}

}  // namespace tilekit::cuda
