// matrix.hpp — how a matrix is laid out in memory, and a typed non-owning view of one.
#pragma once

#include <cstdint>

namespace tilekit {

enum class Layout { kRowMajor, kColMajor };
enum class Op { kN, kT };  // use the matrix as stored, or its transpose

inline const char* layout_name(Layout l) { return l == Layout::kRowMajor ? "row" : "col"; }
inline char op_char(Op op) { return op == Op::kN ? 'N' : 'T'; }

// A rows × cols matrix at `data` (host or device memory: the view does not know or care).
// `ld` is the distance in elements between consecutive rows (row-major) or columns (col-major).
template <typename T>
struct MatrixView {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::kRowMajor;

  // The length of one stored row (row-major) or column (col-major): the smallest legal ld.
  int64_t stored_line_length() const { return layout == Layout::kRowMajor ? cols : rows; }
  T& operator()(int64_t r, int64_t c) const {
    return layout == Layout::kRowMajor ? data[r * ld + c] : data[c * ld + r];
  }
};

template <typename T>
MatrixView<T> row_major(T* data, int64_t rows, int64_t cols, int64_t ld = 0) {
  return {data, rows, cols, ld ? ld : cols, Layout::kRowMajor};
}
template <typename T>
MatrixView<T> col_major(T* data, int64_t rows, int64_t cols, int64_t ld = 0) {
  return {data, rows, cols, ld ? ld : rows, Layout::kColMajor};
}

}  // namespace tilekit
