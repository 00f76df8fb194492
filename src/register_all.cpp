// register_all.cpp — the one list of every kernel file tilekit has. Each file registers its own
// kernels through one function, register_<file>(Registry&); add a line here and the tests, the
// benchmarks and `tilekit list` pick its kernels up (docs/adding_a_kernel.md).
#include "core/backend.hpp"
#include "cpu/cpu_kernels.hpp"
#include "tilekit/registry.hpp"
#if TILEKIT_WITH_CUDA
#include "cuda/cuda_kernels.hpp"
#endif

// One line per CUDA kernel file, in the order `tilekit list` shows them.
#define TILEKIT_CUDA_KERNEL_FILES(FILE)                                                          \
  /* baselines: vendor libraries, used by "auto" only when allowed */                           \
  FILE(cublas)                      /* baselines/cublas.cu: GEMM, transpose, dot */             \
  FILE(dot_cub)                     /* baselines/cub_dot.cu */                                  \
  /* the GEMM ladder, one technique per step (docs/ladder.md) */                                \
  FILE(gemm_01_naive)               /* one thread per element */                               \
  FILE(gemm_02_smem_tiled)          /* shared-memory tiles, multiples only */                  \
  FILE(gemm_03_smem_tiled_any)      /* ... for any size */                                     \
  FILE(gemm_04_smem_dynamic)        /* tile side from the occupancy API */                     \
  FILE(gemm_05_register_blocked)    /* register blocking, 64x64 tile */                        \
  /* the production families, one instance table each */                                     \
  FILE(gemm_simt)                   /* SIMT FP32: simt/instances.cuh */                        \
  FILE(gemm_sm90)                   /* Hopper wgmma/TMA: sm90/instances.cuh */                 \
  FILE(gemm_gemv)                   /* C with a side <= 16, W streamed: gemv/gemv.cu */        \
  /* copies, the memory-bandwidth yardsticks */                                                 \
  FILE(copy_cuda)                   /* memory/copy.cu */                                        \
  /* the transpose ladder (docs/memory.md) */                                                   \
  FILE(transpose_01_serial)                                                                     \
  FILE(transpose_02_thread_per_row)                                                             \
  FILE(transpose_03_thread_per_element)                                                         \
  FILE(transpose_04_smem_tiled)                                                                 \
  FILE(transpose_05_smem_padded)                                                                \
  FILE(transpose_06_vectorized)                                                                 \
  /* the dot-product ladder */                                                                  \
  FILE(dot_01_shared_atomic)                                                                    \
  FILE(dot_02_warp_shuffle)                                                                     \
  FILE(dot_03_two_pass)

namespace tilekit {

#if TILEKIT_WITH_CUDA
namespace cuda {
#define TILEKIT_DECLARE_REGISTER(file) void register_##file(Registry& r);
TILEKIT_CUDA_KERNEL_FILES(TILEKIT_DECLARE_REGISTER)
#undef TILEKIT_DECLARE_REGISTER
}  // namespace cuda
#endif

void register_all(Registry& r) {
  // ---- CPU backend ----
  r.set_backend(Backend::kCpu, &cpu::backend());
  cpu::register_gemm_cpu_reference(r);  // gemm.cpu.reference.* — the oracles, every mode
  cpu::register_gemm_cpu_blocked(r);    // gemm.cpu.blocked.f32.* — our own
  cpu::register_gemm_cpu_openblas(r);   // gemm.cpu.openblas.f32 — vendor baseline
  cpu::register_memory_cpu(r);          // transpose, dot, copy

#if TILEKIT_WITH_CUDA
  // ---- CUDA backend ----
  r.set_backend(Backend::kCuda, &cuda::backend());
#define TILEKIT_CALL_REGISTER(file) cuda::register_##file(r);
  TILEKIT_CUDA_KERNEL_FILES(TILEKIT_CALL_REGISTER)
#undef TILEKIT_CALL_REGISTER
#endif
}

}  // namespace tilekit
