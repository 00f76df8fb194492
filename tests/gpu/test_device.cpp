// Device queries, device memory and error reporting on the GPU.
#include <gtest/gtest.h>

#include "support/gpu_gate.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit {
namespace {

TEST(Device, QueryDescribesTheGpu) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  ASSERT_TRUE(query_device(0, &d).is_ok());
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.cc_major, 6);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.sm_clock_khz, 0);
  EXPECT_GT(d.memory_clock_khz, 0);
  EXPECT_GT(d.l2_cache_bytes, 0);
  EXPECT_GT(d.global_memory_bytes, size_t{1} << 30);
  EXPECT_NE(cublas_version_string(), "unknown");
}

TEST(Device, OutOfRangeIndexIsAnInvalidArgument) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  EXPECT_EQ(query_device(cuda_device_count(), &d).code(), StatusCode::kInvalidArgument);
  float x = 0;
  GemmProblem p;
  p.m = p.n = p.k = 1;
  p.lda = p.ldb = p.ldc = 1;
  p.a = p.b = &x;
  p.c = &x;
  EXPECT_EQ(gemm(Context::cuda(99), p).code(), StatusCode::kInvalidArgument);
}

TEST(Device, MemoryRoundTrip) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  std::vector<float> h(1000), back(1000, 0.0f);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i) * 0.5f;
  DeviceBuffer<float> d;
  ASSERT_TRUE(d.allocate(h.size(), "test buffer").is_ok());
  ASSERT_TRUE(d.upload(h.data(), h.size()).is_ok());
  ASSERT_TRUE(d.download(back.data(), back.size()).is_ok());
  EXPECT_EQ(h, back);
  EXPECT_EQ(d.upload(h.data(), 2000).code(), StatusCode::kInvalidArgument);
}

TEST(Device, FailedAllocationNamesTheCallAndTheBuffer) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceBuffer<float> d;
  const Status s = d.allocate(size_t{1} << 50, "an impossible buffer");  // 4 PiB
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("cudaMalloc"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("an impossible buffer"), std::string::npos) << s.message();
  EXPECT_NE(s.backend_code(), 0);
}

}  // namespace
}  // namespace tilekit
