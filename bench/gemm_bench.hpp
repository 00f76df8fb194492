// gemm_bench.hpp — `tilekit bench gemm`: every selected kernel on every size, verified, then timed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"
#include "tilekit/verify.hpp"
#include "bench_row.hpp"
#include "timing.hpp"

namespace tilekit::bench {

// One number of the --sizes grammars: decimal digits ("4096") or a power B^E ("2^28"). A number
// that does not fit in int64 is an error saying so, never a clamped value.
Status parse_size_number(const std::string& text, int64_t* out);

// At most this many sizes in one --sizes (a range like 0:10^12:1 is a typo, not a plan).
constexpr size_t kMaxSizes = 10000;

// "1024,4096", "256:2048:64" (start:stop:step, stop included), "512x256x128", or a mix
// separated by commas. Every shape's A, B and C must have byte sizes that fit in 64 bits. The
// message names the piece that does not parse.
Status parse_sizes(const std::string& spec, std::vector<GemmShape>* out);

// References kept across run_gemm_bench calls over the same inputs: `tilekit tune` sweeps one
// shape in several passes (screening, split-K values, the full measurement), and at 16384³ each
// pass's reference took 15–20 s of a shape's ~100 s on the H200. An entry is keyed by what the
// reference depends on: the backend and device, the problem's shape, types, layout, ops, lds,
// alpha and beta, and the seed its operands were made from. Holds m·n·16 bytes an entry; one
// cache a shape is the intended use.
class ReferenceCache {
 public:
  // The reference of `p` (whose operands were filled from `seed`): the one kept, or computed on
  // ctx's backend (after calling `before_computing`, if given) and kept.
  Status get(const Context& ctx, const GemmProblem& p, uint64_t seed,
             const std::function<void()>& before_computing, const GemmReference** out);
  int computed() const { return computed_; }  // how many references were computed, not reused

 private:
  std::map<std::string, GemmReference> kept_;
  int computed_ = 0;
};

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
  int split_k = 0;           // GemmProblem::split_k of every row (0: each kernel chooses)
  uint64_t seed = 20261122;
  TimingPolicy timing;
  // 1: each row's samples in one block. More: every verified row of a shape is timed in this
  // many rounds, the rows in turn (round_policy), so that rows compare without the GPU's drift
  // between blocks of samples (`tilekit tune --evaluate` pairs auto with the fastest this way).
  int rounds = 1;
  // Called before each (kernel, size) with a one-line description; and with rows as they finish.
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
  // Where references are reused from and kept (the tuner's passes over one shape); null: each
  // run computes its own.
  ReferenceCache* references = nullptr;
};

// A kernel call failed during a sweep: records an "error" row and returns ok so the sweep goes
// on, unless it must stop (interrupted, or a CUDA error that may have left the context
// unusable): then returns `s`.
Status record_error_row(const Status& s, BenchRow row, std::vector<BenchRow>* rows);

// The baseline a sweep of `types` is compared with, in the same run. CUDA: cuBLAS in the
// mode's own arithmetic — gemm.cuda.cublas.bf16 / .f16 for 16-bit inputs, .f32_tf32 for tf32 —
// and the pedantic SGEMM gemm.cuda.cublas.f32 for f32 and f32_3xtf32 (the FP32-accurate mode is
// measured against FP32 SGEMM) and for f32 inputs in bf16 mode. CPU: OpenBLAS SGEMM.
std::string baseline_kernel_id(Backend backend, const GemmTypes& types = GemmTypes{});

// True when the baseline (of types `baseline`) joins a sweep of `sweep`: it reads the same
// stored A, B and C; its compute mode may differ (SGEMM beside 3xTF32), and then its rows run
// in its own mode and are verified against its own reference.
bool baseline_joins(const GemmTypes& baseline, const GemmTypes& sweep);

// Marks an "ok" row noisy when its timing's noise is above kNoisyAbove.
void mark_noise(BenchRow* row);

// Runs the benchmark, appending rows as they finish (so an interrupted run keeps them).
// Returns kCancelled if `cancel` was set; rows then holds what finished.
Status run_gemm_bench(const GemmBenchConfig& config, std::vector<BenchRow>* rows);

}  // namespace tilekit::bench
