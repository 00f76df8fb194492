// ladder.hpp — the CUDA GEMM ladder (host-only declarations) and what its steps share.
//
// Every step computes the row-major problem C = alpha·op(A)·op(B) + beta·C with op(A) and op(B)
// chosen at compile time (four instantiations per kernel). A column-major problem is served by
// the row/column-major identity: column-major C is row-major Cᵀ = op(B)ᵀ·op(A)ᵀ, which is the
// same memory with A and B, m and n swapped, and the ops unchanged (to_row_major()).
#pragma once

#include <string>

#include "tilekit/registry.hpp"

namespace tilekit::cuda {

// One GEMM in the form every ladder kernel takes: row-major, 32-bit sizes and offsets.
struct RowMajorGemm {
  int m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  int lda = 0;
  bool trans_a = false;
  const float* b = nullptr;
  int ldb = 0;
  bool trans_b = false;
  float* c = nullptr;
  int ldc = 0;
};

// Ok when every size and every element offset of `p` fits in a 32-bit int (the ladder kernels
// index with int); otherwise kNotSupported naming the offending quantity.
Status check_32bit_indexing(const GemmProblem& p);
// What every ladder step's can_implement checks first: 32-bit indexing, and that the row-major
// view's row blocks of `tile_rows` rows fit in grid.y (at most 65535).
Status check_ladder_problem(const GemmProblem& p, int64_t tile_rows);
RowMajorGemm to_row_major(const GemmProblem& p);

}  // namespace tilekit::cuda
