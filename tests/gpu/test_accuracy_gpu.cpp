// The promise of docs/accuracy.md, on the GPU, for every registered CUDA kernel of a mode: against
// the FP64 product of the FP32 inputs (bench/accuracy.hpp), at every k of the published table
// (16 … 16384),
//   f32_3xtf32: within 2× cuBLAS SGEMM's normwise error at every k, and within the elementwise
//               bound 4·γ(k+2)·|A||B|;
//   f32 (own and cuBLAS): within that bound too.
// A kernel is checked the moment it is registered; with none of a mode the test skips, saying so.
#include <gtest/gtest.h>

#include "accuracy.hpp"
#include "gemm_bench.hpp"
#include "support/gpu_gate.hpp"

namespace tilekit::testing {
namespace {

const std::vector<int64_t> kKs = {16, 64, 256, 1024, 4096, 16384};

// The CUDA kernels computing in `mode`, as one --kernels list ("" when there are none).
std::string kernels_of_mode(Compute mode) {
  std::string globs;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda && k.info.types.compute == mode &&
        k.info.types.a == DType::kF32)
      globs += (globs.empty() ? "" : ",") + k.info.id;
  return globs;
}

std::vector<bench::AccuracyRow> sweep(const std::string& kernels) {
  bench::AccuracyConfig cfg;
  cfg.ctx = Context::cuda(0);
  cfg.kernels = kernels;
  cfg.ks = kKs;
  cfg.m = 256;
  cfg.n = 256;
  std::vector<bench::AccuracyRow> rows;
  const Status s = bench::run_accuracy(cfg, &rows);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return rows;
}

TEST(Accuracy3xTf32, WithinTwiceSgemmAndTheFp32Bound) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const std::string x3 = kernels_of_mode(Compute::kF32x3TF32);
  if (x3.empty()) GTEST_SKIP() << "no CUDA f32_3xtf32 kernel is registered yet";
  GemmTypes x3_types;
  x3_types.compute = Compute::kF32x3TF32;
  const std::string sgemm = bench::baseline_kernel_id(Backend::kCuda, x3_types);
  for (const auto& r : sweep(sgemm + "," + x3)) {
    if (r.outcome == bench::AccuracyOutcome::kSkipped) continue;  // refused on this GPU: said
    ASSERT_EQ(r.outcome, bench::AccuracyOutcome::kOk)
        << r.kernel << " k=" << r.k << ": " << r.detail;
    EXPECT_LE(r.bound_ratio, 1.0) << r.kernel << " k=" << r.k;
    if (r.types.compute != Compute::kF32x3TF32) continue;
    EXPECT_GT(r.baseline_ratio, 0) << r.kernel << " k=" << r.k << ": SGEMM did not run";
    EXPECT_LE(r.baseline_ratio, 2.0)
        << r.kernel << " k=" << r.k << ": normwise error " << r.normwise_error << ", "
        << r.baseline_ratio << "x " << sgemm << "'s";
  }
}

TEST(AccuracyF32, EveryFp32KernelWithinTheBound) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const std::string f32 = kernels_of_mode(Compute::kF32);
  if (f32.empty()) GTEST_SKIP() << "no CUDA f32 kernel is registered";
  for (const auto& r : sweep(f32)) {
    if (r.outcome == bench::AccuracyOutcome::kSkipped) continue;
    ASSERT_EQ(r.outcome, bench::AccuracyOutcome::kOk)
        << r.kernel << " k=" << r.k << ": " << r.detail;
    EXPECT_LE(r.bound_ratio, 1.0) << r.kernel << " k=" << r.k;
  }
}

}  // namespace
}  // namespace tilekit::testing
