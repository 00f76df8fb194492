// problems.hpp — the description of one GEMM call, as every kernel receives it.
//
//   C = alpha · op(A) · op(B) + beta · C,   op(A) is m × k, op(B) is k × n, C is m × n,
//
// all three stored in the same `layout` with leading dimensions lda, ldb, ldc (BLAS rules).
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/matrix.hpp"
#include "tilekit/status.hpp"
#include "tilekit/types.hpp"

namespace tilekit {

struct GemmProblem {
  Layout layout = Layout::kRowMajor;
  Op op_a = Op::kN, op_b = Op::kN;
  int64_t m = 0, n = 0, k = 0;
  // Storage types of A, B, C and the compute mode (types.hpp); float32 throughout by default.
  GemmTypes types;
  float alpha = 1.0f;
  const void* a = nullptr;  // elements of types.a
  int64_t lda = 0;
  const void* b = nullptr;  // elements of types.b
  int64_t ldb = 0;
  float beta = 0.0f;
  void* c = nullptr;        // elements of types.c
  int64_t ldc = 0;
  // A run-time tuning parameter, not part of the arithmetic's definition: how many k-slices a
  // kernel that takes one at run time (TileDesc::split_k < 0, step 10) cuts k into, summed in
  // slice order. 0: the kernel chooses. Kernels without a run-time split ignore it; kernel
  // "auto" fills it from the tuned entry it chose (docs/tuning.md). The result stays within the
  // same error bound whatever the value; each value gives the same bits on every run.
  int split_k = 0;

  // The operands as float32, for kernels that declare f32 storage (their registry entry
  // guarantees types.a/b/c are f32 before launch is called).
  const float* a_f32() const { return static_cast<const float*>(a); }
  const float* b_f32() const { return static_cast<const float*>(b); }
  float* c_f32() const { return static_cast<float*>(c); }

  // Shape of A and B as stored (before op): op(A) is m × k, so A is m × k or k × m.
  int64_t a_rows() const { return op_a == Op::kN ? m : k; }
  int64_t a_cols() const { return op_a == Op::kN ? k : m; }
  int64_t b_rows() const { return op_b == Op::kN ? k : n; }
  int64_t b_cols() const { return op_b == Op::kN ? n : k; }

  // The smallest legal leading dimension of each operand: its stored line length, at least 1.
  int64_t min_lda() const;
  int64_t min_ldb() const;
  int64_t min_ldc() const;

  // Number of elements spanned in memory from the first element to one past the last.
  // validate() rejects a problem whose spans (in bytes of their types) overflow int64; on one it has
  // not validated, an overflowing span saturates at INT64_MAX rather than wrapping.
  int64_t a_span() const;
  int64_t b_span() const;
  int64_t c_span() const;

  // "row NN 1024x1024x1024" — for logs and error messages.
  std::string describe() const;
};

// The BLAS argument rules: m, n, k >= 0; each ld >= its stored line length (>= 1); every
// operand's span fits in int64; non-null pointers where they will be read or written; a
// type combination tilekit defines (validate(GemmTypes)). The message names the argument.
Status validate(const GemmProblem& p);

// True when BLAS says nothing needs doing: m = 0 or n = 0, or (alpha = 0 or k = 0) and beta = 1.
bool is_quick_return(const GemmProblem& p);

// True when op(A)·op(B) contributes nothing and C only needs scaling by beta.
inline bool only_scales_c(const GemmProblem& p) { return p.alpha == 0.0f || p.k == 0; }

// B = Aᵀ out of place: A is rows × cols, B is cols × rows, both row-major (float32).
struct TransposeProblem {
  int64_t rows = 0, cols = 0;
  const float* a = nullptr;
  int64_t lda = 0;  // >= max(1, cols)
  float* b = nullptr;
  int64_t ldb = 0;  // >= max(1, rows)
  std::string describe() const;  // "4096x4096"
};
// rows, cols >= 0; lda >= max(1, cols); ldb >= max(1, rows); pointers non-null when used;
// a and b must not overlap.
Status validate(const TransposeProblem& p);

// *result = Σ x[i]·y[i] over n float32 elements (result: device memory on the CUDA backend).
struct DotProblem {
  int64_t n = 0;
  const float* x = nullptr;
  const float* y = nullptr;
  float* result = nullptr;
  std::string describe() const;
};
Status validate(const DotProblem& p);

// y[0..n) = x[0..n): the memory-bandwidth yardstick.
struct CopyProblem {
  int64_t n = 0;
  const float* x = nullptr;
  float* y = nullptr;
  std::string describe() const;
};
Status validate(const CopyProblem& p);

}  // namespace tilekit
