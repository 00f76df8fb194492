// edge_strips.cu — thin products S · Gᵀ for the edges of step 10 (edge_strips.hpp).
//
// Bound by reading G once: each block sums a slice of k for a few rows of G (G contiguous in k:
// a warp per row, lanes along k) or for 32 of them (G contiguous in j: lanes along j, warps
// along k), the rows of S, at most kEdgeMaxRows, read beside it from L1/L2. The slices' sums go
// to the workspace and a second kernel adds them in a fixed order and applies alpha and beta.
#include "cuda/gemm/sm90/edge_strips.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/gemm/sm90/hopper_ptx.cuh"  // tf32_rn

namespace tilekit::cuda::sm90 {
namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kRowsPerWarp = 2;        // G contiguous in k: rows of G a warp sums at once
constexpr int kTargetBlocks = 1024;    // about eight 256-thread blocks on each of 132 SMs
constexpr int64_t kMinSliceK = 256;    // a slice of k long enough to pay for its partial sums
constexpr int kMaxSlices = 64;

template <EdgeInputs kIn>
__device__ __forceinline__ float read(const void* p, int64_t i) {
  if constexpr (kIn == EdgeInputs::kBf16) return __bfloat162float(__ldg(static_cast<const __nv_bfloat16*>(p) + i));
  if constexpr (kIn == EdgeInputs::kF16) return __half2float(__ldg(static_cast<const __half*>(p) + i));
  const float x = __ldg(static_cast<const float*>(p) + i);
  if constexpr (kIn == EdgeInputs::kTf32) return tf32_rn(x);
  return x;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
  return v;
}

// G contiguous in k: warp w of block b sums rows j0 .. j0 + kRowsPerWarp of G over slice y.
template <EdgeInputs kIn, int R>
__global__ void __launch_bounds__(kThreads) thin_partials_k_contiguous(ThinProduct t, int64_t per_slice,
                                                                       float* partial) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int64_t j0 = (static_cast<int64_t>(blockIdx.x) * kWarps + warp) * kRowsPerWarp;
  const int64_t k0 = blockIdx.y * per_slice, k1 = k0 + per_slice < t.k ? k0 + per_slice : t.k;
  float acc[kRowsPerWarp][R] = {};
#pragma unroll 4
  for (int64_t kk = k0 + lane; kk < k1; kk += 32) {
    float s[R];
#pragma unroll
    for (int r = 0; r < R; ++r) s[r] = r < t.rows ? read<kIn>(t.s, r * t.s_r + kk * t.s_k) : 0.0f;
#pragma unroll
    for (int jj = 0; jj < kRowsPerWarp; ++jj) {
      if (j0 + jj >= t.cols) break;
      const float g = read<kIn>(t.g, (j0 + jj) * t.g_j + kk);
#pragma unroll
      for (int r = 0; r < R; ++r) acc[jj][r] = fmaf(s[r], g, acc[jj][r]);
    }
  }
#pragma unroll
  for (int jj = 0; jj < kRowsPerWarp; ++jj) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float v = warp_sum(acc[jj][r]);
      if (lane == 0 && j0 + jj < t.cols && r < t.rows) partial[(blockIdx.y * t.rows + r) * t.cols + j0 + jj] = v;
    }
  }
}

// G contiguous in j: lane l of block b sums row 32·b + l of G over slice y, the warps taking
// every kWarps-th k of it; the warps' sums are then added in warp order.
template <EdgeInputs kIn, int R>
__global__ void __launch_bounds__(kThreads) thin_partials_j_contiguous(ThinProduct t, int64_t per_slice,
                                                                       float* partial) {
  __shared__ float sums[kWarps][R][32];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * 32 + lane;
  const int64_t k0 = blockIdx.y * per_slice, k1 = k0 + per_slice < t.k ? k0 + per_slice : t.k;
  float acc[R] = {};
  if (j < t.cols) {
#pragma unroll 4
    for (int64_t kk = k0 + warp; kk < k1; kk += kWarps) {
      const float g = read<kIn>(t.g, j + kk * t.g_k);
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r < t.rows) acc[r] = fmaf(read<kIn>(t.s, r * t.s_r + kk * t.s_k), g, acc[r]);
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) sums[warp][r][lane] = acc[r];
  __syncthreads();
  if (warp != 0 || j >= t.cols) return;
  for (int r = 0; r < t.rows; ++r) {
    float v = 0;
    for (int w = 0; w < kWarps; ++w) v += sums[w][r][lane];
    partial[(blockIdx.y * t.rows + r) * t.cols + j] = v;
  }
}

