// reference_gemm.cu — double-accumulating GEMM on the GPU: the verification oracle for GPU
// results. One thread per element of C, no tiling: obviously right, and fast enough (the GPU's
// fp64 rate) to check an 8192³ product in seconds where the CPU reference takes minutes.
// Tested against the CPU reference (tests/gpu).
#include <cuda_fp16.h>

#include "core/strides.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/cuda_kernels.hpp"

namespace tilekit::cuda {
namespace {

// Inputs decoded from storage and rounded as the compute mode multiplies them, bit for bit as
// the CPU reference does (types.hpp): to nearest, ties to even.
__device__ float decode(float x) { return x; }
__device__ float decode(bf16_t x) { return __uint_as_float(static_cast<uint32_t>(x.bits) << 16); }
__device__ float decode(f16_t x) { return __half2float(__ushort_as_half(x.bits)); }

__device__ float round_input(float x, bool wide_input, Compute compute) {
  const uint32_t bits = __float_as_uint(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // inf and NaN pass through
  if (compute == Compute::kTF32)
    return __uint_as_float((bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u);
  if (compute == Compute::kBF16 && wide_input)
    return __uint_as_float((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);
  return x;
}

struct ReferenceArgs {
  int64_t m, n, k;
  double alpha, beta;
  Strides sa, sb, sc;
  Compute compute;
  bool c_bf16;
};

template <typename T>
__global__ void reference_gemm_f64_kernel(ReferenceArgs r, const T* g_a, const T* g_b,
                                          const void* g_c0, double* g_value, double* g_magnitude) {
  const int64_t j = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t i = blockIdx.y * int64_t{blockDim.y} + threadIdx.y;
  if (i >= r.m || j >= r.n) return;
  const bool wide = sizeof(T) == 4;
  double sum = 0.0, abs_sum = 0.0;
  if (r.alpha != 0.0) {
    for (int64_t l = 0; l < r.k; ++l) {
      const double prod =
          static_cast<double>(round_input(decode(g_a[i * r.sa.row + l * r.sa.col]), wide, r.compute)) *
          static_cast<double>(round_input(decode(g_b[l * r.sb.row + j * r.sb.col]), wide, r.compute));
      sum += prod;
      abs_sum += fabs(prod);
    }
  }
  double v = r.alpha * sum, mag = fabs(r.alpha) * abs_sum;
  if (r.beta != 0.0) {  // beta = 0 never reads C
    const int64_t offset = i * r.sc.row + j * r.sc.col;
    const double c0 = r.c_bf16 ? decode(static_cast<const bf16_t*>(g_c0)[offset])
                               : static_cast<const float*>(g_c0)[offset];
    v += r.beta * c0;
    mag += fabs(r.beta * c0);
  }
  g_value[i * r.n + j] = v;
  if (g_magnitude) g_magnitude[i * r.n + j] = mag;
}

template <typename T>
void launch_reference(const GemmProblem& p, const ReferenceArgs& r, dim3 grid, dim3 block,
                      double* value, double* magnitude, const Context& ctx) {
  reference_gemm_f64_kernel<T><<<grid, block, 0, ctx.stream>>>(
      r, static_cast<const T*>(p.a), static_cast<const T*>(p.b), p.c, value, magnitude);
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
  const ReferenceArgs r{p.m, p.n, p.k, p.alpha, p.beta,
                        op_strides(p.layout, p.op_a, p.lda), op_strides(p.layout, p.op_b, p.ldb),
                        op_strides(p.layout, Op::kN, p.ldc), p.types.compute,
                        p.types.c == DType::kBF16};
  switch (p.types.a) {
    case DType::kF32: launch_reference<float>(p, r, grid, block, value, magnitude, ctx); break;
    case DType::kBF16: launch_reference<bf16_t>(p, r, grid, block, value, magnitude, ctx); break;
    case DType::kF16: launch_reference<f16_t>(p, r, grid, block, value, magnitude, ctx); break;
  }
  TILEKIT_CUDA_CHECK_LAUNCH("reference_gemm_f64_kernel");
  return Status::ok();
}

}  // namespace tilekit::cuda
