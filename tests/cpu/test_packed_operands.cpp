// The packed mainloop's packing plan (src/cuda/gemm/simt/packed_operands.cuh): which
// operands are copied into whole-chunk k rows and how much workspace that takes. Host code of the
// CUDA build, so these tests exist where the CUDA backend is built (CI builds it, without a GPU).
#include <gtest/gtest.h>

#if TILEKIT_WITH_CUDA
#include <cstdint>

#include "cuda/gemm/simt/packed_operands.cuh"

namespace tilekit::cuda {
namespace {

// Operand addresses are only looked at for their alignment here.
const float* at(uintptr_t address) { return reinterpret_cast<const float*>(address); }

GemmProblem problem(int64_t m, int64_t n, int64_t k, Op op_a, Op op_b) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.op_a = op_a;
  p.op_b = op_b;
  p.a = at(0x10000);
  p.b = at(0x20000);
  p.c = reinterpret_cast<void*>(0x30000);
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

// In the row-major view A is read in place when stored transposed (k rows of m), B when not.
TEST(PackedOperands, OnlyKMajorOperandsAreCopiedWhenRowsAreWholeChunks) {
  const struct {
    Op op_a, op_b;
    bool a, b;
  } cases[] = {{Op::kN, Op::kN, true, false},
               {Op::kN, Op::kT, true, true},
               {Op::kT, Op::kN, false, false},
               {Op::kT, Op::kT, false, true}};
  for (const auto& c : cases) {
    const PackPlan plan = plan_packs(to_row_major(problem(4096, 2048, 1024, c.op_a, c.op_b)));
    EXPECT_EQ(plan.a, c.a) << static_cast<int>(c.op_a) << static_cast<int>(c.op_b);
    EXPECT_EQ(plan.b, c.b) << static_cast<int>(c.op_a) << static_cast<int>(c.op_b);
    EXPECT_EQ(plan.a_bytes, c.a ? size_t{1024} * 4096 * sizeof(float) : 0);
    EXPECT_EQ(plan.b_bytes, c.b ? size_t{1024} * 2048 * sizeof(float) : 0);
    EXPECT_EQ(plan.bytes(), plan.a_bytes + plan.b_bytes);
  }
}

// A column-major problem is the row-major Cᵀ = op(B)ᵀ·op(A)ᵀ on the same memory: the view's A is
// the user's B, its B the user's A. In column-major NN the user's B (k × n) runs along k: the
// view's A is K-major and copied; the user's A (m × k) runs along m: the view's B is read in place.
TEST(PackedOperands, ColumnMajorSwapsTheOperandsRoles) {
  GemmProblem p = problem(4096, 2048, 1024, Op::kN, Op::kN);
  p.layout = Layout::kColMajor;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  const PackPlan plan = plan_packs(to_row_major(p));
  EXPECT_TRUE(plan.a);
  EXPECT_EQ(plan.lda, 2048);  // the view's m is the user's n
  EXPECT_FALSE(plan.b);
}

// Rows not in whole 16-byte chunks are copied even where their orientation suits the loop, and
// the copy's rows are padded to a multiple of 4 floats.
TEST(PackedOperands, RowsNotInWholeChunksAreCopiedWithPaddedRows) {
  const PackPlan odd = plan_packs(to_row_major(problem(4097, 4097, 4097, Op::kT, Op::kN)));
  EXPECT_TRUE(odd.a);
  EXPECT_TRUE(odd.b);
  EXPECT_EQ(odd.lda, 4100);
  EXPECT_EQ(odd.ldb, 4100);
  EXPECT_EQ(odd.a_bytes % 256, 0u);
  EXPECT_GE(odd.a_bytes, size_t{4097} * 4100 * sizeof(float));
  GemmProblem unaligned = problem(4096, 4096, 4096, Op::kT, Op::kN);
  unaligned.a = at(0x10004);  // one float past a 16-byte boundary
  const PackPlan shifted = plan_packs(to_row_major(unaligned));
  EXPECT_TRUE(shifted.a);
  EXPECT_FALSE(shifted.b);
}

TEST(PackedOperands, NothingIsCopiedWithoutWork) {
  EXPECT_EQ(plan_packs(to_row_major(problem(64, 64, 0, Op::kN, Op::kT))).bytes(), 0u);
  EXPECT_EQ(plan_packs(to_row_major(problem(0, 64, 64, Op::kN, Op::kT))).bytes(), 0u);
}

// The copies' rows are padded, so their offsets can pass 32 bits where the operands' do not:
// A is 3 × 600,000,000 (1.8e9 elements), its copy 600,000,000 × 4.
TEST(PackedOperands, PaddedCopiesPastThirtyTwoBitOffsetsAreRefused) {
  GemmProblem p = problem(3, 1, 600'000'000, Op::kN, Op::kN);
  EXPECT_TRUE(check_32bit_indexing(p).is_ok());
  const Status st = check_packed_indexing(p);
  EXPECT_EQ(st.code(), StatusCode::kNotSupported);
  EXPECT_NE(st.message().find("packed copies"), std::string::npos) << st.message();
  EXPECT_TRUE(check_packed_indexing(problem(4097, 4097, 4097, Op::kN, Op::kN)).is_ok());
}

}  // namespace
}  // namespace tilekit::cuda
#endif  // TILEKIT_WITH_CUDA
