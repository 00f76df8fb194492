// Memory spans of the problem types: validate() refuses a problem whose operands span
// more than a 64-bit size, naming the operand, and the span accessors never wrap.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "tilekit/tilekit.hpp"

namespace tilekit {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2Pow62 = int64_t{1} << 62;

float g_dummy[1];  // a non-null pointer; none of these problems may get as far as reading it

GemmProblem gemm_problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = std::max<int64_t>(1, k);
  p.ldb = std::max<int64_t>(1, n);
  p.ldc = std::max<int64_t>(1, n);
  p.a = p.b = g_dummy;
  p.c = g_dummy;
  return p;
}

void expect_span_error(const Status& s, const std::string& operand) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find(operand + " ("), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("spans more than 2^63 bytes"), std::string::npos) << s.message();
}

TEST(ProblemSpans, GemmCSpanPast2To64IsRefused) {
  // The probe's case: C is 3 × 6148914691236517206, so (m - 1)·ldc + n = 3n wraps past 2^64.
  const GemmProblem p = gemm_problem(3, 6148914691236517206, 0);
  expect_span_error(validate(p), "gemm: C");
  EXPECT_EQ(p.c_span(), kMax) << "saturates instead of wrapping";
  expect_span_error(gemm(Context::cpu(), p), "gemm: C");
}

TEST(ProblemSpans, GemmSpanWhoseBytesOverflowIsRefused) {
  // 2^62 elements fit int64, 2^64 bytes of float32 do not.
  const GemmProblem p = gemm_problem(1, k2Pow62, 0);
  EXPECT_EQ(p.c_span(), k2Pow62);
  expect_span_error(validate(p), "gemm: C");
}

TEST(ProblemSpans, GemmASpanIsRefused) {
  GemmProblem p = gemm_problem(2, 1, 1);
  p.lda = kMax;  // a legal-looking leading dimension whose second row lies past int64
  expect_span_error(validate(p), "gemm: A");
  EXPECT_EQ(p.a_span(), kMax);
}

TEST(ProblemSpans, GemmBSpanIsRefusedTransposedAndColumnMajor) {
  GemmProblem p = gemm_problem(1, 3, 1);
  p.layout = Layout::kColMajor;
  p.op_b = Op::kT;  // B is stored n × k = 3 × 1, column-major: one column of 3
  p.lda = 1;
  p.ldb = 3;
  p.ldc = 1;
  ASSERT_TRUE(validate(p).is_ok());
  p.k = 3;
  p.lda = 1;
  p.ldb = k2Pow62;  // columns 0, 1, 2 at 2^62 apart: the last starts at 2^63
  expect_span_error(validate(p), "gemm: B");
}

TEST(ProblemSpans, LargestRepresentableSpansStillValidate) {
  // 2^60 float32 elements are 2^62 bytes: representable, so the rules accept the problem.
  GemmProblem p = gemm_problem(1, int64_t{1} << 60, 0);
  p.beta = 1.0f;  // a quick return: nothing is touched
  EXPECT_TRUE(validate(p).is_ok()) << validate(p).to_string();
  EXPECT_EQ(p.c_span(), int64_t{1} << 60);
}

TEST(ProblemSpans, BytesAreCountedInEachOperandsType) {
  // A is 1 × 2^61 and B 2^61 × 1: 2^62 bytes as bf16 (representable), 2^63 as f32 (not).
  GemmProblem p = gemm_problem(1, 1, int64_t{1} << 61);
  p.ldb = 1;
  p.alpha = 0.0f;
  p.beta = 1.0f;  // a quick return: nothing is touched
  p.types.a = p.types.b = DType::kBF16;
  p.types.compute = Compute::kBF16;
  EXPECT_TRUE(validate(p).is_ok()) << validate(p).to_string();
  p.types = GemmTypes{};
  const Status s = validate(p);
  expect_span_error(s, "gemm: A");
  EXPECT_NE(s.message().find("of f32"), std::string::npos) << s.message();
}

TEST(ProblemSpans, EmptyOperandsSpanNothing) {
  const GemmProblem p = gemm_problem(0, kMax, kMax);
  EXPECT_EQ(p.c_span(), 0);
  EXPECT_EQ(p.a_span(), 0);
}

TEST(ProblemSpans, TransposeSpansAreRefused) {
  TransposeProblem t;
  t.a = g_dummy;
  t.b = g_dummy + 1;
  t.rows = 3;
  t.cols = 6148914691236517206;
  t.lda = t.cols;
  t.ldb = 3;
  expect_span_error(validate(t), "transpose: A");

  t.rows = k2Pow62;
  t.cols = 2;
  t.lda = 2;
  t.ldb = k2Pow62;  // B = Aᵀ is 2 × 2^62: its second row starts at 2^62, ends past 2^63 bytes
  expect_span_error(validate(t), "transpose: A");  // A (2^62 × 2) is already too large
  t.rows = int64_t{1} << 40;
  t.cols = 2;
  t.lda = 2;
  t.ldb = k2Pow62;
  expect_span_error(validate(t), "transpose: B");
}

TEST(ProblemSpans, DotAndCopyLengthsAreRefused) {
  float result = 0;
  DotProblem d;
  d.n = k2Pow62;
  d.x = d.y = g_dummy;
  d.result = &result;
  expect_span_error(validate(d), "dot: x and y");
  CopyProblem c;
  c.n = k2Pow62;
  c.x = g_dummy;
  c.y = g_dummy;
  expect_span_error(validate(c), "copy: x and y");
}

}  // namespace
}  // namespace tilekit
