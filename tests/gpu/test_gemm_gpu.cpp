// Every registered CUDA GEMM kernel, and gemm("auto") on the GPU, against the double reference:
// sizes around tile edges, non-square mixes, both layouts, all ops, alpha/beta variety, NaN in
// C with beta = 0, sentinel bands around C. Skips without a GPU (fails if TILEKIT_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/gemm_case.hpp"
#include "support/gpu_gate.hpp"

namespace tilekit::testing {
namespace {

std::vector<const GemmKernel*> cuda_kernels() {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda) out.push_back(&k);
  // An empty list would make the suite vanish silently; keep one null entry that skips.
  if (out.empty()) out.push_back(nullptr);
  return out;
}

std::string sanitize(const GemmKernel* k) {
  std::string s = k ? k->info.id : "no_cuda_kernels";
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class CudaKernel : public ::testing::TestWithParam<const GemmKernel*> {
 protected:
  void SetUp() override {
    TILEKIT_REQUIRE_GPU_OR_SKIP();
    if (GetParam() == nullptr) GTEST_SKIP() << "this build registers no CUDA kernels";
  }
  // Runs one case; a refusal is recorded as a skip with its reason, never as a pass.
  void run(const GemmCase& c) {
    const CaseResult r = run_gemm_case(c, Context::cuda(0), GetParam());
    if (r.skipped) {
      ++skipped_;
      RecordProperty("skipped_" + std::to_string(skipped_), c.describe() + ": " + r.status.message());
      return;
    }
    ++ran_;
    EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
        << GetParam()->info.id << " " << c.describe() << ": " << r.message();
  }
  void TearDown() override {
    if (ran_ == 0 && skipped_ > 0)
      GTEST_SKIP() << GetParam()->info.id << " refused every case (" << skipped_ << ")";
  }
  int ran_ = 0, skipped_ = 0;
};

TEST_P(CudaKernel, SquareSizesAroundTileEdges) {
  for (int64_t s : {1, 7, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 509, 1000}) {
    GemmCase c;
    c.m = c.n = c.k = s;
    c.seed = test_seed() + static_cast<uint64_t>(s);
    run(c);
  }
}

TEST_P(CudaKernel, NonSquareMixes) {
  const int64_t shapes[][3] = {{257, 1, 513}, {1, 4097, 3}, {33, 65, 17}, {1000, 7, 129},
                               {7, 1000, 64}, {129, 127, 1}};
  for (const auto& s : shapes) {
    GemmCase c;
    c.m = s[0];
    c.n = s[1];
    c.k = s[2];
    c.seed = test_seed() + static_cast<uint64_t>(s[0] + s[1]);
    run(c);
  }
}

TEST_P(CudaKernel, LayoutsOpsAlphaBetaAndPadding) {
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (float beta : {0.0f, 1.0f, -0.5f}) {
          GemmCase c;
          c.layout = layout;
          c.op_a = op_a;
          c.op_b = op_b;
          c.m = 129;
          c.n = 65;
          c.k = 63;
          c.alpha = beta == 1.0f ? 1.0f : -1.25f;
          c.beta = beta;
          c.ld_pad = 5;
          c.seed = test_seed() + 17;
          run(c);
        }
}

TEST_P(CudaKernel, ExactSmallIntegers) {
  for (int64_t s : {16, 33, 64, 127}) {
    GemmCase c;
    c.m = s;
    c.n = s + 1;
    c.k = s + 2;
    c.exact = true;
    c.beta = 2.0f;
    c.seed = test_seed() + static_cast<uint64_t>(s);
    run(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaKernel, ::testing::ValuesIn(cuda_kernels()),
                         [](const auto& info) { return sanitize(info.param); });

TEST(CudaGemm, AutoServesEveryLayoutAndOp) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase c;
        c.layout = layout;
        c.op_a = op_a;
        c.op_b = op_b;
        c.m = 100;
        c.n = 37;
        c.k = 65;
        c.beta = 0.5f;
        c.ld_pad = 2;
        c.seed = test_seed();
        const CaseResult r = run_gemm_case(c, Context::cuda(0), nullptr);
        EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
            << c.describe() << ": " << r.message();
      }
}

TEST(CudaGemm, AlphaZeroOnlyScalesCOnTheDevice) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (float beta : {0.0f, 3.0f}) {
    GemmCase c;  // beta = 0 also poisons C with NaN: the result must be exact zeros
    c.m = 70;
    c.n = 50;
    c.k = 30;
    c.alpha = 0.0f;
    c.beta = beta;
    c.ld_pad = 3;
    c.seed = test_seed();
    const CaseResult r = run_gemm_case(c, Context::cuda(0), nullptr);
    EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
        << c.describe() << ": " << r.message();
  }
}

TEST(CudaReference, MatchesTheCpuReference) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor}) {
    GemmProblem p;
    p.layout = layout;
    p.op_a = Op::kT;
    p.m = 77;
    p.n = 45;
    p.k = 130;
    p.alpha = 1.5f;
    p.beta = -2.0f;
    p.lda = p.min_lda() + 1;
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc() + 2;
    std::vector<float> a(static_cast<size_t>(p.a_span())), b(static_cast<size_t>(p.b_span())),
        c(static_cast<size_t>(p.c_span()));
    fill_uniform(a.data(), a.size(), 1);
    fill_uniform(b.data(), b.size(), 2);
    fill_uniform(c.data(), c.size(), 3);
    GemmProblem hp = p;
    hp.a = a.data();
    hp.b = b.data();
    hp.c = c.data();
    GemmReference cpu_ref, gpu_ref;
    ASSERT_TRUE(compute_gemm_reference(Context::cpu(), hp, &cpu_ref).is_ok());
    DeviceBuffer<float> da, db, dc;
    ASSERT_TRUE(da.allocate(a.size(), "A").is_ok());
    ASSERT_TRUE(db.allocate(b.size(), "B").is_ok());
    ASSERT_TRUE(dc.allocate(c.size(), "C").is_ok());
    ASSERT_TRUE(da.upload(a.data(), a.size()).is_ok());
    ASSERT_TRUE(db.upload(b.data(), b.size()).is_ok());
    ASSERT_TRUE(dc.upload(c.data(), c.size()).is_ok());
    GemmProblem dp = p;
    dp.a = da.get();
    dp.b = db.get();
    dp.c = dc.get();
    ASSERT_TRUE(compute_gemm_reference(Context::cuda(0), dp, &gpu_ref).is_ok());
    for (size_t i = 0; i < cpu_ref.value.size(); ++i) {
      // Both sum the same exact double products; only the summation order differs.
      EXPECT_NEAR(gpu_ref.value[i], cpu_ref.value[i], 1e-12 * (1 + cpu_ref.magnitude[i])) << i;
      EXPECT_NEAR(gpu_ref.magnitude[i], cpu_ref.magnitude[i], 1e-12 * (1 + cpu_ref.magnitude[i]));
    }
  }
}

}  // namespace
}  // namespace tilekit::testing
