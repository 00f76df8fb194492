// reference_gemm.cu — double-accumulating GEMM on the GPU: the verification oracle for GPU
// results. One thread per element of C, no tiling: obviously right, and fast enough (the GPU's
// fp64 rate) to check an 8192³ product in seconds where the CPU reference takes minutes.
// Tested against the CPU reference (tests/gpu).
#include "core/strides.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/cuda_kernels.hpp"

namespace tilekit::cuda {
namespace {

__global__ void reference_gemm_f64_kernel(int64_t m, int64_t n, int64_t k, double alpha,
                                          const float* g_a, Strides sa, const float* g_b,
                                          Strides sb, double beta, const float* g_c0, Strides sc,
                                          double* g_value, double* g_magnitude) {
  const int64_t j = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t i = blockIdx.y * int64_t{blockDim.y} + threadIdx.y;
  if (i >= m || j >= n) return;
  double sum = 0.0, abs_sum = 0.0;
  if (alpha != 0.0) {
    for (int64_t l = 0; l < k; ++l) {
      const double prod = static_cast<double>(g_a[i * sa.row + l * sa.col]) *
                          static_cast<double>(g_b[l * sb.row + j * sb.col]);
      sum += prod;
      abs_sum += fabs(prod);
    }
  }
  double v = alpha * sum, mag = fabs(alpha) * abs_sum;
  if (beta != 0.0) {  // beta = 0 never reads C
    const double c0 = g_c0[i * sc.row + j * sc.col];
    v += beta * c0;
    mag += fabs(beta * c0);
  }
  g_value[i * n + j] = v;
  if (g_magnitude) g_magnitude[i * n + j] = mag;
}

}  // namespace

Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                          const Context& ctx) {
  if (p.m == 0 || p.n == 0) return Status::ok();
  // Threads along n read B (and write the outputs) with unit stride in the common layouts.
  const dim3 block(32, 8);
  const int64_t gx = (p.n + block.x - 1) / block.x, gy = (p.m + block.y - 1) / block.y;
  if (gy > 65535)
    return not_supported("reference_gemm_f64: m = " + std::to_string(p.m) + " exceeds " +
                         std::to_string(65535 * 8) + " rows");
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  reference_gemm_f64_kernel<<<grid, block, 0, ctx.stream>>>(
      p.m, p.n, p.k, p.alpha, p.a, op_strides(p.layout, p.op_a, p.lda), p.b,
      op_strides(p.layout, p.op_b, p.ldb), p.beta, p.c, op_strides(p.layout, Op::kN, p.ldc),
      value, magnitude);
  TILEKIT_CUDA_CHECK_LAUNCH("reference_gemm_f64_kernel");
  return Status::ok();
}

}  // namespace tilekit::cuda
