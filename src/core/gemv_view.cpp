// gemv_view.cpp — mapping a GEMM onto the gemv form (gemv_view.hpp).
#include "core/gemv_view.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace tilekit {

Status gemv_view(const GemmProblem& p, int64_t max_rows, GemvView* out) {
  // The row-major view: a column-major C = op(A)·op(B) is the row-major Cᵀ = op(B)ᵀ·op(A)ᵀ over
  // the same memory, with A and B (and m and n) exchanged and each op kept.
  const bool row_major = p.layout == Layout::kRowMajor;
  const int64_t m = row_major ? p.m : p.n, n = row_major ? p.n : p.m;
  const void* a = row_major ? p.a : p.b;
  const void* b = row_major ? p.b : p.a;
  const int64_t lda = row_major ? p.lda : p.ldb, ldb = row_major ? p.ldb : p.lda;
  const bool trans_a = (row_major ? p.op_a : p.op_b) == Op::kT;
  const bool trans_b = (row_major ? p.op_b : p.op_a) == Op::kT;
  if (std::min(m, n) > max_rows)
    return not_supported("for C with a side of at most " + std::to_string(max_rows) +
                         " elements; it is " + std::to_string(p.m) + " x " + std::to_string(p.n));
  GemvView v;
  v.k = p.k;
  v.alpha = p.alpha;
  v.beta = p.beta;
  v.d = p.c;
  // The short side: the row-major view's rows, or its columns (below); C's rows on a tie.
  if (row_major ? m <= n : m < n) {  // X = op(A), W = op(B), D = C (of the view)
    v.rows = m, v.cols = n;
    v.x = a;
    v.x_row = trans_a ? 1 : lda, v.x_step = trans_a ? lda : 1;
    v.w = b, v.ldw = ldb, v.w_along_k = trans_b;
    v.d_row = p.ldc, v.d_col = 1;
  } else {  // columns of C: Cᵀ = op(B)ᵀ·op(A)ᵀ, so X = op(B)ᵀ, W = op(A)ᵀ, D = Cᵀ
    v.rows = n, v.cols = m;
    v.x = b;
    v.x_row = trans_b ? ldb : 1, v.x_step = trans_b ? 1 : ldb;
    v.w = a, v.ldw = lda, v.w_along_k = !trans_a;
    v.d_row = 1, v.d_col = p.ldc;
  }
  *out = v;
  return Status::ok();
}

}  // namespace tilekit
