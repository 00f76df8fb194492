// Pieces of a GEMM whose operands fit 32-bit offsets (core/gemm_pieces.hpp): the SIMT ladder
// kernels run a 65536² FP32 problem as such pieces. Every piece's operands must span at most the
// limit, and the pieces must cover C exactly once and each C block's k exactly once, in order.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "core/gemm_pieces.hpp"

namespace tilekit {
namespace {

std::vector<GemmPiece> pieces_of(const RowMajorExtents& e, int64_t limit) {
  std::vector<GemmPiece> out;
  const Status s = for_each_piece(e, pieces_within(e, limit), [&](const GemmPiece& p) {
    out.push_back(p);
    return Status::ok();
  });
  EXPECT_TRUE(s) << s.to_string();
  return out;
}

// Spans, coverage and order of the pieces of e; returns how many there were.
size_t expect_valid_pieces(const RowMajorExtents& e, int64_t limit) {
  const std::vector<GemmPiece> pieces = pieces_of(e, limit);
  std::map<std::pair<int64_t, int64_t>, int64_t> k_done;  // C block (row0, col0) → k covered
  int64_t c_elements = 0;
  for (const GemmPiece& p : pieces) {
    const int64_t a = e.trans_a ? span_of(p.depth, p.rows, e.lda) : span_of(p.rows, p.depth, e.lda);
    const int64_t b = e.trans_b ? span_of(p.cols, p.depth, e.ldb) : span_of(p.depth, p.cols, e.ldb);
    EXPECT_LE(a, limit) << "A of the piece at " << p.row0 << "," << p.col0 << "," << p.k0;
    EXPECT_LE(b, limit) << "B of the piece at " << p.row0 << "," << p.col0 << "," << p.k0;
    EXPECT_LE(span_of(p.rows, p.cols, e.ldc), limit);
    EXPECT_EQ(p.a_offset, e.trans_a ? p.k0 * e.lda + p.row0 : p.row0 * e.lda + p.k0);
    EXPECT_EQ(p.b_offset, e.trans_b ? p.col0 * e.ldb + p.k0 : p.k0 * e.ldb + p.col0);
    EXPECT_EQ(p.c_offset, p.row0 * e.ldc + p.col0);
    int64_t& covered = k_done[{p.row0, p.col0}];
    EXPECT_EQ(p.k0, covered) << "k slices of a C block in order, none skipped or repeated";
    covered += p.depth;
    if (p.k0 == 0) c_elements += p.rows * p.cols;
  }
  EXPECT_EQ(c_elements, e.m * e.n) << "every C element in exactly one block";
  for (const auto& [block, k] : k_done)
    EXPECT_EQ(k, e.k) << "block " << block.first << "," << block.second;
  return pieces.size();
}

// A square NN problem of side n (every ld n) cut within 32-bit offsets: the pieces' extents, and
// how many pieces there are.
void expect_square_pieces(int64_t n, GemmPieceShape want, size_t count) {
  const RowMajorExtents e{n, n, n, n, n, n, false, false};
  const GemmPieceShape s = pieces_within(e, INT_MAX);
  EXPECT_EQ(s.rows, want.rows);
  EXPECT_EQ(s.cols, want.cols);
  EXPECT_EQ(s.depth, want.depth);
  EXPECT_EQ(expect_valid_pieces(e, INT_MAX), count);
}

TEST(GemmPieces, AProblemThatFitsIsOnePieceOfItself) {
  expect_square_pieces(4096, {4096, 4096, 4096}, 1);
}

TEST(GemmPieces, FP32At65536SquaredRunsInPiecesOfWholeTiles) {
  // A, B and C each span 2^32 elements: rows of C and k in 32512 (a multiple of 256 within
  // 2^31 / 65536 = 32768 rows), columns whole.
  expect_square_pieces(65536, {32512, 65536, 32512}, 3 * 3);
}

TEST(GemmPieces, EveryOpBoundsTheDimensionsItsOperandsRunAlong) {
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      SCOPED_TRACE(std::string(ta ? "T" : "N") + (tb ? "T" : "N"));
      // Sizes off the multiples of 256, padded lds: the last pieces are partial.
      const RowMajorExtents e{70001, 50003, 60007, 70011, 60013, 50021, ta, tb};
      expect_valid_pieces(e, INT_MAX);
    }
}

TEST(GemmPieces, SmallLimitsGivePiecesOfSingleRows) {
  // A limit below 256 rows of the ld: pieces of as many rows as fit, down to one.
  const RowMajorExtents e{7, 5, 9, 100, 100, 100, true, false};
  const GemmPieceShape s = pieces_within(e, 250);
  EXPECT_EQ(s.depth, 2);  // Aᵀ and B: 2 memory rows of 100 within 250
  EXPECT_EQ(s.rows, 2);   // C
  expect_valid_pieces(e, 250);
  const RowMajorExtents one_row{3, 3, 3, 200, 200, 200, false, false};
  EXPECT_EQ(pieces_within(one_row, 250).rows, 1);
  expect_valid_pieces(one_row, 250);
}

TEST(GemmPieces, DepthZeroIsOnePassPerBlockThatScalesC) {
  // k = 0 with C past the limit: C in row blocks, one pass each (C = beta·C).
  const RowMajorExtents e{65536, 65536, 0, 1, 65536, 65536, false, false};
  const std::vector<GemmPiece> pieces = pieces_of(e, INT_MAX);
  ASSERT_EQ(pieces.size(), 3u);
  for (const GemmPiece& p : pieces) EXPECT_EQ(p.depth, 0);
  expect_valid_pieces(e, INT_MAX);
}

TEST(GemmPieces, AnErrorStopsThePieces) {
  const RowMajorExtents e{65536, 65536, 65536, 65536, 65536, 65536, false, false};
  int calls = 0;
  const Status s = for_each_piece(e, pieces_within(e, INT_MAX), [&](const GemmPiece&) {
    ++calls;
    return calls == 2 ? Status(StatusCode::kInternal, "launch failed") : Status::ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace tilekit
