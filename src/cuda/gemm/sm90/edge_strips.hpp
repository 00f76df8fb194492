// edge_strips.hpp — the thin edges of an odd-sized problem, computed beside the tensor-core
// kernel (step 10, docs/hopper.md; internal).
//
// A 4097 × 4097 problem in 128 × 256 tiles is 33 × 17 = 561 tiles, of which the last tile row
// holds one row of C and the last tile column one column: 11% more tensor-core work for 0.05%
// more output, and 4.25 rounds of tiles instead of 3.88. Step 10 gives the tensor-core kernel
// only the whole tiles and computes the few rows and columns left over here, as thin products
// S · Gᵀ: a few rows of S (the edge rows of A, or the edge columns of B) against every row of G
// (the other operand). Such a product reads G once and is bound by memory bandwidth.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tilekit/registry.hpp"

namespace tilekit::cuda::sm90 {

// The most rows (or columns) left over that step 10 computes as a thin product.
inline constexpr int kEdgeMaxRows = 8;

// How the thin product reads its inputs: as the tensor-core kernel of the mode does.
enum class EdgeInputs {
  kF32,   // FP32 as stored (3xTF32, which promises FP32 accuracy)
  kTf32,  // FP32 rounded to TF32, to nearest even (tf32)
  kBf16,
  kF16,
};

// out(r, j) = alpha · Σ_kk S(r, kk) · G(j, kk) + beta · out(r, j), for r < rows, j < cols;
// with beta = 0 out is never read. Strides in elements; S and G hold elements of the
// EdgeInputs type, out floats.
struct ThinProduct {
  const void* s = nullptr;
  int64_t s_r = 0, s_k = 0;  // S(r, kk) = s[r · s_r + kk · s_k]
  const void* g = nullptr;
  int64_t g_j = 0, g_k = 0;  // G(j, kk) = g[j · g_j + kk · g_k]; g_k = 1 or g_j = 1
  float* out = nullptr;
  int64_t out_r = 0, out_j = 0;
  int rows = 0;  // 1 .. kEdgeMaxRows
  int64_t cols = 0, k = 0;
  float alpha = 1, beta = 0;
};

// Workspace bytes the product takes (its partial sums over slices of k), 256-byte rounded.
size_t thin_product_workspace(const ThinProduct& t);
// Launches the product on `stream`: partial sums over slices of k into `workspace`, then their
// sum (in a fixed order: the result is the same run to run) into out.
Status launch_thin_product(const ThinProduct& t, EdgeInputs inputs, void* workspace, cudaStream_t stream);

}  // namespace tilekit::cuda::sm90
