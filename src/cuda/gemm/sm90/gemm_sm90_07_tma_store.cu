// gemm_sm90_07_tma_store.cu — step 7 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    an epilogue through shared memory and TMA stores. Up to step 06 every consumer
//          thread stores its accumulators to C itself: 64 KB per warpgroup and tile of 8-byte
//          stores, during which neither consumer issues wgmma. Here each consumer warp writes
//          its 16 rows of the tile, 32 columns at a time, into a shared-memory box (alpha and,
//          only when beta ≠ 0, beta·C applied on the way), and one lane hands the box to TMA
//          (cp.async.bulk.tensor, global ← shared). The warp does not wait for C to be written:
//          it waits only until TMA has read a box before refilling it (two boxes per warp, 32 KB
//          of staging per block), and goes on to the next tile's wgmma while TMA drains the
//          rest. The boxes use TMA's 128-byte swizzle, so a warp's writes are conflict-free.
//          TMA clips the boxes at C's edges. A C that TMA cannot store leaves through the same
//          boxes, a row of 32 floats per store instruction by the warp itself (step 02 stored 8
//          rows of 8 bytes, or with n odd of 4 bytes, per instruction). Two walks: persistent
//          blocks and grouped tile order as step 02, and step 03's stream-K tail where the last
//          round of tiles is at most half full (`…_stream_k` ids).
// Requires: as step 02 (16-bit inputs) or step 04 (tf32, 3xTF32). The TMA path needs C 16-byte
//          aligned with n and ldc multiples of 4 (a TMA store clips at C's last column only to
//          16 bytes); any other C takes the warp-stored path.
// Expect:  the consumers' share of the epilogue falls from storing 128 KB per tile to writing
//          it into shared memory; a gain where the tensor pipe idled during step 02's stores.
//          Measured (H200, same run): bf16 4096 747 vs 731 TFLOP/s (128 x 256), 2048 +3%, but
//          128 x 128 tiles 17% slower at 8192 (two runs); 3xTF32 +6% at 4096 and +10% at 8192 in
//          the bench but level under ncu's locked clocks (and faster at 4097 too, where n % 4 ≠ 0
//          stores from registers: not the TMA store as such); tf32 128 x 256 +1-2%. ncu at 4096
//          bf16: the tensor pipe 90.4% busy against step 02's 90.7%: the stores were not what
//          idled it there. With n odd the warp-stored rows took the GEMM kernel at 4097² from
//          284 to 239 µs (bf16) and 475 to 442 µs (tf32); the stream-K walk to 223 and 419 µs.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// Step 02's walk with the TMA-store epilogue.
struct PersistentTmaStore : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_07_tma_store";
  static constexpr int kStep = 7;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
};

// Step 03's walk (stream-K tail) with the same epilogue, where the last round is at most half
// full; step 02's walk otherwise. The partial tiles cost more than a nearly full last round
// leaves idle (H200, bf16 128 x 256, against the persistent walk: 4096², 116 of 132 tiles in
// the last round, −4%; 2048², 128 tiles in all, −18%; 4097², 33, +3 to +6% in four runs;
// 8193², 33, −3 to +9% in four runs).
struct StreamKTmaStore : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_07_tma_store_stream_k";
  static constexpr int kStep = 7;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
  static constexpr TileSchedule kTileSchedule = TileSchedule::kStreamKHalfTail;
  static sm90::WgmmaPlan plan(int sms, int tiles, int k_tiles) {
    if (tiles % sms > sms / 2) return sm90::persistent_plan(sms, tiles);
    return sm90::stream_k_tail_plan(sms, tiles, k_tiles);
  }
};

using sm90::Operands;
using sm90::WgmmaPolicy;

template <typename P, typename Schedule = PersistentTmaStore>
void add(Registry& r, int auto_rank) {
  r.add(sm90::make_wgmma_entry<P, Schedule>(auto_rank));
}

}  // namespace

// Ranked above steps 02 and 04 where it measured faster (128 x 256), below them where it did not
// (128 x 128 16-bit and tf32, and 3xTF32: step 04, which stores C from registers, was level at
// 2048 and 1–4% faster at 4096–8193 even when timed last in each interleaved round, results.md
// "Targets again"; the +6–10% for step 07 measured before came from runs without interleaving).
// The stream-K walk ranks first for 128 x 256 tiles (level where the last round is more than
// half full, faster where not), below the persistent walk for 3xTF32 (level at 4097, +4% at 8192,
// −3% at 4096 in one run) and 128 x 128 tiles (not measured).
void register_gemm_sm90_07_tma_store(Registry& r) {
  sm90::add_16bit_policies<PersistentTmaStore>(r, 21, 24);
  add<WgmmaPolicy<float, 128, 6, Operands::kTf32>>(r, 21);
  add<WgmmaPolicy<float, 256, 4, Operands::kTf32>>(r, 24);
  add<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>>(r, 22);
  sm90::add_16bit_policies<StreamKTmaStore>(r, 20, 25);
  add<WgmmaPolicy<float, 128, 6, Operands::kTf32>, StreamKTmaStore>(r, 20);
  add<WgmmaPolicy<float, 256, 4, Operands::kTf32>, StreamKTmaStore>(r, 25);
  add<WgmmaPolicy<float, 128, 3, Operands::kTf32x3>, StreamKTmaStore>(r, 21);
}

}  // namespace tilekit::cuda
