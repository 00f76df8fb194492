// gemm_pieces.hpp — cutting a row-major GEMM into pieces whose operands each fit a kernel's
// offset type.
//
// The SIMT ladder kernels index with 32-bit int (fewer registers and instructions in their inner
// loops than 64-bit offsets). A problem whose A, B or C spans more than 2^31 − 1 elements from
// its first one (65536² FP32 operands, say) is then run as pieces: C cut into blocks of rows and
// columns, and k into slices whose products are added into C in order (the first with the
// caller's beta, the next with beta = 1). A piece's operands are submatrices of the caller's at
// the same leading dimensions, so each piece's span is about (its rows) × ld: the extents below
// bound those rows. Extents are multiples of 256 where they can be, so that pieces start on whole
// tiles and 16-byte boundaries (float4 paths stay on). Pieces cost nothing where the problem fits:
// then there is one piece, the problem itself.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tilekit/status.hpp"

namespace tilekit {

// A row-major C (m × n) = op(A) (m × k) · op(B) (k × n) as memory: A is stored m × k, or k × m
// when trans_a; B is stored k × n, or n × k when trans_b.
struct RowMajorExtents {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 1, ldb = 1, ldc = 1;
  bool trans_a = false, trans_b = false;
};

// The extents of one piece: C rows, C columns, k. A problem that fits is one piece of (m, n, k).
struct GemmPieceShape {
  int64_t rows = 0, cols = 0, depth = 0;
};

// The elements an operand of `rows` memory rows of `cols` elements spans at leading dimension ld.
constexpr int64_t span_of(int64_t rows, int64_t cols, int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

// The most memory rows at leading dimension ld that keep a span of at most `limit` elements
// (rows of at most ld elements each), as a multiple of 256 where that leaves at least 256.
constexpr int64_t rows_within(int64_t ld, int64_t limit) {
  const int64_t rows = std::max<int64_t>(1, limit / std::max<int64_t>(1, ld));
  return rows >= 256 ? rows / 256 * 256 : rows;
}

// Each dimension is bounded by the operands whose memory rows run along it: C's rows by C (and A
// when not transposed), C's columns by B when transposed, k by A when transposed and by B when
// not. Requires each ld >= the row it holds and ld <= limit (a single row must fit).
constexpr GemmPieceShape pieces_within(const RowMajorExtents& e, int64_t limit) {
  const int64_t a_span = e.trans_a ? span_of(e.k, e.m, e.lda) : span_of(e.m, e.k, e.lda);
  const int64_t b_span = e.trans_b ? span_of(e.n, e.k, e.ldb) : span_of(e.k, e.n, e.ldb);
  const int64_t c_span = span_of(e.m, e.n, e.ldc);
  if (a_span <= limit && b_span <= limit && c_span <= limit) return {e.m, e.n, e.k};
  int64_t rows = std::min(e.m, rows_within(e.ldc, limit));
  int64_t cols = e.n, depth = e.k;
  if (e.trans_a) depth = std::min(depth, rows_within(e.lda, limit));
  else rows = std::min(rows, rows_within(e.lda, limit));
  if (e.trans_b) cols = std::min(cols, rows_within(e.ldb, limit));
  else depth = std::min(depth, rows_within(e.ldb, limit));
  return {rows, cols, depth};
}

// One piece: C rows [row0, row0 + rows), columns [col0, col0 + cols), k [k0, k0 + depth), and
// where its operands start, in elements from the caller's A, B and C.
struct GemmPiece {
  int64_t row0 = 0, col0 = 0, k0 = 0;
  int64_t rows = 0, cols = 0, depth = 0;
  int64_t a_offset = 0, b_offset = 0, c_offset = 0;
};

// Calls f(piece) for each piece of `shape` covering e: C's blocks in row-major order, each over
// its k slices in order (k = 0: one slice of depth 0). Stops at the first error f returns.
template <typename F>
Status for_each_piece(const RowMajorExtents& e, const GemmPieceShape& shape, F&& f) {
  for (int64_t r0 = 0; r0 < e.m; r0 += shape.rows)
    for (int64_t c0 = 0; c0 < e.n; c0 += shape.cols)
      for (int64_t k0 = 0; k0 < e.k || k0 == 0; k0 += shape.depth) {
        GemmPiece p;
        p.row0 = r0, p.col0 = c0, p.k0 = k0;
        p.rows = std::min(shape.rows, e.m - r0);
        p.cols = std::min(shape.cols, e.n - c0);
        p.depth = std::min(shape.depth, e.k - k0);
        p.a_offset = e.trans_a ? k0 * e.lda + r0 : r0 * e.lda + k0;
        p.b_offset = e.trans_b ? c0 * e.ldb + k0 : k0 * e.ldb + c0;
        p.c_offset = r0 * e.ldc + c0;
        const Status s = f(p);
        if (!s) return s;
        if (shape.depth == 0) break;  // k = 0: the one pass that scales C by beta
      }
  return Status::ok();
}

}  // namespace tilekit
