// memory_ops.cpp — the public transpose() and dot() entry points, and the kernel runners for the
// memory-bound families, on the one dispatch path (core/dispatch.hpp).
#include "core/dispatch.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit {

// Empty problems never reach a kernel (a CUDA grid of zero blocks is a launch error): a dot
// product of nothing is 0, an empty transpose or copy does nothing.
Status finish_trivial(const TransposeProblem& p, const Context&, bool* done) {
  *done = p.rows == 0 || p.cols == 0;
  return Status::ok();
}
Status finish_trivial(const CopyProblem& p, const Context&, bool* done) {
  *done = p.n == 0;
  return Status::ok();
}
Status finish_trivial(const DotProblem& p, const Context& ctx, bool* done) {
  *done = p.n == 0;
  return *done ? backend_ops(ctx.backend).zero_fill(p.result, sizeof(float), ctx) : Status::ok();
}

namespace {

template <typename P>
Status dispatch_by_id(const KernelList<Kernel<P>>& list, const std::string& id, const Context& ctx,
                      const P& p, const char* op) {
  const Kernel<P>* kernel = nullptr;
  TILEKIT_RETURN_IF_ERROR(find_kernel(list, id, op, &kernel));
  return dispatch(list, kernel, ctx, p, /*allow_vendor=*/false, op);
}

}  // namespace

Status transpose(const Context& ctx, int64_t rows, int64_t cols, const float* a, int64_t lda,
                 float* b, int64_t ldb, const KernelOptions& options) {
  TransposeProblem p{rows, cols, a, lda, b, ldb};
  return dispatch_by_id(Registry::instance().transpose, options.kernel, ctx, p, "transpose");
}

Status dot(const Context& ctx, int64_t n, const float* x, const float* y, float* result,
           const KernelOptions& options) {
  DotProblem p{n, x, y, result};
  return dispatch_by_id(Registry::instance().dot, options.kernel, ctx, p, "dot");
}

Status run_transpose_kernel(const TransposeKernel& k, const Context& ctx, const TransposeProblem& p) {
  return dispatch(Registry::instance().transpose, &k, ctx, p, true, "transpose");
}
Status run_dot_kernel(const DotKernel& k, const Context& ctx, const DotProblem& p) {
  return dispatch(Registry::instance().dot, &k, ctx, p, true, "dot");
}
Status run_copy_kernel(const CopyKernel& k, const Context& ctx, const CopyProblem& p) {
  return dispatch(Registry::instance().copy, &k, ctx, p, true, "copy");
}

}  // namespace tilekit
