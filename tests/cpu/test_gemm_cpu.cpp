// Every registered CPU GEMM kernel, and gemm("auto"), against the double reference: both
// layouts, all four op combinations, sizes 1, 7, 33, 127, 509 and non-square mixes, padded
// leading dimensions, alpha/beta variety, exact small-integer mode.
#include <gtest/gtest.h>

#include "support/gemm_case.hpp"

namespace tilekit::testing {
namespace {

struct Shape {
  int64_t m, n, k;
};

std::vector<const GemmKernel*> cpu_kernels() {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCpu) out.push_back(&k);
  return out;
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class CpuKernel : public ::testing::TestWithParam<const GemmKernel*> {};

void expect_pass(const GemmCase& c, const GemmKernel* kernel) {
  const CaseResult r = run_gemm_case(c, Context::cpu(), kernel);
  ASSERT_FALSE(r.skipped) << kernel->info.id << " refused " << c.describe() << ": "
                          << r.status.message();
  EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
      << (kernel ? kernel->info.id : "auto") << " " << c.describe() << ": " << r.message();
}

TEST_P(CpuKernel, AllLayoutsAndOpsOnSquareSizes) {
  for (int64_t s : {1, 7, 33, 127, 509})
    for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
      for (Op op_a : {Op::kN, Op::kT})
        for (Op op_b : {Op::kN, Op::kT}) {
          GemmCase c;
          c.layout = layout;
          c.op_a = op_a;
          c.op_b = op_b;
          c.m = c.n = c.k = s;
          c.seed = test_seed() + static_cast<uint64_t>(s);
          expect_pass(c, GetParam());
        }
}

TEST_P(CpuKernel, NonSquareShapesWithPaddedLeadingDimensions) {
  const Shape shapes[] = {{257, 1, 513}, {1, 409, 3}, {33, 127, 7}, {127, 33, 1},
                          {5, 300, 129}, {300, 5, 64}, {96, 16, 300}, {1, 1, 1000}};
  for (const Shape& s : shapes)
    for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
      for (Op op_a : {Op::kN, Op::kT})
        for (Op op_b : {Op::kN, Op::kT}) {
          GemmCase c;
          c.layout = layout;
          c.op_a = op_a;
          c.op_b = op_b;
          c.m = s.m;
          c.n = s.n;
          c.k = s.k;
          c.ld_pad = 3;
          c.alpha = -0.75f;
          c.beta = 0.5f;
          c.seed = test_seed() + static_cast<uint64_t>(s.m * 7 + s.n);
          expect_pass(c, GetParam());
        }
}

TEST_P(CpuKernel, ExactSmallIntegersMatchBitForBit) {
  for (int64_t s : {1, 7, 33, 127, 300})
    for (Layout layout : {Layout::kRowMajor, Layout::kColMajor}) {
      GemmCase c;
      c.layout = layout;
      c.op_a = Op::kT;
      c.m = s;
      c.n = s + 3;
      c.k = s + 5;
      c.alpha = 2.0f;
      c.beta = -1.0f;
      c.exact = true;
      c.seed = test_seed() + static_cast<uint64_t>(s);
      expect_pass(c, GetParam());
    }
}

TEST_P(CpuKernel, BetaZeroNeverReadsNanInC) {
  GemmCase c;  // run_gemm_case poisons C with NaN whenever beta = 0
  c.m = 65;
  c.n = 31;
  c.k = 300;  // more than one k-block in the blocked kernel
  c.beta = 0.0f;
  c.seed = test_seed();
  expect_pass(c, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Registry, CpuKernel, ::testing::ValuesIn(cpu_kernels()),
                         [](const auto& info) { return sanitize(info.param->info.id); });

TEST(CpuAuto, GemmAutoServesEveryLayoutAndOp) {
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase c;
        c.layout = layout;
        c.op_a = op_a;
        c.op_b = op_b;
        c.m = 70;
        c.n = 45;
        c.k = 33;
        c.beta = 1.5f;
        c.seed = test_seed();
        expect_pass(c, nullptr);
      }
}

TEST(CpuAuto, PicksTheHighestRankedKernelThatCanRun) {
  GemmProblem p;
  p.m = p.n = p.k = 8;
  p.lda = p.ldb = p.ldc = 8;
  const GemmKernel* chosen = nullptr;
  ASSERT_TRUE(select_gemm_kernel(p, Context::cpu(), &chosen).is_ok());
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCpu) EXPECT_LE(k.info.auto_rank, chosen->info.auto_rank);
}

}  // namespace
}  // namespace tilekit::testing
