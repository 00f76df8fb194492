// register_all.cpp — the one list of every kernel tilekit has. Add a kernel here and the tests,
// the benchmarks and `tilekit list` pick it up.
#include "cpu/cpu_kernels.hpp"
#include "tilekit/registry.hpp"
#if TILEKIT_WITH_CUDA
#include "cuda/cuda_kernels.hpp"
#endif

namespace tilekit {

void register_all(Registry& r) {
  // ---- CPU backend ----
  r.add(cpu::reference_gemm_kernel());  // gemm.cpu.reference.f32 — the oracle
  r.add(cpu::blocked_gemm_kernel());    // gemm.cpu.blocked.f32.* — our own
  r.add(cpu::openblas_gemm_kernel());   // gemm.cpu.openblas.f32 — baseline

#if TILEKIT_WITH_CUDA
  // ---- CUDA backend: baselines ----
  r.add(cuda::cublas_gemm_kernel(cuda::CublasMath::kPedantic));  // gemm.cuda.cublas.f32
  r.add(cuda::cublas_gemm_kernel(cuda::CublasMath::kDefault));   // gemm.cuda.cublas_default.f32
#endif
}

}  // namespace tilekit
