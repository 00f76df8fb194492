// gemm_sm90_08_ping_pong_tma_store.cu — step 8 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    step 05's ping-pong consumers with step 07's epilogue, on 64 × 256 tiles. In step 07
//          both consumers share each 128 × 256 tile and both stop multiplying while they stage
//          it for TMA: 2.7–3.8 µs of a ~45 µs tile at 4096, and 5–10 µs with an odd ldc, whose
//          rows the warps store themselves (a segment timeline, docs/hopper.md). Here each
//          consumer takes every other tile whole and stores it through its warps' boxes while
//          the other multiplies, and hands the turn over as soon as its last wgmma group is
//          issued (step 05 waited for it to finish), so the tensor cores see no epilogue. A
//          64 × 256 tile is one m64n256k16 per k-step: the same shared-memory reads per FLOP as
//          step 07's 128 × 256 (step 05's 128 × 128 reads B twice per k-step and was bound by
//          the shared-memory pipe), for 128 accumulators per thread.
// Requires: as step 02 (16-bit inputs), or as step 04 for tf32. Persistent blocks, whole tiles
//          (no stream-K).
// Expect:  the epilogue's share of step 07 back (~7% at 4096, more at 4097), against 1.67x the
//          L2 → shared traffic of 128 × 256 tiles (A is loaded for 64 rows, not 128) and twice
//          the tiles (finer waves: 8.37 rounds at 4097 instead of 4.25). Measured (H200, bf16,
//          two runs, TFLOP/s): 64 × 256 641 / 654 at 4096 against step 07's 656 / 687 — the
//          traffic costs more than the epilogue saved. Registered with step 05's 128 × 128 tile
//          too: 660 / 697 at 4096 (0.999x / 1.006x cuBLAS), 504 / 511 at 4097 (4.18x / 4.02x,
//          step 07's stream-K walk 506 / 497), 13% behind step 07 at 8193 (one run).
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

// Step 05's walk and consumers with step 07's stores. 16 tile rows walked together: with
// 64-row tiles, the same 1024 rows of C as step 07's 8 rows of 128.
struct PingPongTmaStore : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_08_ping_pong_tma_store";
  static constexpr int kStep = 8;
  static constexpr int kGroupRows = 16;
  static constexpr bool kPingPong = true;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;
};

template <typename T, int kBm, int kBn, int kStages, sm90::Operands kOperands = sm90::Operands::k16Bit>
void add(Registry& r, int auto_rank) {
  using Policy = sm90::WgmmaPolicy<T, kBn, kStages, kOperands, kBm>;
  r.add(sm90::make_wgmma_entry<Policy, PingPongTmaStore>(auto_rank));
}

}  // namespace

// 64 × 256 with a 4-stage ring (4 × 40 KB beside 32 KB of boxes), and step 05's 128 × 128 with 6
// (6 × 32 KB beside the boxes). Ranked below step 07's 128 × 256 entries: the 128 × 128 policy
// was level or ahead of them at 4096, 4097 and 8192 in two runs but 13% behind at 8193; the
// 64 × 256 policy behind them at every size but 8192 (docs/hopper.md, step 08).
void register_gemm_sm90_08_ping_pong_tma_store(Registry& r) {
  add<__nv_bfloat16, 128, 128, 6>(r, 23);
  add<__half, 128, 128, 6>(r, 23);
  add<__nv_bfloat16, 64, 256, 4>(r, 22);
  add<__half, 64, 256, 4>(r, 22);
  // tf32: 64-row tiles for m <= 64, and the epilogue off the tensor cores. Measured on the H200
  // (docs/hopper.md, step 08): correct, nowhere the fastest own kernel (4097: 0.544 ms against
  // the stream-K walk's 0.527), so ranked below every tf32 entry; the tuner may choose it.
  add<float, 64, 256, 4, sm90::Operands::kTf32>(r, 19);
  add<float, 128, 128, 6, sm90::Operands::kTf32>(r, 19);
}

}  // namespace tilekit::cuda
