// cuda_kernels.hpp — the CUDA backend's registered kernels and helpers (internal, host-only).
#pragma once

#include "tilekit/device.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cuda {

enum class CublasMath {
  kPedantic,  // CUBLAS_PEDANTIC_MATH: IEEE fp32 throughout, no tensor cores
  kDefault,   // CUBLAS_DEFAULT_MATH: whatever cuBLAS picks for fp32 (no TF32 unless enabled)
};
// gemm.cuda.cublas.f32 (pedantic) and gemm.cuda.cublas_default.f32.
GemmKernel cublas_gemm_kernel(CublasMath math);

// The GPU twin of cpu::reference_gemm_f64: double-accumulated value and magnitude, dense
// row-major m × n device arrays. Used to verify GPU results at sizes where the CPU reference
// would take minutes.
Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                          const Context& ctx);

}  // namespace tilekit::cuda
