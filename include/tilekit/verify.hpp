// verify.hpp — checking a GEMM result against a double-precision reference.
//
// The tolerance is an error bound, never a fixed epsilon: for every element
//   |C − C_ref| ≤ safety · γ(k + 2) · (|α|·(|op(A)|·|op(B)|)ij + |β|·|C0ij|),
// γ(n) = n·u / (1 − n·u), u = 2⁻²⁴ for fp32 accumulation. Any summation order, with or without
// FMA, lands inside it; an element that is NaN or was never written does not. In exact mode
// (small-integer inputs, where every product and partial sum is exact in fp32) every element
// must equal the reference bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

// alpha·op(A)·op(B) + beta·C0 in double, and the bound's magnitude term, as dense row-major
// m × n host arrays.
struct GemmReference {
  int64_t m = 0, n = 0;
  std::vector<double> value;
  std::vector<double> magnitude;
};

// Computes the reference on ctx's backend: on the CPU from host pointers, on CUDA from device
// pointers (a double-accumulating GPU kernel; the result is copied back). C0 is read only when
// beta != 0. The problem must be valid.
Status compute_gemm_reference(const Context& ctx, const GemmProblem& p, GemmReference* out);

inline double gamma_bound(int64_t n, double unit_roundoff = 1.0 / 16777216.0) {
  const double nu = static_cast<double>(n) * unit_roundoff;
  return nu / (1.0 - nu);
}

// A bound on |computed − exact| / Σ|x_i·y_i| for a float32 sum of n products in any order:
// the deterministic γ(n) while n·u is small, else Higham and Mary's probabilistic bound
// λ·√n·u (λ = 6: violated with probability below 1e-7 for independent rounding errors), which
// stays meaningful past n = 2^24 where γ(n) is infinite. Doubled for safety; one more u for the
// final rounding to float is added by callers that round.
double dot_error_bound_factor(int64_t n);

struct CheckOptions {
  double safety = 2.0;  // c in the bound above
  bool exact = false;   // bit-for-bit equality (small-integer inputs)
  // Relative error of each input beyond what the reference models (reference_input_gap(): the
  // 3xTF32 split, a vendor kernel's faithful rounding); adds 2·input_roundoff·magnitude.
  double input_roundoff = 0.0;
  // The type C is stored in: a bf16 C adds its rounding (2^-8 relative) to the bound, and in
  // exact mode the reference is rounded to it before the bit-for-bit comparison.
  DType c_type = DType::kF32;
};

// The options that check a result computed with `types` by a kernel that rounds its inputs as
// `rounding` says (KernelInfo::input_rounding). The reference already rounds inputs to nearest
// as the TF32 and BF16 modes do; 3xTF32, a faithfully rounding vendor kernel and a bf16 C add
// their own terms. tilekit's own kernels round to nearest: their bound is never widened.
CheckOptions check_options_for(const GemmTypes& types, bool exact,
                               InputRounding rounding = InputRounding::kNearest);

struct GemmCheck {
  bool passed = true;
  int64_t checked = 0;
  int64_t violations = 0;     // elements outside the bound (NaN and Inf included)
  int64_t nonfinite = 0;      // elements that are NaN or Inf where the reference is finite
  int64_t overflowed = 0;     // elements whose exact value is beyond float32's range, given as
                              // Inf of its sign: right, not an error
  double max_abs_error = 0;   // max |C − C_ref| over finite elements
  double max_rel_error = 0;   // max |C − C_ref| / max |C_ref| (normwise)
  double worst_ratio = 0;     // max |C − C_ref| / bound: < 1 passes
  int64_t worst_i = -1, worst_j = -1;  // first violating element, else the worst one
  std::string summary() const;  // "PASS max abs 1.2e-06 rel 3.4e-08 (0.02 of bound)"
};

// Compares the m × n result at host pointer `c` (stored in `layout` with `ldc`) with `ref`.
GemmCheck check_gemm_result(const float* c, int64_t ldc, Layout layout, const GemmReference& ref,
                            int64_t k, const CheckOptions& options = {});

// The reference of `inputs` computed tile by tile on ctx's backend and compared with the host
// result `c` (m × n in inputs.layout with inputs.ldc) as it goes, so that a check never holds
// more than one tile of reference (kVerifyTileElements elements of value and magnitude, 16 MB)
// beside C: what lets `tilekit gemm --check` verify a C as large as memory allows. `inputs`
// holds A, B and, when beta != 0, C0 (device pointers on CUDA); its c is not read when beta = 0.
// Worst and first-violating positions are reported in tile order.
constexpr int64_t kVerifyTileElements = int64_t{1} << 20;
Status verify_gemm_result(const Context& ctx, const GemmProblem& inputs, const float* c,
                          const CheckOptions& options, GemmCheck* out);

// Element comparison for results that copy their input (transpose, copy): a NaN matches a NaN
// (payloads may differ), everything else must be bit-identical (so Inf matches only the same Inf,
// and -0 does not match +0).
bool same_element(float got, float want);

// Elements of b (cols × rows, ldb) that are not the transpose of a (rows × cols, lda), both
// row-major host arrays, compared with same_element.
int64_t count_transpose_mismatches(const float* a, int64_t rows, int64_t cols, int64_t lda,
                                   const float* b, int64_t ldb);

// Σ x[i]·y[i] and Σ |x[i]·y[i]| in double over n host elements: a dot product's oracle.
struct DotReference {
  double value = 0, magnitude = 0;
};
DotReference dot_reference(const float* x, const float* y, int64_t n);

struct DotCheck {
  bool passed = false;
  float result = 0;
  double reference = 0, error = 0, bound = 0;
  std::string summary() const;  // "PASS |err| 1.2e-07 <= bound 3.4e-06 (reference 12.5)"
};

// A float32 dot product of n products against its reference. A finite reference needs a
// result within float accumulation's error bound (dot_error_bound_factor), or the Inf that
// rounding the reference to float gives when it exceeds float's range; a non-finite reference
// (Inf or NaN inputs) needs the same non-finite result: NaN for NaN, the same-signed Inf for Inf.
DotCheck check_dot_result(float result, const DotReference& reference, int64_t n);

// Test and benchmark inputs: uniform reals in [lo, hi), or integers in [lo, hi] (exact mode).
void fill_uniform(float* data, size_t count, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
void fill_small_integers(float* data, size_t count, uint64_t seed, int lo = -8, int hi = 8);

}  // namespace tilekit
