// register_all.cpp — the one list of every kernel tilekit has. Add a kernel here and the tests,
// the benchmarks and `tilekit list` pick it up.
#include "cpu/cpu_kernels.hpp"
#include "tilekit/registry.hpp"
#if TILEKIT_WITH_CUDA
#include "cuda/cuda_kernels.hpp"
#include "cuda/gemm/ladder.hpp"
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

  // ---- CUDA backend: the GEMM ladder, one technique per step (docs/ladder.md) ----
  r.add(cuda::naive_gemm_entry());                  // 01 one thread per element
  r.add(cuda::smem_tiled_gemm_entry(16));           // 02 shared-memory tiles, multiples only
  r.add(cuda::smem_tiled_gemm_entry(32));
  r.add(cuda::smem_tiled_any_gemm_entry(16));       // 03 … for any size
  r.add(cuda::smem_tiled_any_gemm_entry(32));
  r.add(cuda::smem_dynamic_gemm_entry());           // 04 tile side from the occupancy API
  r.add(cuda::register_blocked_gemm_entry(16, 16)); // 05 register blocking, 64x64 tile
  r.add(cuda::register_blocked_gemm_entry(16, 8));
  r.add(cuda::register_blocked_gemm_entry(8, 8));
#endif
}

}  // namespace tilekit
