// Every registered CUDA transpose, dot and copy kernel against the reference, per (kernel, case):
// a refusal is a skip with can_implement's reason. Plus: the deterministic dot returns the same
// bits on every run, and the public entry points on the GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "support/gemm_case.hpp"
#include "support/gpu_gate.hpp"
#include "support/memory_case.hpp"

namespace tilekit::testing {
namespace {

template <typename K>
std::vector<const K*> cuda_only(const KernelList<K>& list) {
  std::vector<const K*> out;
  for (const auto& k : list.all())
    if (k.info.backend == Backend::kCuda) out.push_back(&k);
  if (out.empty()) out.push_back(nullptr);  // keeps the suite visible; the test skips
  return out;
}

std::string sanitize(std::string s) {
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

const std::vector<TransposeCase> kTransposeCases = {
    {1, 1},    {1, 1000}, {1000, 1}, {31, 33},    {32, 32},        {33, 31},
    {4097, 17}, {64, 64}, {128, 96}, {2048, 1536}, {33, 31, 3, 5}, {128, 96, 1, 0},
    {192, 256, 4, 4}};

using TransposeParam = std::tuple<const TransposeKernel*, TransposeCase>;
class CudaTranspose : public ::testing::TestWithParam<TransposeParam> {};

TEST_P(CudaTranspose, IsExact) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const auto* k = std::get<0>(GetParam());
  if (!k) GTEST_SKIP() << "no CUDA transpose kernels in this build";
  const TransposeCase c = std::get<1>(GetParam());
  const uint64_t seed = test_seed();
  const MemoryResult r = run_transpose_case(c, Context::cuda(0), k, seed);
  if (r.skipped) GTEST_SKIP() << k->info.id << " refuses " << c.name() << ": " << r.status.message();
  EXPECT_TRUE(r.passed()) << k->info.id << " " << c.name() << " seed " << seed << ": " << r.message();
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaTranspose,
                         ::testing::Combine(::testing::ValuesIn(cuda_only(Registry::instance().transpose)),
                                            ::testing::ValuesIn(kTransposeCases)),
                         [](const auto& info) {
                           const auto* k = std::get<0>(info.param);
                           return sanitize((k ? k->info.id : "none") + "__" + std::get<1>(info.param).name());
                         });

const std::vector<DotCase> kDotCases = {
    {1}, {7}, {31}, {32}, {33}, {1000}, {4097}, {(1 << 20) + 3},
    {1000, DotCase::kPositive}, {(1 << 24) + 5, DotCase::kPositive},
    {4097, DotCase::kSmallIntegers}, {1 << 16, DotCase::kSmallIntegers},
    {1001, DotCase::kMixedSign, 1}, {(1 << 20) + 1, DotCase::kPositive, 3}};

using DotParam = std::tuple<const DotKernel*, DotCase>;
class CudaDot : public ::testing::TestWithParam<DotParam> {};

TEST_P(CudaDot, WithinTheBound) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const auto* k = std::get<0>(GetParam());
  if (!k) GTEST_SKIP() << "no CUDA dot kernels in this build";
  const DotCase c = std::get<1>(GetParam());
  const uint64_t seed = test_seed();
  const MemoryResult r = run_dot_case(c, Context::cuda(0), k, seed);
  if (r.skipped) GTEST_SKIP() << k->info.id << " refuses " << c.name() << ": " << r.status.message();
  EXPECT_TRUE(r.passed()) << k->info.id << " " << c.name() << " seed " << seed << ": " << r.message();
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaDot,
                         ::testing::Combine(::testing::ValuesIn(cuda_only(Registry::instance().dot)),
                                            ::testing::ValuesIn(kDotCases)),
                         [](const auto& info) {
                           const auto* k = std::get<0>(info.param);
                           return sanitize((k ? k->info.id : "none") + "__" + std::get<1>(info.param).name());
                         });

using CopyParam = std::tuple<const CopyKernel*, int64_t, bool>;
class CudaCopy : public ::testing::TestWithParam<CopyParam> {};

TEST_P(CudaCopy, IsExact) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const auto* k = std::get<0>(GetParam());
  if (!k) GTEST_SKIP() << "no CUDA copy kernels in this build";
  const int64_t n = std::get<1>(GetParam());
  const bool aligned = std::get<2>(GetParam());
  const MemoryResult r = run_copy_case(n, Context::cuda(0), *k, test_seed(), aligned);
  if (r.skipped) GTEST_SKIP() << k->info.id << " refuses n=" << n << ": " << r.status.message();
  EXPECT_TRUE(r.passed()) << k->info.id << " n=" << n << ": " << r.message();
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaCopy,
                         ::testing::Combine(::testing::ValuesIn(cuda_only(Registry::instance().copy)),
                                            ::testing::Values(int64_t{1}, int64_t{31}, int64_t{32},
                                                              int64_t{4097}, int64_t{1} << 22),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           const auto* k = std::get<0>(info.param);
                           return sanitize((k ? k->info.id : "none") + "__n" +
                                           std::to_string(std::get<1>(info.param)) +
                                           (std::get<2>(info.param) ? "_aligned" : "_unaligned"));
                         });

TEST(CudaDotDeterminism, TwoPassIsBitIdenticalOver10Runs) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (const char* id : {"dot.cuda.03_two_pass.f32", "dot.cuda.03_two_pass.f64acc"}) {
    const DotKernel* k = Registry::instance().dot.find(id);
    ASSERT_NE(k, nullptr) << id;
    const int64_t n = (int64_t{1} << 24) + 7;
    std::vector<float> x(static_cast<size_t>(n)), y(x.size());
    fill_uniform(x.data(), x.size(), 5);
    fill_uniform(y.data(), y.size(), 6);
    DeviceBuffer<float> dx, dy, dr;
    ASSERT_TRUE(dx.allocate(x.size(), "x").is_ok());
    ASSERT_TRUE(dy.allocate(y.size(), "y").is_ok());
    ASSERT_TRUE(dr.allocate(1, "result").is_ok());
    ASSERT_TRUE(dx.upload(x.data(), x.size()).is_ok());
    ASSERT_TRUE(dy.upload(y.data(), y.size()).is_ok());
    uint32_t first = 0;
    for (int run = 0; run < 10; ++run) {
      ASSERT_TRUE(run_dot_kernel(*k, Context::cuda(0), DotProblem{n, dx.get(), dy.get(), dr.get()}).is_ok());
      float v = 0;
      ASSERT_TRUE(dr.download(&v, 1).is_ok());
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      if (run == 0) first = bits;
      EXPECT_EQ(bits, first) << id << " run " << run;
    }
  }
}

TEST(CudaPublicApi, TransposeAndDotAuto) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  EXPECT_TRUE(run_transpose_case({1000, 777, 3, 1}, Context::cuda(0), nullptr, test_seed()).passed());
  for (const TransposeCase c : {TransposeCase{0, 5}, TransposeCase{5, 0}})
    EXPECT_TRUE(run_transpose_case(c, Context::cuda(0), nullptr, test_seed()).passed());
  EXPECT_TRUE(run_dot_case({123457, DotCase::kPositive}, Context::cuda(0), nullptr, test_seed()).passed());
  const MemoryResult empty = run_dot_case({0}, Context::cuda(0), nullptr, test_seed());
  EXPECT_TRUE(empty.passed()) << empty.message();
}

}  // namespace
}  // namespace tilekit::testing
