// dispatch.hpp — the one path from a caller's problem to a kernel's launch (internal).
//
// For every op, in this order: validate → context → trivial problems → choose the kernel
// (named, or the selector) → type and SM checks → can_implement → workspace → initialize →
// launch. The public entry points (gemm, transpose, dot) and the runners that tests and
// benchmarks use (run_gemm_kernel, ...) all come through here, so a kernel under test sees
// exactly what a user's call gives it.
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/workspace.hpp"
#include "tilekit/registry.hpp"

namespace tilekit {

// ---- what differs between ops: overloads per problem type ----

// GEMM problems carry their types; a kernel implements exactly one (A, B, C, compute) and runs
// problems of those types. An FP32-FMA kernel (compute f32) also runs the 3xTF32 mode: that
// mode promises FP32's accuracy from FP32 inputs, which FP32 FMAs keep (never a lower precision).
inline bool serves_types(const GemmTypes& kernel, const GemmTypes& problem) {
  if (kernel == problem) return true;
  GemmTypes as_f32 = problem;
  as_f32.compute = Compute::kF32;
  return problem.compute == Compute::kF32x3TF32 && kernel == as_f32;
}
inline Status check_types(const KernelInfo& k, const GemmProblem& p) {
  if (serves_types(k.types, p.types)) return Status::ok();
  return invalid_argument(k.id + " implements " + describe(k.types) + "; the call asks for " +
                          describe(p.types));
}
template <typename P>
Status check_types(const KernelInfo&, const P&) {
  return Status::ok();  // transpose, dot and copy are float32 only
}
// Exactly the problem's types, without a message: the ranking offers only kernels of the
// problem's own types (the 3xTF32 mode's ranking stays on its tensor-core kernels; measured
// entries say where FP32 FMAs are faster), and skips the others on every call, where building
// check_types' message for each of them cost microseconds per call.
inline bool same_types(const KernelInfo& k, const GemmProblem& p) { return k.types == p.types; }
template <typename P>
bool same_types(const KernelInfo&, const P&) {
  return true;
}
inline std::string describe_types(const GemmProblem& p) { return describe(p.types); }
template <typename P>
std::string describe_types(const P&) {
  return "float32";
}

// Problems that need no kernel: BLAS quick returns and empty shapes. Sets *done when handled.
Status finish_trivial(const GemmProblem& p, const Context& ctx, bool* done);
Status finish_trivial(const TransposeProblem& p, const Context& ctx, bool* done);
Status finish_trivial(const DotProblem& p, const Context& ctx, bool* done);
Status finish_trivial(const CopyProblem& p, const Context& ctx, bool* done);

// ---- the shared steps ----

// Ok when `k` may run `p` under ctx on `device`: backend, types, SM range, can_implement.
template <typename P>
Status check_kernel(const Kernel<P>& k, const P& p, const Context& ctx, const DeviceInfo* device) {
  if (k.info.backend != ctx.backend)
    return invalid_argument(k.info.id + " runs on the " + backend_name(k.info.backend) +
                            " backend, the context is " + backend_name(ctx.backend));
  TILEKIT_RETURN_IF_ERROR(check_types(k.info, p));
  if (device) {
    const int sm = device->sm_version();
    if ((k.info.min_sm && sm < k.info.min_sm) || (k.info.max_sm && sm > k.info.max_sm))
      return not_supported(k.info.id + " runs on sm_" + std::to_string(k.info.min_sm) +
                           (k.info.max_sm == k.info.min_sm
                                ? std::string()
                                : "…" + (k.info.max_sm ? "sm_" + std::to_string(k.info.max_sm)
                                                       : std::string())) +
                           ", the device is sm_" + std::to_string(sm));
  }
  Status s = k.can_implement(p, device);
  if (!s) return Status(s.code(), k.info.id + " cannot run " + p.describe() + ": " + s.message());
  return Status::ok();
}

// Workspace, initialize, launch: the part of a call a benchmark's event window may contain is
// only the last step, so benchmarks call prepare_kernel() once and launch themselves.
template <typename P>
Status prepare_kernel(const Kernel<P>& k, const P& p, const Context& ctx, const DeviceInfo* device,
                      Workspace* ws) {
  // A context that limits the SMs (Context::sm_limit) is a smaller device to the kernel: its
  // plan, and so its workspace, may differ (fewer slots can turn a whole-tile walk into stream-K,
  // which needs partials), so the workspace is sized for the device as the launch will see it.
  DeviceInfo limited;
  if (device && ctx.sm_limit > 0 && ctx.sm_limit < device->sm_count) {
    limited = *device;
    limited.sm_count = ctx.sm_limit;
    device = &limited;
  }
  const size_t bytes = k.workspace_bytes ? k.workspace_bytes(p, device) : 0;
  TILEKIT_RETURN_IF_ERROR(ctx.workspace_pool().acquire(ctx, bytes, ws));
  if (k.initialize) TILEKIT_RETURN_IF_ERROR(k.initialize(p, ctx, *ws));
  return Status::ok();
}

template <typename P>
Status execute_kernel(const Kernel<P>& k, const P& p, const Context& ctx, const DeviceInfo* device) {
  Workspace ws;
  TILEKIT_RETURN_IF_ERROR(prepare_kernel(k, p, ctx, device, &ws));
  return k.launch(p, ctx, ws);
}

// The selector: the kernel "auto" runs for `p`, with the reason. Own kernels first (highest
// auto_rank among those whose checks pass); vendor kernels only when allowed; the reference
// only when nothing else can run the problem (the CPU serves every compute mode this way).
template <typename P>
Status select_kernel(const KernelList<Kernel<P>>& list, const P& p, const Context& ctx,
                     const DeviceInfo* device, bool allow_vendor, const char* op,
                     Selection<P>* out) {
  const Kernel<P>* best[3] = {nullptr, nullptr, nullptr};  // per role
  int candidates[3] = {0, 0, 0};
  int of_these_types = 0;
  std::string refusals;
  for (const auto& k : list.all()) {
    if (k.info.backend != ctx.backend) continue;
    const int role = static_cast<int>(k.info.role);
    if (k.info.role == KernelRole::kVendor && !allow_vendor) continue;
    if (!same_types(k.info, p)) continue;  // other types: never a candidate, not a refusal
    ++of_these_types;
    Status s = check_kernel(k, p, ctx, device);
    if (!s) {
      refusals += "\n  " + s.message();
      continue;
    }
    ++candidates[role];
    if (!best[role] || k.info.auto_rank > best[role]->info.auto_rank) best[role] = &k;
  }
  for (KernelRole role : {KernelRole::kOwn, KernelRole::kVendor, KernelRole::kReference}) {
    const Kernel<P>* k = best[static_cast<int>(role)];
    if (!k) continue;
    const int n = candidates[static_cast<int>(role)];
    out->kernel = k;
    out->reason =
        role == KernelRole::kOwn
            ? "highest rank (" + std::to_string(k->info.auto_rank) + ") of " + std::to_string(n) +
                  " own kernel(s) that can run " + p.describe()
        : role == KernelRole::kVendor
            ? "no own kernel can run " + p.describe() + "; vendor kernels are allowed"
            : "only the reference can run " + p.describe();
    return Status::ok();
  }
  const std::string whose = allow_vendor ? "" : " of tilekit's own";
  if (of_these_types == 0)
    return not_supported(std::string(op) + ": no " + backend_name(ctx.backend) + " kernel" + whose +
                         " implements " + describe_types(p) +
                         (allow_vendor ? "" : " (--allow-vendor admits vendor kernels)"));
  return not_supported(std::string(op) + ": no " + backend_name(ctx.backend) + " kernel" + whose +
                       " can run " + p.describe() + (refusals.empty() ? "" : ":" + refusals));
}

// Kernel "auto": for GEMM the tuned winners come first (src/core/tune_select.cpp: the device's
// tune cache, then the shipped table), then the ranking above; other ops have only the ranking.
// Without `explain`, a GEMM's out->reason is left empty: a call that runs the choice never reads
// it, and writing it was about a tenth of a tuned search.
Status select_auto(const KernelList<GemmKernel>& list, const GemmProblem& p, const Context& ctx,
                   const DeviceInfo* device, bool allow_vendor, const char* op,
                   Selection<GemmProblem>* out, bool explain = true);
template <typename P>
Status select_auto(const KernelList<Kernel<P>>& list, const P& p, const Context& ctx,
                   const DeviceInfo* device, bool allow_vendor, const char* op, Selection<P>* out,
                   bool /*explain*/ = true) {
  return select_kernel(list, p, ctx, device, allow_vendor, op, out);
}

// The problem the selector's choice runs: a GEMM gets the run-time k split its tuned entry was
// measured with, unless the caller named one; other problems run as they are.
inline GemmProblem with_selection(const GemmProblem& p, const Selection<GemmProblem>& chosen) {
  GemmProblem q = p;
  if (q.split_k == 0 && chosen.split_k > 0 && takes_run_time_split_k(chosen.kernel->info))
    q.split_k = chosen.split_k;
  return q;
}
template <typename P>
const P& with_selection(const P& p, const Selection<P>&) {
  return p;
}

// The whole call: `kernel` null = select.
template <typename P>
Status dispatch(const KernelList<Kernel<P>>& list, const Kernel<P>* kernel, const Context& ctx,
                const P& p, bool allow_vendor, const char* op) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  if (kernel && kernel->info.backend != ctx.backend)
    return invalid_argument(std::string(op) + ": kernel " + kernel->info.id + " runs on the " +
                            backend_name(kernel->info.backend) + " backend, the context is " +
                            backend_name(ctx.backend));
  bool done = false;
  TILEKIT_RETURN_IF_ERROR(finish_trivial(p, ctx, &done));
  if (done) return Status::ok();
  if (kernel) {
    TILEKIT_RETURN_IF_ERROR(check_kernel(*kernel, p, ctx, device));
  } else {
    Selection<P> chosen;
    TILEKIT_RETURN_IF_ERROR(select_auto(list, p, ctx, device, allow_vendor, op, &chosen,
                                        /*explain=*/false));
    return execute_kernel(*chosen.kernel, with_selection(p, chosen), ctx, device);
  }
  return execute_kernel(*kernel, p, ctx, device);
}

// A kernel id, or "auto"/"" for the selector; an unknown id is an error naming it.
template <typename P>
Status find_kernel(const KernelList<Kernel<P>>& list, const std::string& id, const char* op,
                   const Kernel<P>** out) {
  *out = nullptr;
  if (id == "auto" || id.empty()) return Status::ok();
  *out = list.find(id);
  if (!*out)
    return invalid_argument(std::string(op) + ": unknown kernel '" + id +
                            "' (`tilekit list` shows the registered ids)");
  return Status::ok();
}

}  // namespace tilekit
