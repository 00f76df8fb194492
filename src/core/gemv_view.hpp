// gemv_view.hpp — a GEMM with one small side, seen as a few rows of X times a streamed matrix W
// (internal, host-only; the gemv family's kernels take this form, src/cuda/gemm/gemv/).
//
//   D(r, j) = alpha · Σ_p X(r, p) · W(p, j) + beta · D(r, j),   r < rows (small), j < cols
//
// A decode step (x·Wᵀ with a few rows of x) and a product with a few columns (A·b) are both this
// form: the small side of C is `rows`, the other operand is W, read once. W lies along k
// (W(p, j) = w[j·ldw + p]: each output is a dot product of contiguous lines) or along the outputs
// (W(p, j) = w[p·ldw + j]: each line of W scales into a row of outputs). X and D are addressed
// by two strides each, so every layout and op maps here without a copy.
#pragma once

#include <cstdint>

#include "tilekit/problems.hpp"

namespace tilekit {

struct GemvView {
  int64_t rows = 0, cols = 0, k = 0;
  float alpha = 1, beta = 0;
  const void* x = nullptr;  // X(r, p) = x[r·x_row + p·x_step]
  int64_t x_row = 0, x_step = 0;
  const void* w = nullptr;  // W(p, j) = w_along_k ? w[j·ldw + p] : w[p·ldw + j]
  int64_t ldw = 0;
  bool w_along_k = true;
  void* d = nullptr;  // D(r, j) = d[r·d_row + j·d_col]
  int64_t d_row = 0, d_col = 0;
};

// The view of `p` whose rows are C's smaller side, when that side has at most `max_rows`
// elements (C's rows when the two are equal); kNotSupported naming both sides otherwise.
Status gemv_view(const GemmProblem& p, int64_t max_rows, GemvView* out);

}  // namespace tilekit
