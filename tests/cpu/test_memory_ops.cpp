// Transpose, dot and copy on the CPU backend: every registered CPU kernel against the
// reference on odd and aligned shapes, exact transposes, dot within a bound that grows with n,
// empty inputs, and clear errors for bad shapes and leading dimensions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/gemm_case.hpp"
#include "support/memory_case.hpp"
#include "tilekit/npy.hpp"

namespace tilekit::testing {
namespace {

const TransposeCase kTransposeShapes[] = {
    {1, 1}, {1, 1000}, {1000, 1}, {31, 33}, {32, 32}, {33, 31}, {4097, 17}, {640, 480},
    {33, 31, 3, 5}, {128, 96, 1, 0}};

TEST(CpuTranspose, EveryKernelOnEveryShapeIsExact) {
  for (const auto& k : Registry::instance().transpose.all()) {
    if (k.info.backend != Backend::kCpu) continue;
    for (const auto& c : kTransposeShapes) {
      const MemoryResult r = run_transpose_case(c, Context::cpu(), &k, test_seed());
      EXPECT_TRUE(r.passed()) << k.info.id << " " << c.name() << ": " << r.message();
    }
  }
}

TEST(CpuTranspose, AutoAndEmpty) {
  EXPECT_TRUE(run_transpose_case({77, 5}, Context::cpu(), nullptr, test_seed()).passed());
  for (const TransposeCase c : {TransposeCase{0, 5}, TransposeCase{5, 0}, TransposeCase{0, 0}}) {
    const MemoryResult r = run_transpose_case(c, Context::cpu(), nullptr, test_seed());
    EXPECT_TRUE(r.passed()) << c.name() << ": " << r.message();
  }
}

TEST(CpuTranspose, BadArgumentsNameTheProblem) {
  std::vector<float> a(100), b(100);
  auto expect = [&](int64_t rows, int64_t cols, int64_t lda, int64_t ldb, const float* pa,
                    float* pb, const char* fragment) {
    const Status s = transpose(Context::cpu(), rows, cols, pa, lda, pb, ldb);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment;
    EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  };
  expect(-1, 3, 3, 1, a.data(), b.data(), "rows = -1");
  expect(3, -2, 3, 3, a.data(), b.data(), "cols = -2");
  expect(3, 4, 3, 3, a.data(), b.data(), "lda = 3 must be >= 4");
  expect(3, 4, 4, 2, a.data(), b.data(), "ldb = 2 must be >= 3");
  expect(3, 4, 4, 3, nullptr, b.data(), "A is null");
  expect(3, 4, 4, 3, a.data(), nullptr, "B is null");
  expect(3, 4, 4, 3, a.data(), a.data() + 2, "overlap");
  KernelOptions unknown;
  unknown.kernel = "transpose.cpu.nope";
  EXPECT_EQ(transpose(Context::cpu(), 2, 2, a.data(), 2, b.data(), 2, unknown).code(),
            StatusCode::kInvalidArgument);
}

const DotCase kDotCases[] = {
    {1}, {7}, {31}, {32}, {33}, {1000}, {4097}, {(1 << 20) + 3},
    {1000, DotCase::kPositive}, {(1 << 20) + 3, DotCase::kPositive},
    {4097, DotCase::kSmallIntegers}, {1 << 16, DotCase::kSmallIntegers},
    {1001, DotCase::kMixedSign, 1}};

TEST(CpuDot, EveryKernelWithinTheBound) {
  for (const auto& k : Registry::instance().dot.all()) {
    if (k.info.backend != Backend::kCpu) continue;
    for (const auto& c : kDotCases) {
      const MemoryResult r = run_dot_case(c, Context::cpu(), &k, test_seed());
      EXPECT_TRUE(r.passed()) << k.info.id << " " << c.name() << ": " << r.message();
    }
  }
}

TEST(CpuDot, BoundGrowsWithNAndStaysFinitePast2To24) {
  EXPECT_LT(dot_error_bound_factor(100), dot_error_bound_factor(10000));
  EXPECT_TRUE(std::isfinite(dot_error_bound_factor(int64_t{1} << 28)));
  EXPECT_LT(dot_error_bound_factor(int64_t{1} << 28), 0.02);  // 2·6·√(2^28)·2^-24 ≈ 0.0118
}

TEST(CpuDot, EmptyIsZeroAndBadArgumentsAreRefused) {
  float result = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(dot(Context::cpu(), 0, nullptr, nullptr, &result).is_ok());
  EXPECT_EQ(result, 0.0f);
  float x = 1;
  EXPECT_EQ(dot(Context::cpu(), -1, &x, &x, &result).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dot(Context::cpu(), 1, nullptr, &x, &result).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dot(Context::cpu(), 1, &x, &x, nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(CpuCopy, EveryKernelIsExact) {
  for (const auto& k : Registry::instance().copy.all()) {
    if (k.info.backend != Backend::kCpu) continue;
    for (int64_t n : {0, 1, 31, 1000, 4097}) {
      const MemoryResult r = run_copy_case(n, Context::cpu(), k, test_seed(), n % 2 == 0);
      EXPECT_TRUE(r.passed()) << k.info.id << " n=" << n << ": " << r.message();
    }
  }
}

TEST(NpyVector, OneDimensionalRowsAndColumns) {
  const float v[3] = {1, 2, 3};
  const std::string row = npy_bytes_f32(v, 1, 3), col = npy_bytes_f32(v, 3, 1);
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_vector(row, "r", &m).is_ok());
  EXPECT_EQ(m.cols, 3);
  ASSERT_TRUE(parse_npy_vector(col, "c", &m).is_ok());
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.data, (std::vector<float>{1, 2, 3}));
  const std::string square = npy_bytes_f32(v, 1, 3).replace(
      npy_bytes_f32(v, 1, 3).find("(1, 3)"), 6, "(3,)  ");
  ASSERT_TRUE(parse_npy_vector(square, "1d", &m).is_ok()) << "a 1-D (3,) array";
  const float w[4] = {1, 2, 3, 4};
  EXPECT_EQ(parse_npy_vector(npy_bytes_f32(w, 2, 2), "m", &m).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilekit::testing