// out = alpha · (the slices' sums, in slice order) + beta · out.
__global__ void __launch_bounds__(kThreads) thin_finish(ThinProduct t, int slices, const float* partial) {
  const int64_t count = t.rows * t.cols;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / t.cols, j = i % t.cols;
    float sum = 0;
    for (int y = 0; y < slices; ++y) sum += partial[(y * t.rows + r) * t.cols + j];
    float* o = t.out + r * t.out_r + j * t.out_j;
    *o = t.beta == 0 ? t.alpha * sum : t.alpha * sum + t.beta * *o;
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool g_k_contiguous(const ThinProduct& t) { return t.g_k == 1; }

int64_t blocks_along_j(const ThinProduct& t) {
  return ceil_div(t.cols, g_k_contiguous(t) ? kWarps * kRowsPerWarp : 32);
}

// k cut into slices (multiples of 32 long) so that the grid has about kTargetBlocks blocks.
struct Slices {
  int64_t length = 0;
  int count = 0;
};
Slices k_slices(const ThinProduct& t) {
  if (t.k == 0 || t.cols == 0) return {};
  const int64_t wanted = ceil_div(kTargetBlocks, blocks_along_j(t));
  const int64_t most = std::max<int64_t>(1, std::min<int64_t>(kMaxSlices, t.k / kMinSliceK));
  const int64_t count = std::clamp<int64_t>(wanted, 1, most);
  Slices s;
  s.length = ceil_div(ceil_div(t.k, count), 32) * 32;
  s.count = static_cast<int>(ceil_div(t.k, s.length));
  return s;
}

template <EdgeInputs kIn, int R>
void launch_partials(const ThinProduct& t, const Slices& s, float* partial, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(blocks_along_j(t)), static_cast<unsigned>(s.count));
  if (g_k_contiguous(t))
    thin_partials_k_contiguous<kIn, R><<<grid, kThreads, 0, stream>>>(t, s.length, partial);
  else
    thin_partials_j_contiguous<kIn, R><<<grid, kThreads, 0, stream>>>(t, s.length, partial);
}

template <EdgeInputs kIn>
void launch_partials_for_rows(const ThinProduct& t, const Slices& s, float* partial, cudaStream_t stream) {
  if (t.rows <= 1) return launch_partials<kIn, 1>(t, s, partial, stream);
  if (t.rows <= 2) return launch_partials<kIn, 2>(t, s, partial, stream);
  if (t.rows <= 4) return launch_partials<kIn, 4>(t, s, partial, stream);
  launch_partials<kIn, kEdgeMaxRows>(t, s, partial, stream);
}

}  // namespace

size_t thin_product_workspace(const ThinProduct& t) {
  const Slices s = k_slices(t);
  const auto bytes = static_cast<size_t>(s.count) * static_cast<size_t>(t.rows) * static_cast<size_t>(t.cols) * sizeof(float);
  return (bytes + 255) / 256 * 256;
}

Status launch_thin_product(const ThinProduct& t, EdgeInputs inputs, void* workspace, cudaStream_t stream) {
  if (t.rows < 1 || t.rows > kEdgeMaxRows)
    return invalid_argument("thin product rows " + std::to_string(t.rows) + ": 1 to " + std::to_string(kEdgeMaxRows));
  if (t.g_k != 1 && t.g_j != 1) return invalid_argument("thin product: G contiguous neither in j nor in k");
  if (t.cols == 0) return Status::ok();
  const Slices s = k_slices(t);
  auto* partial = static_cast<float*>(workspace);
  if (s.count > 0) {
    switch (inputs) {
      case EdgeInputs::kF32: launch_partials_for_rows<EdgeInputs::kF32>(t, s, partial, stream); break;
      case EdgeInputs::kTf32: launch_partials_for_rows<EdgeInputs::kTf32>(t, s, partial, stream); break;
      case EdgeInputs::kBf16: launch_partials_for_rows<EdgeInputs::kBf16>(t, s, partial, stream); break;
      case EdgeInputs::kF16: launch_partials_for_rows<EdgeInputs::kF16>(t, s, partial, stream); break;
    }
    TILEKIT_CUDA_CHECK_LAUNCH("thin_partials");
  }
  const int64_t blocks = std::min<int64_t>(ceil_div(t.rows * t.cols, kThreads), 1024);
  thin_finish<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(t, s.count, partial);
  TILEKIT_CUDA_CHECK_LAUNCH("thin_finish");
  return Status::ok();
}

}  // namespace tilekit::cuda::sm90
