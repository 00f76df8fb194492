// The checker itself must catch what it is for: a wrong element, NaN, an unwritten element.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tilekit/tilekit.hpp"
#include "tilekit/verify.hpp"

namespace tilekit {
namespace {

struct Small {
  std::vector<float> a, b, c;
  GemmProblem p;
  GemmReference ref;
  explicit Small(int64_t s) {
    a.resize(static_cast<size_t>(s * s));
    b.resize(a.size());
    c.assign(a.size(), 0.0f);
    fill_uniform(a.data(), a.size(), 11);
    fill_uniform(b.data(), b.size(), 12);
    p.m = p.n = p.k = s;
    p.lda = p.ldb = p.ldc = s;
    p.a = a.data();
    p.b = b.data();
    p.c = c.data();
    EXPECT_TRUE(compute_gemm_reference(Context::cpu(), p, &ref).is_ok());
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(ref.value[i]);
  }
};

// The inputs of every test and benchmark: the same array from the same seed whatever the
// thread count (the fill runs on every core past 2^20 elements), another from another seed,
// and values in [lo, hi) spread over it (mean and variance of a uniform distribution).
TEST(FillUniform, SameArrayOnAnyThreadCountAndUniformInItsRange) {
  const size_t n = (size_t{1} << 21) + 3;
  std::vector<float> one(n), many(n), other(n);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  fill_uniform(one.data(), n, 42, -1.0f, 3.0f);
  omp_set_num_threads(std::max(threads, 4));
  fill_uniform(many.data(), n, 42, -1.0f, 3.0f);
  fill_uniform(other.data(), n, 43, -1.0f, 3.0f);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, many);
  size_t same = 0;
  double sum = 0, sum_sq = 0;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_GE(one[i], -1.0f) << i;
    ASSERT_LT(one[i], 3.0f) << i;
    same += one[i] == other[i];
    sum += one[i];
    sum_sq += (one[i] - 1.0) * (one[i] - 1.0);
  }
  EXPECT_LT(same, n / 1000);
  EXPECT_NEAR(sum / n, 1.0, 0.01);              // (lo + hi) / 2
  EXPECT_NEAR(sum_sq / n, 16.0 / 12.0, 0.01);   // (hi − lo)² / 12
  std::vector<float> narrow(1000);
  fill_uniform(narrow.data(), narrow.size(), 7, 1e6f, 1e6f + 0.0625f);
  for (float v : narrow) ASSERT_TRUE(v >= 1e6f && v < 1e6f + 0.0625f) << v;
}

// check_gemm_result checks parts of 2^16 elements on every core and merges them: its report must
// be an in-order pass's. Without violations the worst place is the last element of the largest
// ratio (here a tie between parts 0 and 2); with them, the first violation (part 1 before part
// 2), and the counts add up.
TEST(Verify, APartedCheckReportsAsOnePassInOrder) {
  const int64_t m = 5, n = 3 * 65536 / 5 + 7;  // 3 parts and a bit; parts end inside rows
  GemmReference ref;
  ref.m = m;
  ref.n = n;
  ref.value.assign(static_cast<size_t>(m * n), 1.0);
  ref.magnitude.assign(static_cast<size_t>(m * n), 1.0);
  std::vector<float> c(static_cast<size_t>(m * n), 1.0f);
  const float above_one = std::nextafter(1.0f, 2.0f);  // within the bound of k = 100
  const int64_t tie_early = 10, tie_late = 2 * 65536 + 100;
  c[tie_early] = c[tie_late] = above_one;
  GemmCheck r = check_gemm_result(c.data(), n, Layout::kRowMajor, ref, 100);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.checked, m * n);
  EXPECT_EQ(r.worst_i * n + r.worst_j, tie_late);
  EXPECT_GT(r.worst_ratio, 0.0);

  const int64_t first_bad = 65536 + 5, later_bad = 2 * 65536 + 7, nan_at = 3 * 65536 + 1;
  c[first_bad] = 1.5f;
  c[later_bad] = 3.0f;
  c[nan_at] = std::numeric_limits<float>::quiet_NaN();
  r = check_gemm_result(c.data(), n, Layout::kRowMajor, ref, 100);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 3);
  EXPECT_EQ(r.nonfinite, 1);
  EXPECT_EQ(r.worst_i, first_bad / n);
  EXPECT_EQ(r.worst_j, first_bad % n);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 2.0);
}

TEST(Verify, RoundedReferencePasses) {
  Small s(64);
  const GemmCheck r = check_gemm_result(s.c.data(), 64, Layout::kRowMajor, s.ref, 64);
  EXPECT_TRUE(r.passed) << r.summary();
  EXPECT_LT(r.worst_ratio, 1.0);
}

