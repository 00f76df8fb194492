// The checker itself must catch what it is for: a wrong element, NaN, an unwritten element.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

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

TEST(Verify, BoundGrowsWithK) {
  EXPECT_LT(gamma_bound(10), gamma_bound(1000));
  EXPECT_NEAR(gamma_bound(1), 1.0 / 16777216.0, 1e-14);  // u / (1 − u)
}

}  // namespace
}  // namespace tilekit
