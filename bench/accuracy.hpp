// accuracy.hpp — `tilekit accuracy`: how far each kernel's GEMM lies from the exact product of
// its FP32 inputs, as k grows (the accuracy table: cuBLAS SGEMM, our FP32 kernels, 3xTF32, TF32
// and BF16 side by side).
//
// At every k, one pair of FP32 matrices A (m × k) and B (k × n), uniform in [-1, 1) from a fixed
// seed, is what every kernel computes C = A·B from: a kernel with 16-bit storage reads them
// rounded to its type, a TF32 or BF16 kernel rounds them as its mode does. The reference is the
// FP64 product of the FP32 inputs as they are — never rounded to the mode — so each row shows
// the whole error of its mode, input rounding included. Two measures per kernel and k:
//   normwise error  max_ij |C − C_ref|ij / max_ij (|A|·|B|)ij
//   bound ratio     max_ij |C − C_ref|ij / (4·γ(k+2)·(|A|·|B|)ij),
//                   γ(n) = n·u/(1 − n·u), u = 2^-24
// (the accuracy table's elementwise bound, alpha = 1, beta = 0: FP32 accuracy means a ratio ≤ 1).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::bench {

struct AccuracyConfig {
  Context ctx;
  // Globs, comma-separated (each must match a kernel of the backend); empty = every GEMM kernel
  // of the backend except the references.
  std::string kernels;
  std::vector<int64_t> ks;  // the inner dimensions, in the order given
  int64_t m = 256, n = 256;
  uint64_t seed = 20261122;
  // Called before each (kernel, k) with a one-line description.
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

enum class AccuracyOutcome { kOk, kSkipped, kError };
const char* accuracy_outcome_name(AccuracyOutcome o);  // "ok", "skipped", "error"

struct AccuracyRow {
  std::string kernel;
  GemmTypes types;  // what the kernel computes in
  int64_t m = 0, n = 0, k = 0;
  AccuracyOutcome outcome = AccuracyOutcome::kOk;
  std::string detail;           // why skipped or failed
  double normwise_error = 0;    // max |C − C_ref| / max (|A|·|B|)
  double bound_ratio = 0;       // max |C − C_ref| / (4·γ(k+2)·(|A|·|B|)), elementwise
  double max_abs_error = 0;     // max |C − C_ref|
  int64_t nonfinite = 0;        // NaN or Inf elements of C (the measures above then are Inf)
  // normwise_error over that of the mode's baseline (baseline_kernel_id) at the same k in this
  // run; 0 when the baseline did not run.
  double baseline_ratio = 0;
};

// The two measures of one result `c` (m × n, row-major, ld n) against `ref`, the reference of
// FP32 inputs with alpha = 1 and beta = 0 (its magnitude is |A|·|B|).
void measure_accuracy(const float* c, const GemmReference& ref, int64_t k, AccuracyRow* row);

// The compute modes in the order the table groups them: f32, f32_3xtf32, tf32, bf16.
int compute_order(Compute c);

// Runs every selected kernel at every k, appending rows grouped by compute mode (then by
// registration order), k by k within a kernel. Returns kCancelled when interrupted (rows then
// hold what finished); a kernel that refuses the shape is a skipped row with its reason.
Status run_accuracy(const AccuracyConfig& config, std::vector<AccuracyRow>* rows);

// Two tables, kernels × k: the normwise error (with the largest ratio to the mode's baseline),
// and the bound ratio.
void print_accuracy_table(std::ostream& out, const std::vector<AccuracyRow>& rows, Backend backend);
// Every row, long form, with the command that made them. Written atomically.
Status write_accuracy_csv(const std::string& path, const std::vector<AccuracyRow>& rows,
                          const std::string& command_line);
Status write_accuracy_json(const std::string& path, const std::vector<AccuracyRow>& rows,
                           const std::string& command_line);

}  // namespace tilekit::bench
