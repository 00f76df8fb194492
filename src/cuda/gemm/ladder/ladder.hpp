// ladder.hpp — the CUDA GEMM ladder (host-only declarations) and what its steps share.
//
// Every step computes the row-major problem C = alpha·op(A)·op(B) + beta·C with op(A) and op(B)
// chosen at compile time (four instantiations per kernel). A column-major problem is served by
// the row/column-major identity: column-major C is row-major Cᵀ = op(B)ᵀ·op(A)ᵀ, which is the
// same memory with A and B, m and n swapped, and the ops unchanged (to_row_major()).
#pragma once

#include <climits>
#include <string>

#include "core/gemm_pieces.hpp"
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
// Ok when every size and leading dimension of `p` fits in a 32-bit int, however far its operands
// span: what a kernel that runs in pieces (for_each_32bit_piece) needs.
Status check_32bit_extents(const GemmProblem& p);

// Calls launch(piece) for pieces of g whose operands each span at most 2^31 − 1 elements
// (core/gemm_pieces.hpp): g itself where it fits, else blocks of C in row-major order, each over
// its k slices in order, the first slice with g's beta and the next ones adding into C (beta = 1).
// The pieces run one after another on the caller's stream, in the same order every call.
template <typename F>
Status for_each_32bit_piece(const RowMajorGemm& g, F&& launch) {
  const RowMajorExtents e{g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.trans_a, g.trans_b};
  const GemmPieceShape shape = pieces_within(e, INT_MAX);
  if (shape.rows == g.m && shape.cols == g.n && shape.depth == g.k) return launch(g);
  return for_each_piece(e, shape, [&](const GemmPiece& piece) {
    RowMajorGemm p = g;
    p.m = static_cast<int>(piece.rows);
    p.n = static_cast<int>(piece.cols);
    p.k = static_cast<int>(piece.depth);
    p.a = g.a + piece.a_offset;
    p.b = g.b + piece.b_offset;
    p.c = g.c + piece.c_offset;
    if (piece.k0 > 0) p.beta = 1.0f;  // the slices after the first add into C
    return launch(p);
  });
}

}  // namespace tilekit::cuda
