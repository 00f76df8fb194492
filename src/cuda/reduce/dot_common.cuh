// dot_common.cuh — what the dot-product steps share (internal).
#pragma once

#include <algorithm>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/common/kernel_entry.hpp"

namespace tilekit::cuda {

// Blocks for a grid-stride reduction: `per_sm` blocks on every SM of the current device.
inline Status grid_stride_blocks(int per_sm, int64_t n, int threads, int* blocks) {
  int device = 0, sms = 0;
  TILEKIT_CUDA_TRY(cudaGetDevice(&device));
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  *blocks = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>(int64_t{sms} * per_sm, (n + threads - 1) / threads)));
  return Status::ok();
}

// Sum over a warp with shuffles; lane 0 ends with the total. Fixed order: deterministic.
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over a block of kThreads with shuffles and one shared-memory hop; thread 0 gets the total.
template <int kThreads, typename T>
__device__ __forceinline__ T block_sum(T v) {
  __shared__ T s_warp[kThreads / 32];
  v = warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) s_warp[warp] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? s_warp[threadIdx.x] : T(0);
  if (warp == 0) v = warp_sum(v);
  return v;
}

// Σ x[i]·y[i] over this thread's grid-stride share, 16 bytes at a time where alignment allows.
template <typename T>
__device__ __forceinline__ T thread_partial(const float* __restrict__ x, const float* __restrict__ y,
                                            int64_t n, bool vector) {
  T sum = 0;
  const int64_t tid = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  int64_t done = 0;
  if (vector) {
    const int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    for (int64_t i = tid; i < n4; i += stride) {
      const float4 a = x4[i], b = y4[i];
      sum += T(a.x) * T(b.x) + T(a.y) * T(b.y) + T(a.z) * T(b.z) + T(a.w) * T(b.w);
    }
    done = n4 * 4;
  }
  for (int64_t i = done + tid; i < n; i += stride) sum += T(x[i]) * T(y[i]);
  return sum;
}

}  // namespace tilekit::cuda