TEST(Verify, OneWrongElementFails) {
  Small s(64);
  s.c[100] += 1e-3f;  // far above γ(66)·|A||B| ≈ 1e-5 · 16
  const GemmCheck r = check_gemm_result(s.c.data(), 64, Layout::kRowMajor, s.ref, 64);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 1);
  EXPECT_EQ(r.worst_i, 1);
  EXPECT_EQ(r.worst_j, 36);
}

TEST(Verify, NaNFails) {
  Small s(16);
  s.c[5] = std::numeric_limits<float>::quiet_NaN();
  const GemmCheck r = check_gemm_result(s.c.data(), 16, Layout::kRowMajor, s.ref, 16);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonfinite, 1);
}

TEST(Verify, ExactModeRejectsOneUlp) {
  std::vector<float> a(8 * 8), b(8 * 8), c(8 * 8);
  fill_small_integers(a.data(), a.size(), 1);
  fill_small_integers(b.data(), b.size(), 2);
  GemmProblem p;
  p.m = p.n = p.k = 8;
  p.lda = p.ldb = p.ldc = 8;
  p.a = a.data();
  p.b = b.data();
  p.c = c.data();
  GemmReference ref;
  ASSERT_TRUE(compute_gemm_reference(Context::cpu(), p, &ref).is_ok());
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(ref.value[i]);
  CheckOptions exact;
  exact.exact = true;
  EXPECT_TRUE(check_gemm_result(c.data(), 8, Layout::kRowMajor, ref, 8, exact).passed);
  c[3] = std::nextafter(c[3], 1e9f);
  EXPECT_FALSE(check_gemm_result(c.data(), 8, Layout::kRowMajor, ref, 8, exact).passed);
}

// A TF32 GEMM whose inputs are truncated to TF32 (what cuBLAS's FAST_TF32 does on Hopper), in
// double and rounded once to float, checked against the tf32 reference (inputs rounded to
// nearest): outside the nearest-rounding bound, inside the bound of a kernel that declares
// faithful rounding. Only vendor kernels may declare it (test_registry.cpp).
TEST(Verify, FaithfulTf32RoundingHasItsOwnBound) {
  const int64_t s = 31;
  std::vector<float> a(static_cast<size_t>(s * s)), b(a.size()), c(a.size());
  fill_uniform(a.data(), a.size(), 21);
  fill_uniform(b.data(), b.size(), 22);
  auto truncate_to_tf32 = [](float x) { return bits_to_float(float_to_bits(x) & 0xffffe000u); };
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < s; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < s; ++l)
        sum += static_cast<double>(truncate_to_tf32(a[static_cast<size_t>(i * s + l)])) *
               truncate_to_tf32(b[static_cast<size_t>(l * s + j)]);
      c[static_cast<size_t>(i * s + j)] = static_cast<float>(sum);
    }
  GemmProblem p;
  p.m = p.n = p.k = s;
  p.lda = p.ldb = p.ldc = s;
  p.types.compute = Compute::kTF32;
  p.a = a.data();
  p.b = b.data();
  p.c = c.data();
  GemmReference ref;
  ASSERT_TRUE(compute_gemm_reference(Context::cpu(), p, &ref).is_ok());
  const GemmCheck nearest = check_gemm_result(c.data(), s, Layout::kRowMajor, ref, s,
                                              check_options_for(p.types, false));
  EXPECT_FALSE(nearest.passed) << nearest.summary();
  const GemmCheck faithful =
      check_gemm_result(c.data(), s, Layout::kRowMajor, ref, s,
                        check_options_for(p.types, false, InputRounding::kFaithful));
  EXPECT_TRUE(faithful.passed) << faithful.summary();
  // The widening is one TF32 unit per input, nothing for modes that multiply inputs as stored.
  EXPECT_EQ(check_options_for(p.types, false, InputRounding::kFaithful).input_roundoff,
            std::ldexp(1.0, -10));
  EXPECT_EQ(check_options_for(GemmTypes{}, false, InputRounding::kFaithful).input_roundoff, 0.0);
  EXPECT_EQ(check_options_for(p.types, false).input_roundoff, 0.0);
}

TEST(Verify, BoundGrowsWithK) {
  EXPECT_LT(gamma_bound(10), gamma_bound(1000));
  EXPECT_NEAR(gamma_bound(1), 1.0 / 16777216.0, 1e-14);  // u / (1 − u)
}

// verify_gemm_result computes the reference tile by tile (what lets `tilekit gemm --check` hold
// only C and one copy); it must agree with the whole-matrix check for every layout and op, both
// when C's rows are split into bands and when one row is wider than a tile.
struct TiledCase {
  int64_t m, n, k;
};

class TiledVerify : public ::testing::TestWithParam<TiledCase> {};

