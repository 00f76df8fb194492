// gemm_case.hpp — one GEMM test case, run end to end on either backend.
//
// Builds A, B and C with leading-dimension padding, a chosen alignment of their first elements,
// and guard bands around C, fills them with
// fresh random data (reals, or small integers in exact mode), poisons C with NaN when beta = 0,
// runs a kernel (or gemm() with "auto"), and checks the result against the double reference
// and that every padding and guard element of C is untouched.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "tilekit/tilekit.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::testing {

struct GemmCase {
  Layout layout = Layout::kRowMajor;
  Op op_a = Op::kN, op_b = Op::kN;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  int64_t ld_pad = 0;  // extra elements on every leading dimension
  // Elements by which A, B and C start past a 16-byte boundary: 0 puts all three on one (as
  // cudaMalloc does: the TMA and float4 paths); 1 puts them 4 bytes (f32) or 2 bytes (16-bit)
  // off it, which a kernel must serve by another path.
  int64_t misalign = 0;
  bool exact = false;  // small-integer inputs, bit-for-bit comparison
  int split_k = 0;     // GemmProblem::split_k (0: the kernel chooses)
  uint64_t seed = 0;   // 0 = not chosen yet (describe() then omits it)
  GemmTypes types;     // for gemm() with "auto"; a named kernel runs in its own types
  std::string describe() const;
};

// GoogleTest prints parameters with this (instead of raw bytes).
inline void PrintTo(const GemmCase& c, std::ostream* os) { *os << c.describe(); }

struct CaseResult {
  Status status;     // the call's status (ok, or kNotSupported when the kernel refused)
  bool skipped = false;
  GemmCheck check;
  int64_t guard_violations = 0;  // padding/guard elements of C that changed
  std::string message() const;
};

// kernel == nullptr runs gemm() with kernel "auto" in c.types; a kernel runs in the types it
// implements (its inputs are staged in them).
CaseResult run_gemm_case(const GemmCase& c, const Context& ctx, const GemmKernel* kernel);

// A seed that differs per run (time-based) unless TILEKIT_TEST_SEED is set; printed on failure.
uint64_t test_seed();

}  // namespace tilekit::testing
