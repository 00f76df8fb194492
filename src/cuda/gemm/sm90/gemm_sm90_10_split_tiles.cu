// gemm_sm90_10_split_tiles.cu — step 10 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    split-K with the sum shared out. With fewer tiles than SMs and k deep (100 × 100 ×
//          30000: one tile of 469 k-tiles), step 03's stream-K walk cuts a tile among blocks and
//          the block holding its last k-tile adds the others' partial tiles one after another,
//          so the walk caps the pieces (stream_k_max_pieces: about sqrt(k-tiles / 4), 10 here)
//          and most SMs idle while 10 stream the operands. Here each tile is cut into P equal
//          k-pieces, P = SMs / tiles (split_tile_pieces: 117 here, each piece at least 4
//          k-tiles), one block each; every block publishes its partial tile (a slot per block,
//          as step 03's) and raises its tile's counter, waits until all P pieces of the tile
//          have, and then sums a 1/P share of the tile's elements over the P slots in piece
//          order (the same bits every run), applies alpha and beta and stores them. The sum
//          reads one tile's worth of partials per block whatever P is.
// Requires: as step 07 (tf32: as step 09, whose operands it takes); P ≥ 2 on the device's SMs
//          (fewer tiles than half the SMs, and k deep enough), refused otherwise: there it would
//          be step 07's persistent walk (step 09's for tf32), a twin that the autotuner could
//          only tell apart by noise. (Fewer SMs at launch, Context::sm_limit, may still give
//          P < 2: the plan then runs that persistent walk.) All of a launch's blocks resident at
//          once (at most one per SM: a block waits for higher-numbered ones too).
// Expect:  few-tile, deep-k shapes limited by memory bandwidth rather than by one SM's: the
//          operands streamed by every SM, plus P partial tiles written and read (P × 64 KB:
//          8.4 MB at P = 132, through L2). Measured (H200, docs/hopper.md): tf32 21.6 µs at
//          100 × 100 × 30000 (cuBLAS 20.8; the capped stream-K walk 58.1), 1.07–1.11× cuBLAS at
//          256² × 16384 and 400² × 16000; bf16 25 µs there (cuBLAS 19) after its repack of
//          short rows; at 9–16 tiles the capped stream-K walk is level or ahead in bf16.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct SplitTiles : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_10_split_tiles";
  static constexpr int kStep = 10;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kSplitTiles;
  static sm90::WgmmaPlan plan(int sms, int tiles, int k_tiles) {
    return split_tiles_plan(sms, tiles, k_tiles);
  }
  static constexpr const char* kRefuses =
      "; refuses shapes whose tiles would get fewer than 2 k-pieces of at least 4 k-tiles each "
      "(tiles at least half the SMs, or k short)";
  static std::string refuses(int sms, int tiles, int k_tiles) {
    if (split_tile_pieces(sms, tiles, k_tiles) >= 2) return {};
    return "splits only when every tile gets 2 or more k-pieces of at least 4 k-tiles: " +
           std::to_string(tiles) + " tiles of " + std::to_string(k_tiles) + " k-tiles on " +
           std::to_string(sms) + " SMs give 1 (the persistent steps run such shapes whole)";
  }
};

}  // namespace

// 128 × 128 tiles only: few tiles is the case this step is for. tf32 takes step 09's operands
// (an MN-major A through registers, A and B swapped where that saves a pre-pass), so that row-major
// NN and TN do not prepare a deep operand first. Ranked below every entry of its types until the
// tune table has measured it (auto takes it from the table).
void register_gemm_sm90_10_split_tiles(Registry& r) {
  using sm90::Operands;
  using sm90::WgmmaPolicy;
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<__nv_bfloat16, 128, 6>, SplitTiles>(15));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<__half, 128, 6>, SplitTiles>(15));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 128, 6, Operands::kTf32ARegisters>, SplitTiles>(15));
  r.add(sm90::make_wgmma_entry<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>, SplitTiles>(15));
}

}  // namespace tilekit::cuda
