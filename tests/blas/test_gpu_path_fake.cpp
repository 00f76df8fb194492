// test_gpu_path_fake.cpp — the GPU path's staging pipeline (src/blas/gpu_path.cpp) on the fake
// CUDA runtime of fake_cuda/ (copies done at once on the host, tiny 1000-float staging slots so
// every operand is split into many chunks over the 4 slots, "not ready" answers to polls, every
// staging copy through the streaming-store path whatever its size and alignment):
// every placement of the operands (pageable, page-locked, resident), every op, beta = 0 and not,
// several panels; C must match a double reference with its padding intact, and the bytes that
// crossed must be exactly each staged operand once (C not at all when beta = 0).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "blas/sgemm_call.hpp"
#include "cuda_runtime_api.h"

namespace tilekit::blas {
namespace {

constexpr float kSentinel = -777.0f;

// A matrix in one of three kinds of memory, all host-readable under the fake runtime.
enum class Mem { kPageable, kPinned, kDevice };

struct Buffer {
  Buffer(size_t count, Mem mem) : count_(count), mem_(mem) {
    if (mem == Mem::kPageable) {
      host_.resize(count);
      ptr_ = host_.data();
    } else {
      void* p = nullptr;
      const cudaError_t e = mem == Mem::kPinned ? cudaHostAlloc(&p, count * sizeof(float), 0)
                                                : cudaMalloc(&p, count * sizeof(float));
      EXPECT_EQ(e, cudaSuccess);
      ptr_ = static_cast<float*>(p);
    }
  }
  ~Buffer() {
    if (mem_ == Mem::kPinned) cudaFreeHost(ptr_);
    if (mem_ == Mem::kDevice) cudaFree(ptr_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* get() { return ptr_; }
  size_t size() const { return count_; }

 private:
  size_t count_;
  Mem mem_;
  std::vector<float> host_;
  float* ptr_ = nullptr;
};

struct Placement {
  Mem a, b, c;
  const char* name;
};

void run_case(int m, int n, int k, Op op_a, Op op_b, float beta, const Placement& where) {
  SCOPED_TRACE(std::string(where.name) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
               " k=" + std::to_string(k) + (op_a == Op::kT ? " T" : " N") +
               (op_b == Op::kT ? "T" : "N") + " beta=" + std::to_string(beta));
  SgemmCall call;
  call.op_a = op_a;
  call.op_b = op_b;
  call.m = m;
  call.n = n;
  call.k = k;
  call.alpha = 0.75f;
  call.beta = beta;
  call.lda = call.rows_a() + 3;
  call.ldb = call.rows_b() + 1;
  call.ldc = m + 2;
  Buffer a(static_cast<size_t>(call.lda * call.cols_a()), where.a);
  Buffer b(static_cast<size_t>(call.ldb * call.cols_b()), where.b);
  Buffer c(static_cast<size_t>(call.ldc * n), where.c);
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 3 + k));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float* p = a.get(); p != a.get() + a.size(); ++p) *p = dist(rng);
  for (float* p = b.get(); p != b.get() + b.size(); ++p) *p = dist(rng);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < call.ldc; ++i)
      c.get()[j * call.ldc + i] = i < m ? (beta == 0.0f ? NAN : dist(rng)) : kSentinel;
  const std::vector<float> c0(c.get(), c.get() + c.size());
  call.a = a.get();
  call.b = b.get();
  call.c = c.get();

  const Residency r = query_residency(call);
  ASSERT_EQ(r.a_on_device, where.a == Mem::kDevice);
  ASSERT_EQ(r.b_on_device, where.b == Mem::kDevice);
  ASSERT_EQ(r.c_on_device, where.c == Mem::kDevice);
  ASSERT_EQ(r.a_pinned, where.a == Mem::kPinned);
  ASSERT_EQ(r.c_pinned, where.c == Mem::kPinned);
  fake_cuda_stats() = FakeCudaStats{};
  std::string note;
  bool written = false;
  const Status s = run_on_gpu(call, r, 0, &note, &written);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "a 'not ready' poll left as the last error";

  // Each staged operand crossed exactly once; C came in only when beta != 0.
  const size_t fa = sizeof(float);
  size_t h2d = 0, d2h = 0;
  if (where.a != Mem::kDevice) h2d += static_cast<size_t>(m) * k * fa;
  if (where.b != Mem::kDevice) h2d += static_cast<size_t>(k) * n * fa;
  if (where.c != Mem::kDevice && beta != 0.0f) h2d += static_cast<size_t>(m) * n * fa;
  if (where.c != Mem::kDevice) d2h += static_cast<size_t>(m) * n * fa;
  EXPECT_EQ(fake_cuda_stats().h2d_bytes, h2d) << note;
  EXPECT_EQ(fake_cuda_stats().d2h_bytes, d2h) << note;

