// tilekit.hpp — the public API: include this one header.
//
//   tilekit::Context ctx = tilekit::Context::cpu();          // or Context::cuda(device, stream)
//   tilekit::Status s = tilekit::gemm(ctx, tilekit::Layout::kRowMajor,
//                                     tilekit::Op::kN, tilekit::Op::kN, m, n, k,
//                                     1.0f, A, lda, B, ldb, 0.0f, C, ldc);
//   if (!s) std::cerr << s.to_string() << "\n";
//
// On the CUDA backend A, B and C are device pointers and the call is asynchronous on ctx.stream.
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/device.hpp"
#include "tilekit/matrix.hpp"
#include "tilekit/problems.hpp"
#include "tilekit/registry.hpp"
#include "tilekit/status.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {

struct GemmOptions {
  std::string kernel = "auto";  // a registry id, or "auto" for the best own kernel that can run it
  bool allow_vendor = false;    // let "auto" fall back to vendor kernels (cuBLAS, OpenBLAS)
  // Tuning on line (kernel "auto" only; 0: off). The first call at a shape that the device's
  // tune cache has not measured times the kernels that can run it, the selector's choice first,
  // until this many milliseconds have passed (checked between kernels: the first always runs),
  // each on a copy of C (the caller's C is written once, by the call itself), records them in
  // the cache (docs/tuning.md) and then runs the fastest. It waits for the stream. It needs a
  // cache directory ($TILEKIT_CACHE_DIR, $XDG_CACHE_HOME or $HOME); calls at a measured shape,
  // and products the streamed rule sends to the gemv family, measure nothing.
  double tune_budget_ms = 0;
};

// C = alpha · op(A) · op(B) + beta · C in float32 with IEEE FP32 arithmetic (compute f32), BLAS
// argument rules (see problems.hpp). beta = 0 never reads C; alpha = 0 or k = 0 only scales C.
// On error C is left untouched.
Status gemm(const Context& ctx, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc, const GemmOptions& options = {});

// The typed entry point: A, B and C stored as `types` says (f32, bf16, f16; see types.hpp),
// computed in types.compute. A kernel implements exactly one type combination; a request no
// kernel serves is refused with kNotSupported naming it, never run in a lower precision.
Status gemm_ex(const Context& ctx, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
               int64_t k, GemmTypes types, float alpha, const void* a, int64_t lda, const void* b,
               int64_t ldb, float beta, void* c, int64_t ldc, const GemmOptions& options = {});

// The same on typed views: op(a) must be m × k, op(b) k × n, c m × n, all in one layout.
Status gemm(const Context& ctx, Op op_a, Op op_b, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c,
            const GemmOptions& options = {});

// The same on a filled-in problem description.
Status gemm(const Context& ctx, const GemmProblem& problem, const GemmOptions& options = {});

// Runs one registered kernel on `problem`, with validation, quick returns and can_implement
// applied exactly as gemm() applies them (used by tests and benchmarks).
Status run_gemm_kernel(const GemmKernel& kernel, const Context& ctx, const GemmProblem& problem);

// Everything before a kernel's launch (validation, checks, workspace, initialize), so that a
// benchmark's event window holds only `kernel.launch(problem, ctx, *ws)`.
Status prepare_gemm_kernel(const GemmKernel& kernel, const Context& ctx,
                           const GemmProblem& problem, Workspace* ws);

struct KernelOptions {
  std::string kernel = "auto";  // a registry id, or "auto" for the best that can run it
};

// B = Aᵀ, out of place, float32 row-major: A is rows × cols (lda), B is cols × rows (ldb).
Status transpose(const Context& ctx, int64_t rows, int64_t cols, const float* a, int64_t lda,
                 float* b, int64_t ldb, const KernelOptions& options = {});

// *result = Σ x[i]·y[i] over n float32 elements; n = 0 gives 0. On the CUDA backend x, y and
// result are device pointers and the call is asynchronous on ctx.stream.
Status dot(const Context& ctx, int64_t n, const float* x, const float* y, float* result,
           const KernelOptions& options = {});

// Run one registered kernel with the same validation and checks as the calls above.
Status run_transpose_kernel(const TransposeKernel& k, const Context& ctx, const TransposeProblem& p);
Status run_dot_kernel(const DotKernel& k, const Context& ctx, const DotProblem& p);
Status run_copy_kernel(const CopyKernel& k, const Context& ctx, const CopyProblem& p);

}  // namespace tilekit
