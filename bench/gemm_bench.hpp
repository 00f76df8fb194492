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

// One number of the --sizes grammars: decimal digits ("4096") or a power B^E ("2^28"). A number
// that does not fit in int64 is an error saying so, never a clamped value.
Status parse_size_number(const std::string& text, int64_t* out);

// At most this many sizes in one --sizes (a range like 0:10^12:1 is a typo, not a plan).
constexpr size_t kMaxSizes = 10000;

// "1024,4096", "256:2048:64" (start:stop:step, stop included), "512x256x128", or a mix
// separated by commas. Every shape's A, B and C must have byte sizes that fit in 64 bits. The
// message names the piece that does not parse.
Status parse_sizes(const std::string& spec, std::vector<GemmShape>* out);

struct GemmBenchConfig {
  Context ctx;
  std::vector<GemmShape> shapes;
  // Globs, comma-separated; empty = every non-reference kernel. The word `auto` adds a row for
  // what gemm(..., kernel "auto") chooses at each size (the chosen id in its detail).
  std::string kernels = "";
  GemmTypes types;           // storage and compute mode (--dtype, --compute): kernels of others are left out
  bool allow_vendor = false; // the auto row may choose vendor kernels
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

// One benchmark row, for every op. GEMM rows fill flops/gflops; memory-bound rows (copy,
// transpose, dot) fill bytes/gbps, the ratio to the device copy measured at the same size, and
// the kernel's resources and theoretical occupancy.
struct BenchRow {
  std::string op = "gemm";
  std::string kernel;        // the id, or "auto"
  std::string resolved;      // the auto row: the id it resolved to at this size
  bool is_baseline = false;
  GemmShape shape;      // gemm: m, n, k; transpose: rows, cols, 0; copy and dot: n, 1, 0
  std::string size;     // as printed: "4096", "257x1x513", "16384x16384", "268435456"
  std::string outcome;  // "ok", "skipped" (can_implement refused), "FAIL" (wrong), "error"
  std::string detail;   // reason for skipped/error; the verification summary otherwise
  Timing timing;
  bool noisy = false;   // timing.noise above kNoisyAbove: the figures are not to be trusted
  double flops = 0;     // 2mnk (+ 3mn when beta != 0)
  double gflops = 0;    // flops / median
  double bytes = 0;     // bytes that must be read and written once
  double gbps = 0;      // bytes / median
  double baseline_ratio = 0;  // rate / the baseline's rate at the same size (0 = none)
  double ceiling_ratio = 0;   // memory-bound: gbps / the copy's gbps at the same size
  std::string verification;   // "PASS ..." / "FAIL ..."
  double max_rel_error = 0;
  // Memory-bound rows on a GPU: the lecture's profiler columns that need no profiler.
  int registers = -1;         // -1: not known (library kernels, CPU)
  long long smem_bytes = -1;  // static + dynamic shared memory per block
  double occupancy = -1;      // theoretical, 0..1
  std::string limiter;
};

// A kernel call failed during a sweep: records an "error" row and returns ok so the sweep goes
// on, unless it must stop (interrupted, or a CUDA error that may have left the context
// unusable): then returns `s`.
Status record_error_row(const Status& s, BenchRow row, std::vector<BenchRow>* rows);

// The baseline a backend's rows are compared with: cuBLAS (pedantic) or OpenBLAS.
std::string baseline_kernel_id(Backend backend);

// Marks an "ok" row noisy when its timing's noise is above kNoisyAbove.
void mark_noise(BenchRow* row);

// Runs the benchmark, appending rows as they finish (so an interrupted run keeps them).
// Returns kCancelled if `cancel` was set; rows then holds what finished.
Status run_gemm_bench(const GemmBenchConfig& config, std::vector<BenchRow>* rows);

}  // namespace tilekit::bench
