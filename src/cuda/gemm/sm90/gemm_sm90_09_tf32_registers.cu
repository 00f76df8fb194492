// gemm_sm90_09_tf32_registers.cu — step 9 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    tf32 with an MN-major A read from shared memory into registers, so that no operand
//          stored MN-major needs a pre-pass. TF32 wgmma takes B only K-major from shared memory,
//          but A from registers in any order: the consumers load A's fragments themselves
//          (scalar shared loads, in a row order of the warp's own that keeps them free of bank
//          conflicts; the epilogue stores each accumulator row where that order puts it). Where B
//          alone is MN-major (row-major NN) the kernel computes Cᵀ = Bᵀ·Aᵀ instead and stores C
//          transposed, so that B becomes the A it reads through registers. TMA rounds both
//          operands to TF32 as it loads them (TFLOAT32 tensor maps), in place. Where A is K-major
//          in the kernel's view (NT), both operands go to the tensor cores from shared memory, as
//          steps 04 and 07 do. Each k8 step is its own wgmma group, two kept in flight while the
//          next step's fragments load. C leaves through TMA stores (step 07's idea): the two warps
//          that hold a 32-row chunk stage 32 × 32 boxes together (PairBox), written transposed
//          where C is, so every store is of whole 128-byte lines of C.
// Requires: sm_90; FP32 A, B and C; any shape, layout, op and ld. Only op(A) and op(B) both
//          MN-major in the row-major view (TN) still prepare one operand: the smaller, the
//          operands swapped as for NN when B is the larger. An operand whose ld TMA cannot read
//          (not a multiple of 4 floats) is prepared as before. A C TMA cannot store (its rows
//          not a multiple of 4 floats) is stored by the threads.
// Expect:  NN and TT at NT's speed (both operands read in place): the pre-pass (~10% of the
//          call at 4096) gone. Measured at 4096 (docs/hopper.md): the TMA-store epilogue −4% of
//          the kernel's time for NN (half the L2 write sectors of the transposed direct
//          stores); the k-step pipeline level with waiting for each k-tile.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct PersistentARegisters : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_09_tf32_registers";
  static constexpr int kStep = 9;
  static constexpr sm90::Epilogue kEpilogue = sm90::Epilogue::kTmaStore;  // through pair boxes
};

template <int kBn, int kStages>
using ARegistersPolicy = sm90::WgmmaPolicy<float, kBn, kStages, sm90::Operands::kTf32ARegisters>;

}  // namespace

// 128 × 256 ranks first among the tf32 kernels: with an operand stored MN-major (row-major NN,
// TT, column-major) it measured 6% faster than step 07 at 4096 (NN 365 against 344 TFLOP/s) and
// at 8192 (no pre-pass), 1–2% behind where both operands are K-major (NT). Where an ld TMA cannot
// read makes both operands go through the pre-pass (4097), step 07's stream-K walk is faster (267
// against 246 TFLOP/s): the tuned table, not the ranking, is the place for that choice. 128 × 128
// is slower everywhere measured (two wgmma per k-step read the B tile twice, as in step 05).
void register_gemm_sm90_09_tf32_registers(Registry& r) {
  r.add(sm90::make_wgmma_entry<ARegistersPolicy<128, 6>, PersistentARegisters>(22));
  r.add(sm90::make_wgmma_entry<ARegistersPolicy<256, 4>, PersistentARegisters>(26));
}

}  // namespace tilekit::cuda
