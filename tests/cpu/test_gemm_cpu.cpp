// Every registered CPU GEMM kernel, and gemm("auto"), against the double reference: both
// layouts, all four op combinations, sizes 1, 7, 33, 127, 509 and non-square mixes, padded
// leading dimensions, alpha/beta variety, exact small-integer mode.
#include <gtest/gtest.h>

#include <cmath>

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
  // The other modes' references check themselves here (their own oracle): 509 adds nothing but
  // minutes; the f32 reference and every real kernel take it.
  const bool self_check = GetParam()->info.role == KernelRole::kReference &&
                          GetParam()->info.types != GemmTypes{};
  for (int64_t s : {1, 7, 33, 127, 509})
    if (!(self_check && s == 509))
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
      c.ld_pad = s % 2;
      c.misalign = s % 2;  // odd sizes: A, B and C off a 16-byte boundary
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

// A problem description the selector accepts (validate() wants pointers where data is read).
GemmProblem selectable_problem(GemmTypes types) {
  static float data[64] = {};
  GemmProblem p;
  p.m = p.n = p.k = 8;
  p.lda = p.ldb = p.ldc = 8;
  p.types = types;
  p.a = p.b = p.c = data;
  return p;
}

TEST(CpuAuto, PicksTheHighestRankedOwnKernelThatCanRun) {
  const GemmProblem p = selectable_problem(GemmTypes{});
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(p, Context::cpu(), false, &chosen).is_ok());
  EXPECT_EQ(chosen.kernel->info.role, KernelRole::kOwn) << chosen.kernel->info.id;
  EXPECT_NE(chosen.reason.find("own kernel"), std::string::npos) << chosen.reason;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCpu && k.info.role == KernelRole::kOwn &&
        k.info.types == p.types)
      EXPECT_LE(k.info.auto_rank, chosen.kernel->info.auto_rank);
}

TEST(CpuAuto, VendorKernelsOnlyWhenAllowed) {
  const GemmProblem p = selectable_problem(GemmTypes{});
  Selection<GemmProblem> own, any;
  ASSERT_TRUE(select_gemm_kernel(p, Context::cpu(), false, &own).is_ok());
  ASSERT_TRUE(select_gemm_kernel(p, Context::cpu(), true, &any).is_ok());
  EXPECT_NE(own.kernel->info.role, KernelRole::kVendor);
  EXPECT_EQ(own.kernel, any.kernel) << "own kernels come first even when vendors are allowed";
}

TEST(CpuAuto, ModesWithoutAnOwnKernelFallToTheirReferenceNeverToALowerMode) {
  for (Compute mode : {Compute::kTF32, Compute::kF32x3TF32, Compute::kBF16}) {
    const GemmProblem p = selectable_problem({DType::kF32, DType::kF32, DType::kF32, mode});
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(p, Context::cpu(), true, &chosen).is_ok());
    EXPECT_EQ(chosen.kernel->info.types, p.types) << chosen.kernel->info.id;
    EXPECT_EQ(chosen.kernel->info.role, KernelRole::kReference) << chosen.kernel->info.id;
    EXPECT_NE(chosen.reason.find("only the reference"), std::string::npos) << chosen.reason;
  }
}

TEST(CpuAuto, AKernelOfOtherTypesIsRefusedNamingBoth) {
  GemmProblem p = selectable_problem(GemmTypes{});
  const GemmKernel* tf32 = Registry::instance().find_gemm("gemm.cpu.reference.f32_tf32");
  ASSERT_NE(tf32, nullptr);
  const Status s = run_gemm_kernel(*tf32, Context::cpu(), p);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("compute tf32"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("compute f32"), std::string::npos) << s.message();
}

// The modes' rounding, checked on values whose rounded products differ from FP32's.
TEST(CpuReference, RoundsInputsAsTheModeSays) {
  const float a_value = 1.0f + std::ldexp(1.0f, -12) + std::ldexp(1.0f, -20);  // TF32 drops both
  float a[1] = {a_value}, b[1] = {1.0f}, c[1] = {0.0f};
  auto run = [&](Compute mode) {
    GemmProblem p = selectable_problem({DType::kF32, DType::kF32, DType::kF32, mode});
    p.m = p.n = p.k = 1;
    p.lda = p.ldb = p.ldc = 1;
    p.a = a, p.b = b, p.c = c;
    EXPECT_TRUE(gemm(Context::cpu(), p).is_ok());
    return c[0];
  };
  EXPECT_EQ(run(Compute::kF32), a_value);
  EXPECT_EQ(run(Compute::kF32x3TF32), a_value);   // FP32-accurate: nothing rounded
  EXPECT_EQ(run(Compute::kTF32), 1.0f);           // 10-bit mantissa
  EXPECT_EQ(run(Compute::kBF16), 1.0f);           // 7-bit mantissa
}

}  // namespace
}  // namespace tilekit::testing
