// gemm_call_time.cpp — what one tilekit::gemm call costs from C++, the yardstick for the Python
// binding's overhead (scripts/maintainer/python_overhead.py runs both and prints the difference).
//
//   tilekit_gemm_call_time [N] [CALLS]     N×N×N float32 GEMM, row-major, kernel auto
//
// On the GPU (when there is one; else the CPU backend) it prints one JSON object:
//   host_us   median over batches of the host time per call, calls enqueued back to back on the
//             legacy default stream with no synchronisation inside a batch (the launch cost);
//   e2e_us    median over batches of (batch + one synchronisation) / calls.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"
#include "tilekit/verify.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int fail(const tilekit::Status& s) {
  std::fprintf(stderr, "tilekit_gemm_call_time: %s\n", s.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : 64;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200;
  if (n < 1 || calls < 1) {
    std::fprintf(stderr, "usage: tilekit_gemm_call_time [N >= 1] [CALLS >= 1]\n");
    return 2;
  }
  const bool gpu = tilekit::cuda_device_count() > 0;
  const tilekit::Context ctx = gpu ? tilekit::Context::cuda(0) : tilekit::Context::cpu();
  const size_t count = static_cast<size_t>(n * n);
  std::vector<float> host(count);
  tilekit::fill_uniform(host.data(), count, 1);
  tilekit::DeviceBuffer<float> da, db, dc;
  std::vector<float> ha(host), hb(host), hc(count);
  const float *a = ha.data(), *b = hb.data();
  float* c = hc.data();
  if (gpu) {
    for (auto* buf : {&da, &db, &dc})
      if (const auto s = buf->allocate_on(0, count, "gemm operand"); !s) return fail(s);
    if (const auto s = da.upload(host.data(), count); !s) return fail(s);
    if (const auto s = db.upload(host.data(), count); !s) return fail(s);
    a = da.get(), b = db.get(), c = dc.get();
  }
  auto call = [&] {
    return tilekit::gemm(ctx, tilekit::Layout::kRowMajor, tilekit::Op::kN, tilekit::Op::kN, n, n,
                         n, 1.0f, a, n, b, n, 0.0f, c, n);
  };
  std::vector<double> host_us, e2e_us;
  for (int batch = 0; batch < 21; ++batch) {  // the first is a warm-up
    if (const auto s = tilekit::device_synchronize(ctx); !s) return fail(s);
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i)
      if (const auto s = call(); !s) return fail(s);
    const auto t1 = Clock::now();
    if (const auto s = tilekit::device_synchronize(ctx); !s) return fail(s);
    const auto t2 = Clock::now();
    if (batch == 0) continue;
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    e2e_us.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / calls);
  }
  std::printf("{\"backend\": \"%s\", \"n\": %lld, \"calls\": %d, \"host_us\": %.3f, \"e2e_us\": %.3f}\n",
              gpu ? "cuda" : "cpu", n, calls, median(host_us), median(e2e_us));
  return 0;
}
