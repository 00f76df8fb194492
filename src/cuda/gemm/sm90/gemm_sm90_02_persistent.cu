// gemm_sm90_02_persistent.cu — step 2 of the Hopper GEMM family (sm_90a; docs/hopper.md).
//
// Adds:    persistent blocks and an L2-aware tile order. One block per SM walks the tile list
//          (stride = number of blocks), so the producer already streams the next tile's k-tiles
//          while the consumers store the last one, and no block launch or barrier set-up is paid
//          per tile. Tiles are walked in groups of 8 tile rows, column by column, so that the
//          ~132 tiles in flight share a few B column blocks and A row blocks in L2.
// Requires: as step 01.
// Expect:  the epilogue hidden behind the next tile's loads; gains largest where tiles are
//          many (n ≥ 4096) and where step 01's one-tile-per-block grid leaves a partial wave.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// One block per SM (fewer when there are fewer tiles), tiles in groups of 8 tile rows.
struct Persistent : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_02_persistent";
  static constexpr int kStep = 2;
};

}  // namespace

void register_gemm_sm90_02_persistent(Registry& r) {
  sm90::add_16bit_policies<Persistent>(r, 22, 23);
}

}  // namespace tilekit::cuda