TEST_P(TiledVerify, AgreesWithTheWholeCheckAndFindsOneWrongElement) {
  const TiledCase t = GetParam();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmProblem p;
        p.layout = layout;
        p.op_a = op_a;
        p.op_b = op_b;
        p.m = t.m;
        p.n = t.n;
        p.k = t.k;
        p.alpha = 1.5f;
        p.beta = 0.5f;
        p.lda = p.min_lda();
        p.ldb = p.min_ldb();
        p.ldc = p.min_ldc();
        std::vector<float> a(static_cast<size_t>(t.m * t.k)), b(static_cast<size_t>(t.k * t.n)),
            c0(static_cast<size_t>(t.m * t.n));
        fill_uniform(a.data(), a.size(), 1);
        fill_uniform(b.data(), b.size(), 2);
        fill_uniform(c0.data(), c0.size(), 3);
        p.a = a.data();
        p.b = b.data();
        p.c = c0.data();
        GemmReference whole;
        ASSERT_TRUE(compute_gemm_reference(Context::cpu(), p, &whole).is_ok());
        std::vector<float> c(c0.size());  // the reference rounded, stored in p's layout
        for (int64_t i = 0; i < t.m; ++i)
          for (int64_t j = 0; j < t.n; ++j)
            c[static_cast<size_t>(layout == Layout::kRowMajor ? i * p.ldc + j : j * p.ldc + i)] =
                static_cast<float>(whole.value[static_cast<size_t>(i * t.n + j)]);
        GemmCheck tiled;
        ASSERT_TRUE(verify_gemm_result(Context::cpu(), p, c.data(), {}, &tiled).is_ok());
        const GemmCheck full = check_gemm_result(c.data(), p.ldc, layout, whole, t.k);
        EXPECT_TRUE(tiled.passed) << p.describe() << ": " << tiled.summary();
        EXPECT_EQ(tiled.checked, t.m * t.n);
        EXPECT_DOUBLE_EQ(tiled.max_abs_error, full.max_abs_error);
        EXPECT_DOUBLE_EQ(tiled.max_rel_error, full.max_rel_error);

        const int64_t wrong_i = t.m - 1, wrong_j = t.n - 1;  // in the last tile
        c[static_cast<size_t>(layout == Layout::kRowMajor ? wrong_i * p.ldc + wrong_j
                                                          : wrong_j * p.ldc + wrong_i)] += 1.0f;
        ASSERT_TRUE(verify_gemm_result(Context::cpu(), p, c.data(), {}, &tiled).is_ok());
        EXPECT_FALSE(tiled.passed) << p.describe();
        EXPECT_EQ(tiled.violations, 1);
        EXPECT_EQ(tiled.worst_i, wrong_i);
        EXPECT_EQ(tiled.worst_j, wrong_j);
      }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TiledVerify,
    ::testing::Values(TiledCase{1030, 1100, 3},                        // row bands
                      TiledCase{2, kVerifyTileElements + 7, 2},        // column pieces
                      TiledCase{5, 3, 4}),                             // one tile
    [](const ::testing::TestParamInfo<TiledCase>& info) {
      return std::to_string(info.param.m) + "x" + std::to_string(info.param.n) + "x" +
             std::to_string(info.param.k);
    });

TEST(Verify, ReferenceOfAnOverflowingShapeIsAnError) {
  GemmProblem p;
  p.m = p.n = int64_t{1} << 33;  // 2^66 elements: never a wrapped allocation
  p.k = 0;
  p.lda = 1;
  p.ldb = p.ldc = p.n;
  float dummy = 0;
  p.a = p.b = p.c = &dummy;
  GemmReference ref;
  EXPECT_EQ(compute_gemm_reference(Context::cpu(), p, &ref).code(), StatusCode::kInvalidArgument);
  p.m = p.n = int64_t{1} << 24;  // 2^48 elements: more memory than any machine
  p.ldb = p.ldc = p.n;
  EXPECT_EQ(compute_gemm_reference(Context::cpu(), p, &ref).code(), StatusCode::kOutOfMemory);
}

// transpose --check and the copy/transpose benchmarks: NaN matches NaN, everything else bits.
TEST(SameElement, NaNMatchesNaNAndEverythingElseMatchesBits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(same_element(nan, -nan));
  EXPECT_TRUE(same_element(inf, inf));
  EXPECT_TRUE(same_element(1.5f, 1.5f));
  EXPECT_FALSE(same_element(nan, 1.0f));
  EXPECT_FALSE(same_element(1.0f, nan));
  EXPECT_FALSE(same_element(inf, -inf));
  EXPECT_FALSE(same_element(inf, std::numeric_limits<float>::max()));
  EXPECT_FALSE(same_element(-0.0f, 0.0f));
}

