// memory_ops.cpp — the public transpose() and dot() entry points, and the kernel runners for the
// memory-bound families: validate, handle empty problems, choose or check a kernel, launch.
#include "core/backend.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit {
namespace {

// Empty problems never reach a kernel (a CUDA grid of zero blocks is a launch error): a dot
// product of nothing is 0, an empty transpose or copy does nothing.
bool is_empty(const TransposeProblem& p) { return p.rows == 0 || p.cols == 0; }
bool is_empty(const DotProblem& p) { return p.n == 0; }
bool is_empty(const CopyProblem& p) { return p.n == 0; }
Status finish_empty(const TransposeProblem&, const Context&) { return Status::ok(); }
Status finish_empty(const CopyProblem&, const Context&) { return Status::ok(); }
Status finish_empty(const DotProblem& p, const Context& ctx) {
  if (ctx.backend == Backend::kCpu) {
    *p.result = 0.0f;
    return Status::ok();
  }
  return device_memset(p.result, 0, sizeof(float), ctx.stream);
}

// What every memory-bound op shares between a validated problem and a kernel's launch.
// `kernel` null = the highest auto_rank kernel of ctx's backend that can run `p`.
template <typename P>
Status dispatch(const KernelList<Kernel<P>>& list, const Kernel<P>* kernel, const Context& ctx,
                const P& p, const char* op) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  if (kernel && kernel->info.backend != ctx.backend)
    return invalid_argument(std::string(op) + ": kernel " + kernel->info.id + " runs on the " +
                            backend_name(kernel->info.backend) + " backend, the context is " +
                            backend_name(ctx.backend));
  if (is_empty(p)) return finish_empty(p, ctx);
  if (kernel) {
    Status s = kernel->can_implement(p, device);
    if (!s)
      return Status(s.code(), kernel->info.id + " cannot run " + p.describe() + ": " + s.message());
    return kernel->launch(p, ctx);
  }
  const Kernel<P>* best = nullptr;
  TILEKIT_RETURN_IF_ERROR(select_best_kernel(list, p, ctx, device, op, &best));
  return best->launch(p, ctx);
}

template <typename P>
Status dispatch_by_id(const KernelList<Kernel<P>>& list, const std::string& id, const Context& ctx,
                      const P& p, const char* op) {
  const Kernel<P>* kernel = nullptr;
  if (id != "auto" && !id.empty()) {
    kernel = list.find(id);
    if (!kernel)
      return invalid_argument(std::string(op) + ": unknown kernel '" + id +
                              "' (`tilekit list` shows the registered ids)");
  }
  return dispatch(list, kernel, ctx, p, op);
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
  return dispatch(Registry::instance().transpose, &k, ctx, p, "transpose");
}
Status run_dot_kernel(const DotKernel& k, const Context& ctx, const DotProblem& p) {
  return dispatch(Registry::instance().dot, &k, ctx, p, "dot");
}
Status run_copy_kernel(const CopyKernel& k, const Context& ctx, const CopyProblem& p) {
  return dispatch(Registry::instance().copy, &k, ctx, p, "copy");
}

}  // namespace tilekit
