// gemm_sm90_06_multicast.cu — step 6 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    thread-block clusters of 2 with TMA multicast. The two blocks of a cluster (on two
//          SMs of one GPC) take two tiles stacked along m, which need the same k-tiles of B:
//          each block loads its own A k-tile and half of B's, multicast into both blocks'
//          shared memory, so B is read from L2 once per pair of tiles. Per 128 × 256 tile and
//          k-tile the L2 → SM traffic drops from 48 KB (16 KB A + 32 KB B) to 32 KB. A stage is
//          free only when the consumers of both blocks have read it (each consumer warp arrives
//          on both blocks' `empty` barrier); a stage is full when all bytes from both
//          producers have landed (the multicast completes on each block's own `full` barrier).
//          Persistent clusters (as many as the device holds at once) walk the pairs of tiles in
//          groups of 4 pairs (8 tile rows), as step 02 walks tiles.
// Requires: as step 01; the launch places 2-block clusters (cudaLaunchKernelEx).
// Expect:  a gain where L2 bandwidth bounds the mainloop (~130 SMs each pulling 48 KB per k-tile
//          of a 128 × 256 tile). Measured (H200, bf16): none — level with step 02 at 4096
//          (732 vs 730 TFLOP/s), 4097 and 8192, 9% slower at 8193: under ncu step 02's L2 is only
//          48% busy, so the traffic saved was not what held it back. The first version made each
//          remote `empty` arrival a cluster-scope release (a memory fence per consumer warp per
//          k-tile): 0.57× step 02, the warps stalled on the fence. Kept, ranked below step 02,
//          as the measured answer (docs/hopper.md).
#include <algorithm>

#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// Clusters of 2 blocks (tiles 2i and 2i + 1 of a tile column), one cluster per 2 SMs.
struct ClusterPairs : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_06_multicast";
  static constexpr int kStep = 6;
  static constexpr int kGroupRows = 4;  // pairs of tile rows: 8 tile rows walked together
  static constexpr int kClusterM = 2;
  // `clusters` resident at once, `pairs` to compute: each cluster walks pairs with a stride.
  static sm90::WgmmaPlan plan(int clusters, int pairs, int /*k_tiles*/) {
    return sm90::WgmmaPlan{kClusterM * std::min(clusters, pairs), pairs, 0};
  }
};

}  // namespace

void register_gemm_sm90_06_multicast(Registry& r) {
  sm90::add_16bit_policies<ClusterPairs>(r, 16, 17);
}

}  // namespace tilekit::cuda
