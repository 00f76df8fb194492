// strides.hpp — (row, column) element strides of op(X) for any layout and op.
//
// Element (i, j) of op(X) lives at x[i * row + j * col]. Turning layout and op into two strides
// lets one loop nest serve all eight layout × op_a × op_b combinations.
#pragma once

#include <cstdint>

#include "tilekit/matrix.hpp"

namespace tilekit {

struct Strides {
  int64_t row = 0, col = 0;
};

inline Strides op_strides(Layout layout, Op op, int64_t ld) {
  const Strides stored = layout == Layout::kRowMajor ? Strides{ld, 1} : Strides{1, ld};
  return op == Op::kN ? stored : Strides{stored.col, stored.row};
}

}  // namespace tilekit
