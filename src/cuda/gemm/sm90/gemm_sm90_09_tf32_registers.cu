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
//          steps 04 and 07 do. Each k-tile's group is waited for before the next k-tile's
//          fragments are loaded: loading them while it was in flight made ptxas serialize every
//          wgmma (C7513).
// Requires: sm_90; FP32 A, B and C; any shape, layout, op and ld. Only op(A) and op(B) both
//          MN-major in the row-major view (TN) still prepare one operand, and an operand whose
//          ld TMA cannot read (not a multiple of 4 floats) is prepared as before.
// Expect:  NN and TT near NT's speed (both operands read in place): the pre-pass (~10% of the
//          call at 4096) gone, less what waiting for each group costs. Direct C stores (step
//          02's epilogue), transposed where the view is.
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct PersistentARegisters : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_09_tf32_registers";
  static constexpr int kStep = 9;
};

template <int kBn, int kStages>
using ARegistersPolicy = sm90::WgmmaPolicy<float, kBn, kStages, sm90::Operands::kTf32ARegisters>;

}  // namespace

// 128 × 256 ranks first among the tf32 kernels: with an operand stored MN-major (row-major NN,
// TT, column-major) it measured 4–6% faster than step 07 at 4096 and 8192 (no pre-pass), level
// or a little behind where both operands are K-major (NT). Where an ld TMA cannot read makes both
// operands go through the pre-pass (4097), step 07's stream-K walk is faster (267 against 239
// TFLOP/s): the tuned table, not the ranking, is the place for that choice. 128 × 128 is slower
// everywhere measured (two wgmma per k-step read the B tile twice, as in step 05).
void register_gemm_sm90_09_tf32_registers(Registry& r) {
  r.add(sm90::make_wgmma_entry<ARegistersPolicy<128, 6>, PersistentARegisters>(22));
  r.add(sm90::make_wgmma_entry<ARegistersPolicy<256, 4>, PersistentARegisters>(26));
}

}  // namespace tilekit::cuda
