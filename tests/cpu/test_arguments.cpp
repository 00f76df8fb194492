// The BLAS argument rules of gemm(), one test per rule: bad input is refused with a message
// naming the argument and C is left untouched; quick returns do nothing; alpha = 0 only scales
// C; beta = 0 never reads C.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tilekit/tilekit.hpp"

namespace tilekit {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A 4×3×5 row-major problem with valid buffers; tests break one thing at a time.
struct Fixture {
  std::vector<float> a = std::vector<float>(4 * 5, 1.0f);
  std::vector<float> b = std::vector<float>(5 * 3, 2.0f);
  std::vector<float> c = std::vector<float>(4 * 3, 7.0f);
  GemmProblem p;
  Fixture() {
    p.m = 4;
    p.n = 3;
    p.k = 5;
    p.a = a.data();
    p.lda = 5;
    p.b = b.data();
    p.ldb = 3;
    p.c = c.data();
    p.ldc = 3;
  }
  bool c_untouched() const {
    for (float v : c)
      if (v != 7.0f) return false;
    return true;
  }
};

void expect_invalid(const GemmProblem& p, const std::string& names) {
  const Status s = gemm(Context::cpu(), p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find(names), std::string::npos)
      << "message should name '" << names << "': " << s.message();
}

TEST(Arguments, ValidProblemRuns) {
  Fixture f;
  ASSERT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  for (float v : f.c) EXPECT_EQ(v, 10.0f);  // 5 · 1 · 2
}

TEST(Arguments, NegativeM) {
  Fixture f;
  f.p.m = -1;
  expect_invalid(f.p, "m = -1");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, NegativeN) {
  Fixture f;
  f.p.n = -2;
  expect_invalid(f.p, "n = -2");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, NegativeK) {
  Fixture f;
  f.p.k = -3;
  expect_invalid(f.p, "k = -3");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, LdaBelowRowLengthRowMajorN) {
  Fixture f;
  f.p.lda = 4;  // A is 4 × 5 row-major: lda >= 5
  expect_invalid(f.p, "lda = 4 must be >= 5");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, LdaBelowRowLengthRowMajorT) {
  Fixture f;
  f.p.op_a = Op::kT;  // A is stored 5 × 4: lda >= 4
  f.p.lda = 3;
  expect_invalid(f.p, "lda = 3 must be >= 4");
}
TEST(Arguments, LdaBelowColumnLengthColMajor) {
  Fixture f;
  f.p.layout = Layout::kColMajor;  // A is 4 × 5 column-major: lda >= 4
  f.p.lda = 3;
  f.p.ldb = 5;
  f.p.ldc = 4;
  expect_invalid(f.p, "lda = 3 must be >= 4");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, LdbTooSmall) {
  Fixture f;
  f.p.ldb = 2;
  expect_invalid(f.p, "ldb = 2 must be >= 3");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, LdbTooSmallTransposed) {
  Fixture f;
  f.p.op_b = Op::kT;  // B is stored 3 × 5: ldb >= 5
  f.p.ldb = 4;
  expect_invalid(f.p, "ldb = 4 must be >= 5");
}
TEST(Arguments, LdcTooSmall) {
  Fixture f;
  f.p.ldc = 2;
  expect_invalid(f.p, "ldc = 2 must be >= 3");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, LdcTooSmallColMajor) {
  Fixture f;
  f.p.layout = Layout::kColMajor;
  f.p.lda = 4;
  f.p.ldb = 5;
  f.p.ldc = 3;  // C is 4 × 3 column-major: ldc >= 4
  expect_invalid(f.p, "ldc = 3 must be >= 4");
}
TEST(Arguments, LeadingDimensionAtLeastOneEvenForEmptyMatrices) {
  Fixture f;
  f.p.m = 0;
  f.p.k = 0;
  f.p.lda = 0;
  expect_invalid(f.p, "lda = 0 must be >= 1");
}
TEST(Arguments, NullC) {
  Fixture f;
  f.p.c = nullptr;
  expect_invalid(f.p, "C is null");
}
TEST(Arguments, NullA) {
  Fixture f;
  f.p.a = nullptr;
  expect_invalid(f.p, "A is null");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, NullB) {
  Fixture f;
  f.p.b = nullptr;
  expect_invalid(f.p, "B is null");
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, NullAAndBAllowedWhenAlphaIsZero) {
  Fixture f;
  f.p.a = nullptr;
  f.p.b = nullptr;
  f.p.alpha = 0.0f;
  f.p.beta = 2.0f;
  ASSERT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  for (float v : f.c) EXPECT_EQ(v, 14.0f);
}
TEST(Arguments, NullCAllowedWhenMIsZero) {
  Fixture f;
  f.p.m = 0;
  f.p.c = nullptr;
  EXPECT_TRUE(gemm(Context::cpu(), f.p).is_ok());
}
TEST(Arguments, UnknownKernelId) {
  Fixture f;
  GemmOptions o;
  o.kernel = "gemm.cpu.nonexistent";
  const Status s = gemm(Context::cpu(), f.p, o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("gemm.cpu.nonexistent"), std::string::npos);
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, KernelOfAnotherBackend) {
  if (!built_with_cuda()) GTEST_SKIP() << "no CUDA kernels registered in this build";
  Fixture f;
  GemmOptions o;
  o.kernel = "gemm.cuda.cublas.f32";
  const Status s = gemm(Context::cpu(), f.p, o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_TRUE(f.c_untouched());
}
TEST(Arguments, CudaContextWithoutGpuIsRefused) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU is present";
  Fixture f;
  const Status s = gemm(Context::cuda(0), f.p);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.to_string();
  EXPECT_TRUE(f.c_untouched());
}

// ---- quick returns ----
TEST(QuickReturn, MZeroTouchesNothing) {
  Fixture f;
  f.p.m = 0;
  EXPECT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  EXPECT_TRUE(f.c_untouched());
}
TEST(QuickReturn, NZeroTouchesNothing) {
  Fixture f;
  f.p.n = 0;
  EXPECT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  EXPECT_TRUE(f.c_untouched());
}
TEST(QuickReturn, AlphaZeroBetaOneLeavesCIncludingNaN) {
  Fixture f;
  f.c[5] = kNaN;
  f.p.alpha = 0.0f;
  f.p.beta = 1.0f;
  f.p.a = nullptr;  // not read
  EXPECT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  EXPECT_TRUE(std::isnan(f.c[5]));
  EXPECT_EQ(f.c[0], 7.0f);
}
TEST(QuickReturn, KZeroBetaOneLeavesC) {
  Fixture f;
  f.p.k = 0;
  f.p.beta = 1.0f;
  EXPECT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  EXPECT_TRUE(f.c_untouched());
}

// ---- alpha = 0 / k = 0 only scale C; beta = 0 never reads C ----
TEST(Scaling, AlphaZeroBetaZeroZeroesCEvenIfNaN) {
  Fixture f;
  std::fill(f.c.begin(), f.c.end(), kNaN);
  f.p.alpha = 0.0f;
  f.p.beta = 0.0f;
  ASSERT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  for (float v : f.c) EXPECT_EQ(v, 0.0f);
}
TEST(Scaling, KZeroScalesByBeta) {
  Fixture f;
  f.p.k = 0;
  f.p.beta = 0.5f;
  ASSERT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  for (float v : f.c) EXPECT_EQ(v, 3.5f);
}
TEST(Scaling, AlphaZeroScalesOnlyTheMatrixNotThePadding) {
  Fixture f;
  f.c.assign(4 * 5, 7.0f);  // ldc = 5 > n = 3
  f.p.c = f.c.data();
  f.p.ldc = 5;
  f.p.alpha = 0.0f;
  f.p.beta = -1.0f;
  ASSERT_TRUE(gemm(Context::cpu(), f.p).is_ok());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(f.c[static_cast<size_t>(i * 5 + j)], j < 3 ? -7.0f : 7.0f);
}
TEST(Scaling, BetaZeroWithNaNInCGivesFiniteResultForEveryCpuKernel) {
  for (const auto& k : Registry::instance().gemm_kernels()) {
    if (k.info.backend != Backend::kCpu || k.info.types != GemmTypes{}) continue;  // f32 data
    Fixture f;
    std::fill(f.c.begin(), f.c.end(), kNaN);
    ASSERT_TRUE(run_gemm_kernel(k, Context::cpu(), f.p).is_ok()) << k.info.id;
    for (float v : f.c) EXPECT_EQ(v, 10.0f) << k.info.id;
  }
}

// ---- the typed-view entry point ----
TEST(Views, MatchingShapesRun) {
  Fixture f;
  ASSERT_TRUE(gemm(Context::cpu(), Op::kN, Op::kN, 1.0f, row_major<const float>(f.a.data(), 4, 5),
                   row_major<const float>(f.b.data(), 5, 3), 0.0f, row_major(f.c.data(), 4, 3))
                  .is_ok());
  for (float v : f.c) EXPECT_EQ(v, 10.0f);
}
TEST(Views, ShapeMismatchIsRefused) {
  Fixture f;
  const Status s =
      gemm(Context::cpu(), Op::kN, Op::kN, 1.0f, row_major<const float>(f.a.data(), 4, 5),
           row_major<const float>(f.b.data(), 4, 3), 0.0f, row_major(f.c.data(), 4, 3));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("shapes do not match"), std::string::npos) << s.message();
  EXPECT_TRUE(f.c_untouched());
}
TEST(Views, MixedLayoutsAreRefused) {
  Fixture f;
  const Status s =
      gemm(Context::cpu(), Op::kN, Op::kN, 1.0f, row_major<const float>(f.a.data(), 4, 5),
           col_major<const float>(f.b.data(), 5, 3), 0.0f, row_major(f.c.data(), 4, 3));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("one layout"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tilekit
