// fma_peak.cpp — the CPU's FP32 ceiling for the roofline: every OpenMP thread runs independent
// chains of 8-wide vector FMAs on registers (compiled for AVX2+FMA and for plain x86-64; the
// loader picks), no memory traffic.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include <omp.h>

#include "cpu/cpu_kernels.hpp"
#include "cpu/simd.hpp"


namespace tilekit::cpu {
namespace {

constexpr int kChains = 10;  // enough independent FMAs to cover 2 ports × 4-5 cycles latency
constexpr long kIterations = 1 << 20;

TILEKIT_CPU_CLONES
float fma_chains(float seed) {
  Vec8 r[kChains];
  for (int c = 0; c < kChains; ++c) r[c] = Vec8{} + (seed + static_cast<float>(c));
  const Vec8 b = Vec8{} + 0.999999f, add = Vec8{} + 1e-7f;
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c) r[c] = r[c] * b + add;
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int j = 0; j < 8; ++j) sum += r[c][j];
  return sum;
}

}  // namespace

double fma_peak_gflops(const Context& ctx) {
  const int threads = thread_count(ctx);
  std::vector<double> seconds;
  volatile float sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    total += fma_chains(1.0f + static_cast<float>(omp_get_thread_num()));
    sink = sink + total;
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double flops = 2.0 * 8 * kChains * static_cast<double>(kIterations) * threads;
  return flops / seconds[seconds.size() / 2] / 1e9;
}

}  // namespace tilekit::cpu
