// gemm_sm90_04_tf32.cu — step 4 of the Hopper family (sm_90a; docs/hopper.md).
//
// Adds:    FP32 inputs on the tensor cores, in two modes the caller asks for by name:
//          tf32       each input rounded to TF32 (10-bit mantissa, to nearest even), one
//                     wgmma m64nNk8 per k8 step;
//          f32_3xtf32 each input split into big = rn(x) and small = rn(x − big), three wgmma
//                     per k8 step (small·big, big·small, big·big; small·small dropped): about
//                     22 mantissa bits per product, FP32-accurate, on tensor cores. Each
//                     k-tile's tensor-core sum is added into a second set of FP32 registers
//                     with IEEE adds (the tensor cores' accumulation does not round to nearest).
//          TF32 wgmma reads both operands K-major and truncates what it reads. A K-major tf32
//          operand is read in place through a TFLOAT32 tensor map, which rounds it as TMA loads
//          it; any other operand, and every 3xTF32 one, is written once into the workspace by a
//          pre-pass: K-major (transposed through shared memory where it is stored MN-major),
//          rounded, and split (3xTF32). The split is a pre-pass rather than fused into the load
//          path because the tensor cores read shared memory written by TMA directly: a fused
//          split would add a shared-memory round trip per k-tile per consumer. Persistent
//          blocks and grouped tile order as step 02.
// Requires: sm_90; FP32 A, B and C; any shape, layout, op and ld; workspace up to (m + n) · k · 4
//          bytes per part (none for a tf32 operand read in place).
// Expect:  tf32 near cuBLAS TF32 (the pre-pass costs ~3·(m+n)·k bytes of traffic); 3xTF32 at a
//          third of the tf32 rate minus the pre-pass and promotion: 2-3x SGEMM's 51 TFLOP/s.
//          Measured (H200, 4096): tf32 329 TFLOP/s (0.86x cuBLAS TF32) with both operands
//          prepared; NT 363 (1.01x) read in place, NN 328 (0.89x) with B prepared; 3xTF32 111
//          (2.16x SGEMM).
#include "cuda/gemm/sm90/wgmma_gemm.cuh"

namespace tilekit::cuda {

namespace {

struct PersistentTf32 : sm90::PersistentSchedule {
  static constexpr const char* kName = "sm90_04_tf32";
  static constexpr int kStep = 4;
};

template <typename P>
GemmKernel make_tf32_entry(int auto_rank) {
  return sm90::make_wgmma_entry<P, PersistentTf32>(auto_rank);
}

using sm90::Operands;

}  // namespace

void register_gemm_sm90_04_tf32(Registry& r) {
  r.add(make_tf32_entry<sm90::WgmmaPolicy<float, 128, 6, Operands::kTf32>>(22));
  r.add(make_tf32_entry<sm90::WgmmaPolicy<float, 256, 4, Operands::kTf32>>(23));
  r.add(make_tf32_entry<sm90::WgmmaPolicy<float, 128, 3, Operands::kTf32x3>>(23));
}

}  // namespace tilekit::cuda
