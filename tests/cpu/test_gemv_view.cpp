// The gemv form of a GEMM (core/gemv_view.hpp): for every layout and op, with the small side
// as C's rows or as its columns, the view's X, W and D strides must address exactly the
// elements the BLAS definition does — D(r, j) = Σ_p X(r, p)·W(p, j) computed through the view
// equals op(A)·op(B) computed through the problem's own indexing, element for element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/gemv_view.hpp"

namespace tilekit {
namespace {

struct ViewCase {
  GemmProblem p;
  std::vector<float> a, b, c;
};

// A problem with padded leading dimensions and distinct small integers everywhere, so that any
// wrong stride lands on a different value.
ViewCase make_case(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k) {
  ViewCase v;
  GemmProblem& p = v.p;
  p.layout = layout, p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 2, p.ldc = p.min_ldc() + 1;
  std::mt19937 gen(static_cast<unsigned>(m * 1000 + n * 10 + k));
  std::uniform_int_distribution<int> digit(-8, 8);
  for (auto [buf, span] : {std::pair{&v.a, p.a_span()}, std::pair{&v.b, p.b_span()},
                           std::pair{&v.c, p.c_span()}}) {
    buf->resize(static_cast<size_t>(span));
    for (float& x : *buf) x = static_cast<float>(digit(gen));
  }
  p.a = v.a.data(), p.b = v.b.data(), p.c = v.c.data();
  return v;
}

double op_a_at(const ViewCase& v, int64_t i, int64_t l) {
  const GemmProblem& p = v.p;
  const bool stored_rows = (p.op_a == Op::kN) == (p.layout == Layout::kRowMajor);
  return v.a[static_cast<size_t>(stored_rows ? i * p.lda + l : l * p.lda + i)];
}
double op_b_at(const ViewCase& v, int64_t l, int64_t j) {
  const GemmProblem& p = v.p;
  const bool stored_rows = (p.op_b == Op::kN) == (p.layout == Layout::kRowMajor);
  return v.b[static_cast<size_t>(stored_rows ? l * p.ldb + j : j * p.ldb + l)];
}
int64_t c_offset(const GemmProblem& p, int64_t i, int64_t j) {
  return p.layout == Layout::kRowMajor ? i * p.ldc + j : j * p.ldc + i;
}

TEST(GemvView, AddressesWhatTheBlasDefinitionDoesForEveryLayoutAndOp) {
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (auto [m, n] : {std::pair<int64_t, int64_t>{3, 11}, {11, 3}, {5, 5}}) {
          const ViewCase v = make_case(layout, op_a, op_b, m, n, 7);
          GemvView view;
          ASSERT_TRUE(gemv_view(v.p, 16, &view).is_ok());
          ASSERT_EQ(view.rows, std::min(m, n));
          ASSERT_EQ(view.cols, std::max(m, n));
          ASSERT_EQ(view.k, 7);
          const auto* x = static_cast<const float*>(view.x);
          const auto* w = static_cast<const float*>(view.w);
          for (int64_t r = 0; r < view.rows; ++r)
            for (int64_t j = 0; j < view.cols; ++j) {
              double through_view = 0, through_problem = 0;
              for (int64_t l = 0; l < view.k; ++l) {
                through_view += double(x[r * view.x_row + l * view.x_step]) *
                                w[view.w_along_k ? j * view.ldw + l : l * view.ldw + j];
              }
              // The view's (r, j) is C's (r, j) when the rows are C's rows, else C's (j, r).
              const bool rows_of_c = m <= n;
              const int64_t i = rows_of_c ? r : j, jc = rows_of_c ? j : r;
              for (int64_t l = 0; l < view.k; ++l) through_problem += op_a_at(v, i, l) * op_b_at(v, l, jc);
              ASSERT_EQ(through_view, through_problem) << v.p.describe() << " at " << r << ", " << j;
              const float* d = static_cast<const float*>(view.d) + r * view.d_row + j * view.d_col;
              ASSERT_EQ(d, v.c.data() + c_offset(v.p, i, jc)) << v.p.describe();
            }
        }
}

TEST(GemvView, StreamsAlongKForADecodeStepAndAlongTheOutputsForXTimesW) {
  // x·Wᵀ with W row-major (n × k): every output is a dot product of W's contiguous lines.
  ViewCase decode = make_case(Layout::kRowMajor, Op::kN, Op::kT, 4, 64, 32);
  GemvView v;
  ASSERT_TRUE(gemv_view(decode.p, 16, &v).is_ok());
  EXPECT_TRUE(v.w_along_k);
  EXPECT_EQ(v.x_step, 1);
  // x·W with W row-major (k × n): W's lines run along the outputs.
  ViewCase axpy = make_case(Layout::kRowMajor, Op::kN, Op::kN, 4, 64, 32);
  ASSERT_TRUE(gemv_view(axpy.p, 16, &v).is_ok());
  EXPECT_FALSE(v.w_along_k);
}

TEST(GemvView, RefusesWhenBothSidesAreLongerThanTheRowsItTakes) {
  const ViewCase v = make_case(Layout::kRowMajor, Op::kN, Op::kN, 17, 40, 8);
  GemvView view;
  const Status s = gemv_view(v.p, 16, &view);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("17 x 40"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tilekit
