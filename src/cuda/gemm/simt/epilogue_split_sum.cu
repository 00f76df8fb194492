// epilogue_split_sum.cu — split-K's epilogue (epilogue_split_sum.hpp): the planes of raw sums the
// slices wrote, added in slice order and scaled into C.
#include "cuda/gemm/simt/epilogue_split_sum.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda/common/dependent_launch.cuh"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {

// C = alpha·(plane 0 + plane 1 + …) + beta·C, the planes added in order: the same bits every run.
// Both kernels are launched as programmatic dependents of the GEMM grid (dependent_launch.cuh):
// they may be scheduled while its last blocks run, and wait for it before reading a plane.
namespace {

// One element of C a thread: any n, ldc and alignment.
__global__ void sum_slices_kernel(const float* __restrict__ partials, int slices, int m, int n,
                                  float* c, int ldc, float alpha, float beta) {
  wait_for_previous_grid();
  const size_t plane = static_cast<size_t>(m) * n;
  for (size_t idx = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; idx < plane;
       idx += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float sum = partials[idx];
    for (int z = 1; z < slices; ++z) sum += partials[z * plane + idx];
    float* out = c + (idx / n) * ldc + idx % n;
    *out = beta == 0.0f ? alpha * sum : alpha_acc_beta_c(alpha, sum, beta, *out);
  }
}

// Four columns of C a thread, one float4 per plane, where C's rows allow it (n and ldc multiples
// of 4, C 16-byte aligned): a quarter of the loads and stores, and a 32-bit division for the row.
// Each lane adds and rounds as sum_slices_kernel does, so either kernel gives the same bits.
__global__ void sum_slices_float4_kernel(const float4* __restrict__ partials, int slices,
                                         unsigned quads, unsigned quads_per_row, float* c, int ldc,
                                         float alpha, float beta) {
  wait_for_previous_grid();
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    float4 sum = partials[q];
#pragma unroll 4  // four planes' loads in flight
    for (int z = 1; z < slices; ++z) {
      const float4 p = partials[static_cast<size_t>(z) * quads + q];
      sum.x += p.x;
      sum.y += p.y;
      sum.z += p.z;
      sum.w += p.w;
    }
    const unsigned row = q / quads_per_row;
    float4* out = reinterpret_cast<float4*>(c + static_cast<size_t>(row) * ldc) +
                  (q - row * quads_per_row);
    if (beta == 0.0f) {
      *out = make_float4(alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w);
    } else {
      const float4 o = *out;
      *out = make_float4(alpha_acc_beta_c(alpha, sum.x, beta, o.x),
                         alpha_acc_beta_c(alpha, sum.y, beta, o.y),
                         alpha_acc_beta_c(alpha, sum.z, beta, o.z),
                         alpha_acc_beta_c(alpha, sum.w, beta, o.w));
    }
  }
}

constexpr unsigned kSumThreads = 256, kSumMaxBlocks = 8192;

unsigned sum_blocks(size_t items) {
  return static_cast<unsigned>(
      std::min<size_t>((items + kSumThreads - 1) / kSumThreads, kSumMaxBlocks));
}

}  // namespace

Status sum_slices(const float* partials, int slices, const RowMajorGemm& g, int device,
                  cudaStream_t stream) {
  const size_t plane = static_cast<size_t>(g.m) * g.n;
  // (The plane fits unsigned quads: split-K refuses a C span past 2^31 − 1, check_32bit_indexing.)
  if (g.n % 4 == 0 && g.ldc % 4 == 0 && reinterpret_cast<uintptr_t>(g.c) % sizeof(float4) == 0) {
    const unsigned quads = static_cast<unsigned>(plane / 4);
    return launch_as_dependent<sum_slices_float4_kernel>(
        "sum_slices_float4_kernel", sum_blocks(quads), kSumThreads, 0, stream, device,
        reinterpret_cast<const float4*>(partials), slices, quads, static_cast<unsigned>(g.n / 4),
        g.c, g.ldc, g.alpha, g.beta);
  }
  return launch_as_dependent<sum_slices_kernel>("sum_slices_kernel", sum_blocks(plane),
                                                kSumThreads, 0, stream, device, partials, slices,
                                                g.m, g.n, g.c, g.ldc, g.alpha, g.beta);
}

}  // namespace tilekit::cuda
