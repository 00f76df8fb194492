// gemm_bench.hpp — `tilekit bench gemm`: every selected kernel on every size, verified, then timed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"
#include "timing.hpp"

namespace tilekit::bench {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  std::string str() const;  // "1024" for cubes, "257x1x513" otherwise
};

// "1024,4096", "256:2048:64" (start:stop:step, stop included), "512x256x128", or a mix
// separated by commas. The message names the piece that does not parse.
Status parse_sizes(const std::string& spec, std::vector<GemmShape>* out);

struct GemmBenchConfig {
  Context ctx;
  std::vector<GemmShape> shapes;
  std::string kernels = "";  // glob; empty = every non-reference kernel of the backend
  bool add_baseline = true;  // time the backend's baseline at each size even if not selected
  Layout layout = Layout::kRowMajor;
  Op op_a = Op::kN, op_b = Op::kN;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 20261122;
  TimingPolicy timing;
  // Called before each (kernel, size) with a one-line description; and with rows as they finish.
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

struct BenchRow {
  std::string kernel;
  bool is_baseline = false;
  GemmShape shape;
  std::string outcome;  // "ok", "skipped" (can_implement refused), "FAIL" (wrong), "error"
  std::string detail;   // reason for skipped/error; the verification summary otherwise
  Timing timing;
  double flops = 0;     // 2mnk (+ 3mn when beta != 0)
  double gflops = 0;    // flops / median
  double baseline_ratio = 0;  // gflops / baseline gflops at the same shape (0 = none)
  std::string verification;   // "PASS ..." / "FAIL ..."
  double max_rel_error = 0;
};

// The baseline a backend's rows are compared with: cuBLAS (pedantic) or OpenBLAS.
std::string baseline_kernel_id(Backend backend);

// Runs the benchmark, appending rows as they finish (so an interrupted run keeps them).
// Returns kCancelled if `cancel` was set; rows then holds what finished.
Status run_gemm_bench(const GemmBenchConfig& config, std::vector<BenchRow>* rows);

}  // namespace tilekit::bench
