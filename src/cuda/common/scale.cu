// scale.cu — C = beta · C on the device, for gemm() calls with alpha = 0 or k = 0.
#include "core/backend.hpp"
#include "core/strides.hpp"
#include "cuda/common/cuda_check.hpp"

namespace tilekit::cuda {
namespace {

__global__ void scale_c_kernel(float* g_c, int64_t m, int64_t n, int64_t row_stride,
                               int64_t col_stride, float beta) {
  const int64_t total = m * n;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = idx / n, j = idx % n;
    float& c = g_c[i * row_stride + j * col_stride];
    c = beta == 0.0f ? 0.0f : beta * c;  // beta = 0 writes zeros, never 0 · NaN
  }
}

}  // namespace

Status scale_c(const GemmProblem& p, const Context& ctx) {
  if (p.types.c != DType::kF32)
    return not_supported(std::string("scaling C in ") + dtype_name(p.types.c) +
                         " on the GPU (no CUDA kernel writes that type yet)");
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  const int64_t total = p.m * p.n;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 65535);
  scale_c_kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx.stream>>>(
      p.c_f32(), p.m, p.n, sc.row, sc.col, p.beta);
  TILEKIT_CUDA_CHECK_LAUNCH("scale_c_kernel");
  return Status::ok();
}

}  // namespace tilekit::cuda
