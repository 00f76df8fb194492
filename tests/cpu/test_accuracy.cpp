// `tilekit accuracy`'s measures and sweep on the CPU backend: each mode's error against the FP64
// product of the FP32 inputs, where FP32 sits inside its elementwise bound and TF32/BF16 do not.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "accuracy.hpp"

namespace tilekit::bench {
namespace {

// The measures on a made-up result: one element off by a known amount.
TEST(Accuracy, MeasuresAreTheNormwiseErrorAndTheElementwiseBoundRatio) {
  GemmReference ref;
  ref.m = 1;
  ref.n = 2;
  ref.value = {1.0, -2.0};
  ref.magnitude = {4.0, 8.0};
  const int64_t k = 100;
  const float c[2] = {1.0f, -2.0f + 0x1p-16f};
  AccuracyRow row;
  measure_accuracy(c, ref, k, &row);
  EXPECT_DOUBLE_EQ(row.max_abs_error, std::ldexp(1.0, -16));
  EXPECT_DOUBLE_EQ(row.normwise_error, std::ldexp(1.0, -16) / 8.0);
  const double bound = 4.0 * gamma_bound(k + 2) * 8.0;
  EXPECT_NEAR(row.bound_ratio, std::ldexp(1.0, -16) / bound, 1e-9);
  EXPECT_EQ(row.nonfinite, 0);
  // An element left unwritten (NaN) makes both measures infinite.
  const float unwritten[2] = {1.0f, NAN};
  measure_accuracy(unwritten, ref, k, &row);
  EXPECT_EQ(row.nonfinite, 1);
  EXPECT_TRUE(std::isinf(row.normwise_error));
  EXPECT_TRUE(std::isinf(row.bound_ratio));
}

TEST(Accuracy, CpuSweepGroupsByModeAndSeparatesTheModes) {
  AccuracyConfig cfg;
  cfg.ctx = Context::cpu();
  cfg.kernels = "gemm.cpu.reference.f32_tf32,gemm.cpu.reference.bf16,gemm.cpu.openblas*,"
                "gemm.cpu.reference.f32_3xtf32,gemm.cpu.blocked*";
  cfg.ks = {16, 512};
  cfg.m = 24;
  cfg.n = 40;
  std::vector<AccuracyRow> rows;
  ASSERT_TRUE(run_accuracy(cfg, &rows).is_ok());
  ASSERT_FALSE(rows.empty());
  for (size_t i = 1; i < rows.size(); ++i)  // f32, then 3xTF32, TF32, BF16
    EXPECT_LE(compute_order(rows[i - 1].types.compute), compute_order(rows[i].types.compute));
  for (const auto& r : rows) {
    ASSERT_EQ(r.outcome, AccuracyOutcome::kOk) << r.kernel << ": " << r.detail;
    EXPECT_EQ(r.m, 24);
    const bool fp32_accurate =
        r.types.compute == Compute::kF32 || r.types.compute == Compute::kF32x3TF32;
    if (fp32_accurate) {
      EXPECT_LE(r.bound_ratio, 1.0) << r.kernel << " k=" << r.k;
      EXPECT_LT(r.normwise_error, 1e-6) << r.kernel << " k=" << r.k;
    } else {
      // TF32 and BF16 inputs lose 13 and 16 bits: far outside FP32's bound at small k.
      EXPECT_GT(r.normwise_error, 1e-6) << r.kernel << " k=" << r.k;
      if (r.k == 16) EXPECT_GT(r.bound_ratio, 1.0) << r.kernel;
    }
    // Every mode is compared with the CPU baseline, OpenBLAS SGEMM, which ran.
    EXPECT_GT(r.baseline_ratio, 0) << r.kernel;
    if (r.kernel == "gemm.cpu.openblas.f32") EXPECT_DOUBLE_EQ(r.baseline_ratio, 1.0);
  }
  std::ostringstream table;
  print_accuracy_table(table, rows, Backend::kCpu);
  EXPECT_NE(table.str().find("k=512"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("gemm.cpu.reference.f32_tf32"), std::string::npos) << table.str();
}

TEST(Accuracy, BadRequestsAreErrors) {
  AccuracyConfig cfg;
  cfg.ctx = Context::cpu();
  std::vector<AccuracyRow> rows;
  cfg.ks = {};
  EXPECT_EQ(run_accuracy(cfg, &rows).code(), StatusCode::kInvalidArgument);
  cfg.ks = {0};
  EXPECT_EQ(run_accuracy(cfg, &rows).code(), StatusCode::kInvalidArgument);
  cfg.ks = {16};
  cfg.kernels = "gemm.cpu.nothing*";
  EXPECT_EQ(run_accuracy(cfg, &rows).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilekit::bench
