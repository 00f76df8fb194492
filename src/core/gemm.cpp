// gemm.cpp — the public GEMM entry points: validate, quick-return, choose a kernel, launch.
#include "core/backend.hpp"
#include "cpu/cpu_kernels.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit {
namespace {

// Everything between a validated problem and a kernel's launch, shared by gemm() and
// run_gemm_kernel() so a kernel under test sees exactly what a user's call would give it.
// `kernel` null = choose with select_gemm_kernel().
Status dispatch(const GemmKernel* kernel, const Context& ctx, const GemmProblem& p) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  if (kernel && kernel->info.backend != ctx.backend)
    return invalid_argument("gemm: kernel " + kernel->info.id + " runs on the " +
                            backend_name(kernel->info.backend) + " backend, the context is " +
                            backend_name(ctx.backend));
  if (is_quick_return(p)) return Status::ok();
  if (only_scales_c(p)) {  // alpha = 0 or k = 0: C = beta·C, A and B are never read
    if (ctx.backend == Backend::kCpu) {
      cpu::scale_c(p, ctx);
      return Status::ok();
    }
    return cuda::scale_c(p, ctx);
  }
  if (kernel) {
    Status s = kernel->can_implement(p, device);
    if (!s) return Status(s.code(), kernel->info.id + " cannot run " + p.describe() + ": " +
                                        s.message());
  } else {
    TILEKIT_RETURN_IF_ERROR(select_gemm_kernel(p, ctx, &kernel));
  }
  return kernel->launch(p, ctx);
}

}  // namespace

Status gemm(const Context& ctx, const GemmProblem& problem, const GemmOptions& options) {
  const GemmKernel* kernel = nullptr;
  if (options.kernel != "auto" && !options.kernel.empty()) {
    kernel = Registry::instance().find_gemm(options.kernel);
    if (!kernel)
      return invalid_argument("gemm: unknown kernel '" + options.kernel +
                              "' (`tilekit list` shows the registered ids)");
  }
  return dispatch(kernel, ctx, problem);
}

Status gemm(const Context& ctx, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc, const GemmOptions& options) {
  GemmProblem p;
  p.layout = layout;
  p.op_a = op_a;
  p.op_b = op_b;
  p.m = m;
  p.n = n;
  p.k = k;
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
  return dispatch(&kernel, ctx, problem);
}

}  // namespace tilekit
