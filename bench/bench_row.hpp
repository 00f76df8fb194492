// bench_row.hpp — one benchmark row, for every op, and what became of it.
#pragma once

#include <string>

#include "timing.hpp"

namespace tilekit::bench {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  std::string str() const;  // "1024" for cubes, "257x1x513" otherwise
};

enum class RowOutcome {
  kOk,       // verified, then timed
  kSkipped,  // the kernel refused the problem (can_implement, other types): the reason in detail
  kFail,     // the result was wrong: never timed
  kError,    // the call failed: the error in detail
};
// "ok", "skipped", "FAIL", "error" — as the table, CSV and JSON print it.
inline const char* outcome_name(RowOutcome o) {
  switch (o) {
    case RowOutcome::kOk: return "ok";
    case RowOutcome::kSkipped: return "skipped";
    case RowOutcome::kFail: return "FAIL";
    case RowOutcome::kError: return "error";
  }
  return "?";
}

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
  RowOutcome outcome = RowOutcome::kError;
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

}  // namespace tilekit::bench
