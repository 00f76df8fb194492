// test_blas_config.cpp — the TILEKIT_BLAS_* variables: each accepted form, and a bad value
// reported (naming the variable) with its default kept.
#include <gtest/gtest.h>

#include <string>

#include "blas/config.hpp"

namespace tilekit::blas {
namespace {

TEST(BlasConfig, DefaultsWhenUnset) {
  std::string w;
  const Config c = parse_config(nullptr, nullptr, nullptr, nullptr, nullptr, &w);
  EXPECT_EQ(c.device, DeviceMode::kAuto);
  EXPECT_EQ(c.min_flops, 1e9);
  EXPECT_EQ(c.compute, Compute::kF32);  // never TF32 unless asked
  EXPECT_EQ(c.log, 0);
  EXPECT_EQ(c.gpu_kernel, "auto");
  EXPECT_TRUE(w.empty());
}

TEST(BlasConfig, AcceptedValues) {
  std::string w;
  Config c = parse_config("gpu:1", "0", "f32_3xtf32", "2", "gemm.cuda.cublas.f32", &w);
  EXPECT_EQ(c.device, DeviceMode::kGpu);
  EXPECT_EQ(c.gpu_index, 1);
  EXPECT_EQ(c.min_flops, 0.0);
  EXPECT_EQ(c.compute, Compute::kF32x3TF32);
  EXPECT_EQ(c.log, 2);
  EXPECT_EQ(c.gpu_kernel, "gemm.cuda.cublas.f32");
  c = parse_config("cpu", "2.5e8", "tf32", "1", "", &w);
  EXPECT_EQ(c.device, DeviceMode::kCpu);
  EXPECT_EQ(c.min_flops, 2.5e8);
  EXPECT_EQ(c.compute, Compute::kTF32);
  EXPECT_TRUE(w.empty()) << w;
}

TEST(BlasConfig, BadValuesNameTheVariableAndKeepTheDefault) {
  const struct {
    const char *device, *flops, *compute, *log, *named;
  } cases[] = {{"gpu:x", nullptr, nullptr, nullptr, "TILEKIT_BLAS_DEVICE"},
               {"tpu", nullptr, nullptr, nullptr, "TILEKIT_BLAS_DEVICE"},
               {nullptr, "-1", nullptr, nullptr, "TILEKIT_BLAS_MIN_FLOPS"},
               {nullptr, "1e9x", nullptr, nullptr, "TILEKIT_BLAS_MIN_FLOPS"},
               {nullptr, nullptr, "fp16", nullptr, "TILEKIT_BLAS_COMPUTE"},
               {nullptr, nullptr, nullptr, "yes", "TILEKIT_BLAS_LOG"}};
  for (const auto& t : cases) {
    std::string w;
    const Config c = parse_config(t.device, t.flops, t.compute, t.log, nullptr, &w);
    EXPECT_NE(w.find(t.named), std::string::npos) << w;
    EXPECT_EQ(c.device, DeviceMode::kAuto);
    EXPECT_EQ(c.min_flops, 1e9);
    EXPECT_EQ(c.compute, Compute::kF32);
    EXPECT_EQ(c.log, 0);
  }
}

}  // namespace
}  // namespace tilekit::blas
