// register_all.cpp — the one list of every kernel tilekit has. Add a kernel here and the tests,
// the benchmarks and `tilekit list` pick it up.
#include "cpu/cpu_kernels.hpp"
#include "tilekit/registry.hpp"
#if TILEKIT_WITH_CUDA
#include "cuda/cuda_kernels.hpp"
#include "cuda/gemm/ladder.hpp"
#include "cuda/memory_ladders.hpp"
#endif

namespace tilekit {

void register_all(Registry& r) {
  // ---- CPU backend ----
  r.add(cpu::reference_gemm_kernel());  // gemm.cpu.reference.f32 — the oracle
  r.add(cpu::blocked_gemm_kernel());    // gemm.cpu.blocked.f32.* — our own
  r.add(cpu::openblas_gemm_kernel());   // gemm.cpu.openblas.f32 — baseline
  r.add(cpu::transpose_reference_kernel());  // transpose.cpu.reference.f32 — the oracle
  r.add(cpu::transpose_blocked_kernel());    // transpose.cpu.blocked.f32.32
  r.add(cpu::dot_reference_kernel());        // dot.cpu.reference.f64acc — the oracle
  r.add(cpu::dot_openmp_kernel());           // dot.cpu.openmp.f64acc
  r.add(cpu::copy_memcpy_kernel());          // copy.cpu.memcpy.f32 — the CPU copy ceiling

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

  // ---- CUDA backend: copies, the memory-bandwidth yardsticks ----
  r.add(cuda::copy_memcpy_entry());              // copy.cuda.memcpy.f32 — the ceiling
  r.add(cuda::copy_coalesced_entry());
  r.add(cuda::copy_uncoalesced_entry());
  r.add(cuda::copy_float4_grid_stride_entry());

  // ---- CUDA backend: the transpose ladder ----
  r.add(cuda::transpose_cublas_geam_entry());    // baseline
  r.add(cuda::transpose_serial_entry());         // 01 one thread
  r.add(cuda::transpose_thread_per_row_entry()); // 02 one thread per row
  r.add(cuda::transpose_thread_per_element_entry());  // 03 2-D grid
  r.add(cuda::transpose_smem_tiled_entry());     // 04 tile[32][32]
  r.add(cuda::transpose_smem_padded_entry());    // 05 tile[32][33]
  r.add(cuda::transpose_vectorized_entry());     // 06 64x64 tiles, float4

  // ---- CUDA backend: the dot-product ladder ----
  r.add(cuda::dot_cublas_entry());               // baselines
  r.add(cuda::dot_cub_entry());
  r.add(cuda::dot_shared_atomic_entry());        // 01 shared-memory tree + atomicAdd
  r.add(cuda::dot_warp_shuffle_entry());         // 02 warp shuffles, float4
  r.add(cuda::dot_two_pass_entry(false));        // 03 two passes, deterministic
  r.add(cuda::dot_two_pass_entry(true));         //    … accumulating in float64
#endif
}

}  // namespace tilekit
