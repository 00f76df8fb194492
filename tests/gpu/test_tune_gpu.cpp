// test_tune_gpu.cpp — kernel "auto" on the GPU with the table shipped for it: what choosing costs
// a call on the CUDA path (the tile model over real kernels' tilings and occupancy), at one shape
// (the thread's remembered choice) and alternating two shapes (a search every call). Printed and
// recorded, not asserted (timing is for benchmarks): `tilekit tune --evaluate` reports the same
// figures beside its kernel timings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "support/gpu_gate.hpp"
#include "tilekit/tilekit.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {
namespace {

namespace fs = std::filesystem;

// A row-major problem of m × n × k in `types` (NT), pointing at nothing that is read: selection
// reads shapes, types and addresses.
GemmProblem stand_in(int64_t m, int64_t n, int64_t k, const GemmTypes& types) {
  alignas(16) static float dummy[8];
  GemmProblem p;
  p.op_b = Op::kT;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = types;
  p.a = p.b = dummy;
  p.c = dummy;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

TEST(TuneGpu, SelectionCostWithTheShippedTable) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  // An empty cache folder, so that the shipped table decides.
  const fs::path dir =
      fs::temp_directory_path() / ("tilekit_tune_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("TILEKIT_CACHE_DIR", dir.c_str(), 1);
  reload_tune_caches();
  const Context ctx = Context::cuda(0);
  constexpr int kCalls = 20000;
  for (const GemmTypes& types :
       {GemmTypes{}, GemmTypes{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16}}) {
    const GemmProblem p = stand_in(2200, 2200, 2200, types);
    // More shapes than a thread remembers, so that each call searches.
    std::vector<GemmProblem> others;
    for (size_t d = 1; d <= 2 * kRememberedTunedShapes; ++d)
      others.push_back(stand_in(2200 - static_cast<int64_t>(d), 2200, 2200, types));
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(p, ctx, false, &chosen));
    const bool shipped = chosen.reason.rfind("shipped table", 0) == 0;
    // As gemm() selects (no explanation), and as --explain does.
    auto per_call_us = [&](bool search, bool explain) {
      const auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < kCalls; ++i)
        (void)select_gemm_kernel(search ? others[i % others.size()] : p, ctx, false, &chosen,
                                 explain);
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                 .count() /
             kCalls;
    };
    const double searching = per_call_us(true, false), repeated = per_call_us(false, false),
                 explaining = per_call_us(true, true);
    std::printf(
        "%s NT 2200^3: selection per call %.3f us repeated, %.3f us searching, %.3f us searching "
        "with the explanation (%s)\n",
        types_tag(types).c_str(), repeated, searching, explaining,
        shipped ? "shipped table" : "no shipped table for this GPU: ranking");
    RecordProperty(types_tag(types) + "_searching_us", std::to_string(searching));
    RecordProperty(types_tag(types) + "_explaining_us", std::to_string(explaining));
    EXPECT_LT(searching, 50.0);
  }
  fs::remove_all(dir);
  ::unsetenv("TILEKIT_CACHE_DIR");
  reload_tune_caches();
}

}  // namespace
}  // namespace tilekit
