// gemm_sm90_10_narrow_edges.cu — step 10 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    edge tiles that cost what they hold. At an odd size the tiles of C's last row and
//          column hold a sliver of C (4097²: one row or one column of 128 or 256) but cost a
//          whole tile's wgmma: 561 tiles of 128 × 256 where 512 would do, +9.6% work. Here a
//          consumer whose 64 rows lie below C only waits for each stage and frees it, and the
//          last tile column's wgmma is the narrowest n (8, 32 where B is K-major; 64, 128) that
//          covers its columns. The walk puts these cheaper tiles last, after the interior in
//          grouped order, and the stream-K tail (step 07's, where the last round is at most half
//          full) is cut into equal shares of cost rather than of k-tiles: a k-tile of an edge tile
//          weighs what its halves' wgmma cost (half_cost).
// Requires: as step 07 (16-bit inputs, tf32, 3xTF32), two consumers with a 64-row half each.
// Expect:  at sizes one past a multiple of the tile the tensor cores' work falls from 561 to
//          ~529 tile-equivalents (4097², 128 × 256: 32 column-edge tiles at n = 64 or 8, 16
//          row-edge tiles at half cost), up to 6% off the GEMM kernel; the same as step 07 where
//          the tiles fit C (no edges: the same walk and cut).
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// Step 07's stream-K walk and TMA-store epilogue, with narrow edge tiles walked last.
struct NarrowEdgesStreamK : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_10_narrow_edges";
  static constexpr int kStep = 10;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
  static constexpr bool kNarrowEdges = true;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamKHalfTail;
  static sm90::WgmmaPlan plan(int sms, int tiles, int k_tiles) {
    if (tiles % sms > sms / 2) return sm90::persistent_plan(sms, tiles);
    return sm90::stream_k_tail_plan(sms, tiles, k_tiles);
  }
};

using sm90::Operands;
using sm90::WgmmaPolicy;

template <typename P>
void add(Registry& r, int auto_rank) {
  r.add(sm90::make_wgmma_entry<P, NarrowEdgesStreamK>(auto_rank));
}

}  // namespace

// Step 07's stream-K policies, ranked as they are there.
void register_gemm_sm90_10_narrow_edges(Registry& r) {
  sm90::add_16bit_policies<NarrowEdgesStreamK>(r, 20, 25);
  add<WgmmaPolicy<float, 128, 6, Operands::kTf32>>(r, 20);
  add<WgmmaPolicy<float, 256, 4, Operands::kTf32>>(r, 25);
  add<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>>(r, 21);
}

}  // namespace tilekit::cuda