TEST(SameElement, TransposeWithNaNAndInfHasNoMismatch) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a = {1, nan, 3, inf, -inf, 6};  // 2 x 3
  std::vector<float> b = {1, inf, nan, -inf, 3, 6};        // 3 x 2
  EXPECT_EQ(count_transpose_mismatches(a.data(), 2, 3, 3, b.data(), 2), 0);
  b[1] = nan;  // where A has Inf
  b[2] = 2;    // where A has NaN
  EXPECT_EQ(count_transpose_mismatches(a.data(), 2, 3, 3, b.data(), 2), 2);
}

// dot --check: a correct non-finite result passes, a wrong one fails.
TEST(DotCheck, NonFiniteResultsMatchTheReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto check = [](std::vector<float> x, std::vector<float> y, float result) {
    return check_dot_result(result, dot_reference(x.data(), y.data(), static_cast<int64_t>(x.size())),
                            static_cast<int64_t>(x.size()));
  };
  EXPECT_TRUE(check({1, inf}, {1, 1}, inf).passed);
  EXPECT_FALSE(check({1, inf}, {1, 1}, -inf).passed);
  EXPECT_FALSE(check({1, inf}, {1, 1}, nan).passed);
  EXPECT_FALSE(check({1, inf}, {1, 1}, 1e30f).passed);
  EXPECT_TRUE(check({1, nan}, {1, 1}, nan).passed);
  EXPECT_FALSE(check({1, nan}, {1, 1}, 1.0f).passed);
  EXPECT_TRUE(check({inf, 1}, {0, 1}, nan).passed);      // Inf·0
  EXPECT_TRUE(check({inf, -inf}, {1, 1}, nan).passed);   // Inf − Inf
  EXPECT_TRUE(check({3e38f, 3e38f}, {1, 1}, inf).passed);  // the sum overflows float
  EXPECT_FALSE(check({3e38f, 3e38f}, {1, 1}, -inf).passed);
  EXPECT_FALSE(check({1e38f, 1e38f}, {1, 1}, inf).passed);  // 2e38 fits: Inf is wrong
  EXPECT_TRUE(check({1e38f, 1e38f}, {1, 1}, 2e38f).passed);
  EXPECT_TRUE(check({1, 2, 3}, {4, 5, 6}, 32.0f).passed);
  EXPECT_FALSE(check({1, 2, 3}, {4, 5, 6}, 33.0f).passed);
  EXPECT_NE(check({1, 2, 3}, {4, 5, 6}, 33.0f).summary().find("FAIL"), std::string::npos);
}

// alpha = 3e38 on a 64-cubed product of values in [0, 1): most exact elements are beyond
// float32's range, where Inf is the right result; the reference kernel gives exactly that, and
// the check must not call it wrong.
TEST(VerifyOverflow, ExactResultBeyondFloat32IsInfNotAnError) {
  Small s(64);
  s.p.alpha = 3e38f;
  ASSERT_TRUE(compute_gemm_reference(Context::cpu(), s.p, &s.ref).is_ok());
  int64_t beyond = 0;
  for (size_t i = 0; i < s.c.size(); ++i) {
    s.c[i] = static_cast<float>(s.ref.value[i]);  // what an exact kernel stores
    beyond += std::isinf(s.c[i]) ? 1 : 0;
  }
  ASSERT_GT(beyond, 0);
  const GemmCheck r = check_gemm_result(s.c.data(), 64, Layout::kRowMajor, s.ref, 64);
  EXPECT_TRUE(r.passed) << r.summary();
  EXPECT_EQ(r.overflowed, beyond);
  EXPECT_NE(r.summary().find("overflow float32"), std::string::npos) << r.summary();

  // The wrong sign of Inf, or a NaN, where the exact value overflows, is still an error.
  const auto first = static_cast<size_t>(
      std::find_if(s.c.begin(), s.c.end(), [](float v) { return std::isinf(v); }) - s.c.begin());
  s.c[first] = -s.c[first];
  EXPECT_FALSE(check_gemm_result(s.c.data(), 64, Layout::kRowMajor, s.ref, 64).passed);
  s.c[first] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(check_gemm_result(s.c.data(), 64, Layout::kRowMajor, s.ref, 64).passed);
}

TEST(VerifyOverflow, WholeCheckOfTheReferenceKernelPasses) {
  Small s(64);
  s.p.alpha = 3e38f;
  std::vector<float> result(s.c.size(), 0.0f);
  GemmProblem run = s.p;
  run.c = result.data();
  const GemmKernel* reference = Registry::instance().find_gemm("gemm.cpu.reference.f32");
  ASSERT_NE(reference, nullptr);
  ASSERT_TRUE(run_gemm_kernel(*reference, Context::cpu(), run).is_ok());
  GemmCheck r;
  ASSERT_TRUE(verify_gemm_result(Context::cpu(), s.p, result.data(), CheckOptions{}, &r).is_ok());
  EXPECT_TRUE(r.passed) << r.summary();
  EXPECT_GT(r.overflowed, 0);
}

}  // namespace
}  // namespace tilekit