  auto at = [](const float* x, int64_t ld, bool t, int64_t i, int64_t j) {
    return t ? x[i * ld + j] : x[j * ld + i];
  };
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < call.ldc; ++i) {
      const float got = c.get()[j * call.ldc + i];
      if (i >= m) {
        ASSERT_EQ(got, kSentinel) << "padding written at " << i << "," << j;
        continue;
      }
      double dot = 0, mag = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = static_cast<double>(at(a.get(), call.lda, op_a == Op::kT, i, l)) *
                         at(b.get(), call.ldb, op_b == Op::kT, l, j);
        dot += p;
        mag += std::fabs(p);
      }
      const float cij = c0[static_cast<size_t>(j * call.ldc + i)];
      const double ref = call.alpha * dot + (beta == 0.0f ? 0.0 : beta * static_cast<double>(cij));
      const double bound = 2.0 * (k + 2) * std::ldexp(1.0, -24) *
                           (call.alpha * mag + (beta == 0.0f ? 0.0 : std::fabs(beta * cij)));
      ASSERT_LE(std::fabs(got - ref), bound) << "at " << i << "," << j << " (" << note << ")";
    }
  }
}

const Placement kPlacements[] = {
    {Mem::kPageable, Mem::kPageable, Mem::kPageable, "all pageable"},
    {Mem::kPinned, Mem::kPageable, Mem::kPinned, "A and C pinned"},
    {Mem::kPageable, Mem::kPinned, Mem::kPageable, "B pinned"},
    {Mem::kPageable, Mem::kDevice, Mem::kPageable, "B resident"},
    {Mem::kPageable, Mem::kPageable, Mem::kDevice, "C resident"},
    {Mem::kDevice, Mem::kPageable, Mem::kDevice, "A and C resident"},
    {Mem::kDevice, Mem::kDevice, Mem::kDevice, "all resident"},
};

TEST(GpuPathFake, EveryPlacementOpAndBeta) {
  const int shapes[][3] = {{5, 3, 2}, {300, 600, 70}, {257, 513, 129}, {1, 700, 1}};
  for (const auto& sh : shapes)
    for (const Placement& where : kPlacements)
      for (int ops = 0; ops < 4; ++ops)
        for (float beta : {0.0f, 1.3f})
          run_case(sh[0], sh[1], sh[2], (ops & 1) ? Op::kT : Op::kN, (ops & 2) ? Op::kT : Op::kN,
                   beta, where);
}

TEST(GpuPathFake, PollsThatFindCopiesUnfinishedAreHandled) {
  fake_cuda_stats() = FakeCudaStats{};
  run_case(300, 600, 70, Op::kN, Op::kN, 0.0f, kPlacements[0]);
  // many download chunks: some polls must have answered "not ready" and been retried
  EXPECT_GT(fake_cuda_stats().d2h_copies, 100u);
  EXPECT_GT(fake_cuda_stats().not_ready_answers, 0u);
}

TEST(GpuPathFake, AlphaZeroWithResidentCScalesIt) {
  Buffer c(6, Mem::kDevice);
  for (int i = 0; i < 6; ++i) c.get()[i] = 3.0f;
  std::vector<float> a(6, NAN), b(6, NAN);
  SgemmCall call;
  call.m = 2;
  call.n = 3;
  call.k = 2;
  call.alpha = 0.0f;
  call.beta = 2.0f;
  call.a = a.data();
  call.lda = 2;
  call.b = b.data();
  call.ldb = 2;
  call.c = c.get();
  call.ldc = 2;
  std::string note;
  bool written = false;
  ASSERT_TRUE(run_on_gpu(call, query_residency(call), 0, &note, &written).is_ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.get()[i], 6.0f);
}

TEST(GpuPathFake, OutOfMemoryFailsBeforeTouchingC) {
  std::vector<float> a(900 * 900, 1.0f), b(900 * 900, 1.0f), c(900 * 900, 5.0f);
  SgemmCall call;
  call.m = call.n = call.k = 900;  // larger than every earlier case: device memory must grow
  call.a = a.data();
  call.lda = 900;
  call.b = b.data();
  call.ldb = 900;
  call.c = c.data();
  call.ldc = 900;
  call.beta = 1.0f;
  fake_cuda_fail_next_malloc();
  std::string note;
  bool written = true;
  const Status s = run_on_gpu(call, query_residency(call), 0, &note, &written);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("cudaMalloc"), std::string::npos) << s.message();
  EXPECT_FALSE(written);
  for (float v : c) ASSERT_EQ(v, 5.0f);
}

}  // namespace
}  // namespace tilekit::blas
