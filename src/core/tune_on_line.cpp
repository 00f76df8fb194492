// tune_on_line.cpp — kernel "auto"'s on-line tuning (tune_on_line.hpp).
#include "core/tune_on_line.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/tune_select.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {
namespace {

// The shapes this process has tried on line: each is measured once, even where recording it
// failed or measured nothing, so that a call never pays for a search twice.
struct TriedShape {
  Backend backend;
  int device;
  TuneBucket bucket;
  int64_t m, n, k;
};

// True the first time (backend, device, bucket, m, n, k) is asked for.
bool first_try(const GemmProblem& p, const Context& ctx) {
  static std::mutex mutex;
  static std::vector<TriedShape> tried;
  const TuneBucket bucket = bucket_of(p);
  std::lock_guard<std::mutex> lock(mutex);
  for (const TriedShape& t : tried)
    if (t.backend == ctx.backend && t.device == ctx.device && t.bucket == bucket && t.m == p.m &&
        t.n == p.n && t.k == p.k)
      return false;
  tried.push_back({ctx.backend, ctx.device, bucket, p.m, p.n, p.k});
  return true;
}

// The kernels auto could run p with, the selector's current choice first, then by rank.
std::vector<const GemmKernel*> candidates_of(const GemmProblem& p, const Context& ctx,
                                             const DeviceInfo* device, bool allow_vendor) {
  const KernelList<GemmKernel>& list = Registry::instance().gemm;
  std::vector<const GemmKernel*> out;
  for (const GemmKernel& k : list.all())
    if (admissible(k, p, ctx, device, allow_vendor)) out.push_back(&k);
  std::stable_sort(out.begin(), out.end(), [](const GemmKernel* a, const GemmKernel* b) {
    return a->info.auto_rank > b->info.auto_rank;
  });
  Selection<GemmProblem> chosen;
  if (select_auto(list, p, ctx, device, allow_vendor, "gemm", &chosen, false)) {
    auto it = std::find(out.begin(), out.end(), chosen.kernel);
    if (it != out.end()) std::rotate(out.begin(), it, it + 1);
  }
  return out;
}

// C's bytes as p stores them (its span, in its element type).
size_t c_bytes(const GemmProblem& p) {
  return static_cast<size_t>(p.c_span()) * dtype_size(p.types.c);
}

// Scratch memory released with its holder.
struct Scratch {
  const Context& ctx;
  void* data = nullptr;
  explicit Scratch(const Context& c) : ctx(c) {}
  ~Scratch() {
    if (data) backend_ops(ctx.backend).release(ctx, data);
  }
};

// k's time at q (whose C is the scratch copy): one warm-up run, then the median of the timed ones.
Status time_candidate(const GemmKernel& k, const GemmProblem& q, const Context& ctx,
                      const DeviceInfo* device, double* seconds) {
  Workspace ws;
  TILEKIT_RETURN_IF_ERROR(prepare_kernel(k, q, ctx, device, &ws));
  TILEKIT_RETURN_IF_ERROR(k.launch(q, ctx, ws));
  return backend_ops(ctx.backend).time_runs(
      ctx, [&] { return k.launch(q, ctx, ws); }, kOnLineTimedRuns, seconds);
}

// The measurements as a cache entry of p's bucket and shape, fastest first.
TuneEntry entry_of(const GemmProblem& p, std::vector<TuneCandidate> measured) {
  std::stable_sort(measured.begin(), measured.end(),
                   [](const TuneCandidate& a, const TuneCandidate& b) { return a.time_s < b.time_s; });
  TuneEntry e;
  e.bucket = bucket_of(p);
  e.m = p.m;
  e.n = p.n;
  e.k = p.k;
  e.kernel = measured.front().kernel;
  e.time_s = measured.front().time_s;
  e.candidates = std::move(measured);
  return e;
}

}  // namespace

Status tune_on_line(const GemmProblem& p, const Context& ctx, bool allow_vendor, double budget_s) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  if (is_quick_return(p) || only_scales_c(p)) return Status::ok();
  std::string dir;
  if (Status s = tune_cache_dir(&dir); !s)
    return invalid_argument("tune_budget_ms: no tune cache to record in: " + s.message());
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  // A shape tried before costs its caller this lookup, not the cache's scan or the streamed
  // rule's: every later call at it stops here.
  if (!first_try(p, ctx)) return Status::ok();
  if (cache_measured(p, ctx) || streamed_rule_takes(p, ctx, device, allow_vendor))
    return Status::ok();
  TuneDeviceKey key;
  TILEKIT_RETURN_IF_ERROR(tune_device_key(ctx, &key));

  const BackendOps& ops = backend_ops(ctx.backend);
  Scratch c(ctx);
  TILEKIT_RETURN_IF_ERROR(ops.allocate(ctx, c_bytes(p), &c.data));
  // Each run reads C where beta != 0: the copy holds the caller's values (runs after the first
  // change them, which changes no kernel's time).
  if (p.beta != 0.0f) TILEKIT_RETURN_IF_ERROR(ops.copy_bytes(c.data, p.c, c_bytes(p), ctx));
  GemmProblem q = p;
  q.c = c.data;

  std::vector<TuneCandidate> measured;
  const auto start = std::chrono::steady_clock::now();
  for (const GemmKernel* k : candidates_of(p, ctx, device, allow_vendor)) {
    double seconds = 0;
    if (time_candidate(*k, q, ctx, device, &seconds)) measured.push_back({k->info.id, 0, seconds, false});
    // The budget is checked between candidates: the first (the selector's choice) always runs.
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent >= budget_s) break;
  }
  if (measured.empty()) return Status::ok();
  TuneCache add;
  add.key = key;
  add.entries.push_back(entry_of(p, std::move(measured)));
  // A cache that cannot be written (a read-only directory) leaves the call to the tables, as
  // without tuning; the shape is not tried again in this process.
  if (merge_tune_cache(tune_cache_file(dir, key), add, TuneMerge::kAddCandidates))
    reload_tune_caches();
  return Status::ok();
}

}  // namespace tilekit
