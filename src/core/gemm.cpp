// gemm.cpp — the public GEMM entry points: build the problem, then the one dispatch path
// (core/dispatch.hpp): validate, quick-return, choose a kernel, check it, launch.
#include "core/dispatch.hpp"
#include "core/tune_on_line.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit {

// BLAS quick returns: nothing to do (m = 0, n = 0, or C unchanged), or C = beta·C only when
// alpha = 0 or k = 0 — A and B are never read then.
Status finish_trivial(const GemmProblem& p, const Context& ctx, bool* done) {
  *done = true;
  if (is_quick_return(p)) return Status::ok();
  if (only_scales_c(p)) return backend_ops(ctx.backend).scale_c(p, ctx);
  *done = false;
  return Status::ok();
}

Status gemm(const Context& ctx, const GemmProblem& problem, const GemmOptions& options) {
  const GemmKernel* kernel = nullptr;
  TILEKIT_RETURN_IF_ERROR(find_kernel(Registry::instance().gemm, options.kernel, "gemm", &kernel));
  if (!(options.tune_budget_ms >= 0))  // negative or NaN
    return invalid_argument("gemm: tune_budget_ms = " + std::to_string(options.tune_budget_ms) +
                            " must be >= 0 (0: no tuning on line)");
  if (!kernel && options.tune_budget_ms > 0)
    TILEKIT_RETURN_IF_ERROR(
        tune_on_line(problem, ctx, options.allow_vendor, options.tune_budget_ms * 1e-3));
  return dispatch(Registry::instance().gemm, kernel, ctx, problem, options.allow_vendor, "gemm");
}

Status gemm(const Context& ctx, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc, const GemmOptions& options) {
  return gemm_ex(ctx, layout, op_a, op_b, m, n, k, GemmTypes{}, alpha, a, lda, b, ldb, beta, c,
                 ldc, options);
}

Status gemm_ex(const Context& ctx, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
               int64_t k, GemmTypes types, float alpha, const void* a, int64_t lda, const void* b,
               int64_t ldb, float beta, void* c, int64_t ldc, const GemmOptions& options) {
  GemmProblem p;
  p.layout = layout;
  p.op_a = op_a;
  p.op_b = op_b;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = types;
  p.alpha = alpha;
  p.a = a;
  p.lda = lda;
  p.b = b;
  p.ldb = ldb;
  p.beta = beta;
  p.c = c;
  p.ldc = ldc;
  return gemm(ctx, p, options);
}

Status gemm(const Context& ctx, Op op_a, Op op_b, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c,
            const GemmOptions& options) {
  if (a.layout != c.layout || b.layout != c.layout)
    return invalid_argument("gemm: A, B and C must share one layout (A is " +
                            std::string(layout_name(a.layout)) + "-major, B " +
                            layout_name(b.layout) + "-major, C " + layout_name(c.layout) +
                            "-major)");
  const int64_t m = c.rows, n = c.cols;
  const int64_t k = op_a == Op::kN ? a.cols : a.rows;
  const int64_t a_m = op_a == Op::kN ? a.rows : a.cols;
  const int64_t b_k = op_b == Op::kN ? b.rows : b.cols;
  const int64_t b_n = op_b == Op::kN ? b.cols : b.rows;
  auto dims = [](int64_t r, int64_t cc) { return std::to_string(r) + " x " + std::to_string(cc); };
  if (a_m != m || b_n != n || b_k != k)
    return invalid_argument("gemm: shapes do not match: op(A) is " + dims(a_m, k) + ", op(B) " +
                            dims(b_k, b_n) + ", C " + dims(m, n));
  return gemm(ctx, c.layout, op_a, op_b, m, n, k, alpha, a.data, a.ld, b.data, b.ld, beta, c.data,
              c.ld, options);
}

Status run_gemm_kernel(const GemmKernel& kernel, const Context& ctx, const GemmProblem& problem) {
  return dispatch(Registry::instance().gemm, &kernel, ctx, problem, true, "gemm");
}

Status prepare_gemm_kernel(const GemmKernel& kernel, const Context& ctx, const GemmProblem& p,
                           Workspace* ws) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  TILEKIT_RETURN_IF_ERROR(check_kernel(kernel, p, ctx, device));
  return prepare_kernel(kernel, p, ctx, device, ws);
}

}  // namespace tilekit
