// transpose_common.cuh — what the transpose ladder's steps share (internal).
#pragma once

#include <climits>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"

namespace tilekit::cuda {

// B = Aᵀ with 32-bit sizes and offsets: A is rows × cols (lda), B is cols × rows (ldb).
struct TransposeArgs {
  int rows = 0, cols = 0;
  const float* a = nullptr;
  int lda = 0;
  float* b = nullptr;
  int ldb = 0;
};

inline Status to_transpose_args(const TransposeProblem& p, TransposeArgs* out) {
  const int64_t a_span = (p.rows - 1) * p.lda + p.cols, b_span = (p.cols - 1) * p.ldb + p.rows;
  if (a_span > INT_MAX || b_span > INT_MAX)
    return not_supported("indexes with 32-bit int; the matrices span more than 2^31 - 1 elements");
  *out = TransposeArgs{static_cast<int>(p.rows), static_cast<int>(p.cols), p.a,
                       static_cast<int>(p.lda), p.b, static_cast<int>(p.ldb)};
  return Status::ok();
}

// Step 06's transpose (transpose_06_vectorized.cu), for other kernels' copies too (step 15's
// packed operands): float4 accesses on interior tiles when a, b, lda and ldb allow them. Refuses
// what transpose_vectorized_fits refuses.
Status transpose_vectorized(const TransposeArgs& t, cudaStream_t stream);

// Whether step 06's transpose takes a matrix of `cols` columns (its column tiles go in grid.y,
// at most 65535 of them); the reason when not.
Status transpose_vectorized_fits(int64_t cols);

inline Status needs_multiple(const TransposeProblem& p, int tile) {
  if (p.rows % tile || p.cols % tile)
    return not_supported("needs rows and cols multiples of the " + std::to_string(tile) + "x" +
                         std::to_string(tile) + " tile (got " + p.describe() +
                         "); step 06 takes any shape");
  return Status::ok();
}

inline Status grid_fits(int64_t blocks_y) {
  if (blocks_y > 65535) return not_supported("more than 65535 row tiles in grid.y");
  return Status::ok();
}

}  // namespace tilekit::cuda
