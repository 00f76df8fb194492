// geometry.hpp — where blocks of op(X) lie in X's storage (internal).
//
// The distributed GEMM moves blocks of operands between ranks as 2-D copies: a block of op(X)
// is `lines` equally spaced lines of contiguous elements, whatever the layout and the op.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tilekit/matrix.hpp"

namespace tilekit::dist {

// Element (i, j) of op(X), for X stored in `layout` with leading dimension `ld`.
inline int64_t op_offset(Layout layout, Op op, int64_t ld, int64_t i, int64_t j) {
  const int64_t row = op == Op::kN ? i : j, col = op == Op::kN ? j : i;  // as stored
  return layout == Layout::kRowMajor ? row * ld + col : col * ld + row;
}

// The rows × cols block of op(X) at (i0, j0): `lines` lines of `line_elems` contiguous
// elements, `pitch` apart, the first at element `first`.
struct BlockLines {
  int64_t first = 0, lines = 0, line_elems = 0, pitch = 0;
};

inline BlockLines block_lines(Layout layout, Op op, int64_t ld, int64_t i0, int64_t j0,
                              int64_t rows, int64_t cols) {
  const int64_t stored_rows = op == Op::kN ? rows : cols;
  const int64_t stored_cols = op == Op::kN ? cols : rows;
  BlockLines b;
  b.first = op_offset(layout, op, ld, i0, j0);
  b.lines = layout == Layout::kRowMajor ? stored_rows : stored_cols;
  b.line_elems = layout == Layout::kRowMajor ? stored_cols : stored_rows;
  b.pitch = ld;
  return b;
}

// The leading dimension of a rows × cols block of op(X) stored densely: its line length (>= 1,
// as BLAS wants even for empty blocks).
inline int64_t packed_ld(Layout layout, Op op, int64_t rows, int64_t cols) {
  return std::max<int64_t>(1, block_lines(layout, op, 1, 0, 0, rows, cols).line_elems);
}

inline Layout flipped(Layout l) {
  return l == Layout::kRowMajor ? Layout::kColMajor : Layout::kRowMajor;
}

}  // namespace tilekit::dist
