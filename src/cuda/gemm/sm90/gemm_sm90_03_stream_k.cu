// gemm_sm90_03_stream_k.cu — step 3 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    a stream-K tail. With T tiles on S persistent blocks, step 02 runs ceil(T / S) rounds
//          of tiles while the last round keeps only T mod S blocks busy (4097²: 561 tiles =
//          4.25 rounds take 5). Here the tiles of the last partial round plus one full round
//          are not handed out whole: their k-tiles, laid end to end, are cut into S equal
//          ranges, one per block, after each block's whole tiles. A tile cut between blocks is
//          finished by the block holding its last k-tile, which adds the partial tiles the
//          others published (a slot per block in the workspace, a flag each) in a fixed order:
//          results are identical run to run, and no float atomics touch C.
// Requires: as step 01 (16-bit inputs) or step 04 (tf32, 3xTF32); all blocks resident at once
//          (one per SM: the ring takes > half an SM's shared memory), since a block may wait for
//          a lower-numbered one.
// Expect:  the tail round's idle SMs put to work: up to (rounds − T/S) / rounds faster than step
//          02 (15% at 4097, 3% at 4096 and 8192), minus the partial tiles' traffic. Measured
//          (H200): 8193² +12%, 4097² +2%, 4096² −5%, 2048² −15%. tf32 and 3xTF32 against step
//          04 (one run): 4097² +4% (tf32 128 x 256) and +5% (3xTF32), 8193² level, 4096² −3%.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct StreamKTail : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_03_stream_k";
  static constexpr int kStep = 3;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamK;
  static sm90::WgmmaPlan plan(int sms, int tiles, int k_tiles) {
    return sm90::stream_k_tail_plan(sms, tiles, k_tiles);
  }
};

}  // namespace

// Ranked below step 02: on the H200 the tail costs less than its share of SMs suggests (the
// busy SMs clock higher), and the partial tiles cost more (docs/hopper.md has the figures).
// The tf32 and 3xTF32 policies of step 04 get the same tail (3xTF32's 128 × 128 tiles make 1089
// tiles at 4097², 8.25 rounds paid as 9).
void register_gemm_sm90_03_stream_k(Registry& r) {
  sm90::add_16bit_policies<StreamKTail>(r, 20, 21);
  using sm90::Operands;
  using sm90::WgmmaPolicy;
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 128, 6, Operands::kTf32>, StreamKTail>(20));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 256, 4, Operands::kTf32>, StreamKTail>(21));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>, StreamKTail>(21));
}

}  // namespace tilekit::cuda
