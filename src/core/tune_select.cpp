// tune_select.cpp — kernel "auto" for GEMM: the tuned winners first, then the static ranking.
//
// Order: the device's tune cache (the problem's bucket, else the nearest bucket of the same
// ops, layout, alignment and types), then the table shipped in the source, then
// select_kernel's ranking. A tuned id is only a suggestion: it is run only when it is still
// registered, is one of tilekit's own kernels (a vendor kernel only when allowed), implements
// exactly the requested types (so never a lower precision), and passes every check dispatch
// applies (backend, SM range, can_implement).
#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/tune_select.hpp"

#include "core/dispatch.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {
namespace {

struct DeviceTuning {
  TuneCacheInfo info;
  TunedSource cache, shipped;
};

std::shared_ptr<const DeviceTuning> load_device_tuning(const Context& ctx) {
  auto t = std::make_shared<DeviceTuning>();
  TuneDeviceKey key;
  if (Status s = tune_device_key(ctx, &key); !s) {
    t->info.warning = Status(s.code(), "tune cache not used: " + s.message());
    return t;
  }
  std::string made_on;
  std::vector<TuneEntry> shipped = shipped_tune_table(key, &made_on);
  t->shipped = make_tuned_source("shipped table (" + made_on + ")", std::move(shipped),
                                 Registry::instance().gemm);
  std::string dir;
  if (Status s = tune_cache_dir(&dir); !s) {
    t->info.warning = s;
    return t;
  }
  t->info.path = tune_cache_file(dir, key);
  TuneCache cache;
  bool found = false;
  t->info.warning = load_tune_cache(t->info.path, key, &cache, &found);
  t->info.entries = cache.entries.size();
  t->cache = make_tuned_source("cache " + t->info.path, std::move(cache.entries), Registry::instance().gemm);
  return t;
}

std::mutex g_mutex;
std::map<int, std::shared_ptr<const DeviceTuning>>& loaded() {
  static std::map<int, std::shared_ptr<const DeviceTuning>> m;
  return m;
}

// Loaded once per process and device; afterwards a lookup under an uncontended lock.
std::shared_ptr<const DeviceTuning> device_tuning(const Context& ctx) {
  const int slot = ctx.backend == Backend::kCpu ? -1 : ctx.device;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& m = loaded();
  auto it = m.find(slot);
  if (it != m.end()) return it->second;
  auto t = load_device_tuning(ctx);
  m.emplace(slot, t);
  return t;
}

bool admissible(const GemmKernel& k, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor) {
  if (k.info.role == KernelRole::kReference) return false;
  if (k.info.role == KernelRole::kVendor && !allow_vendor) return false;
  return static_cast<bool>(check_kernel(k, p, ctx, device));  // types, backend, SM, can_implement
}

std::string format_time(double s) {
  std::ostringstream o;
  o.precision(3);
  o << s * 1e3 << " ms";
  return o.str();
}

}  // namespace

TunedSource make_tuned_source(std::string name, std::vector<TuneEntry> entries,
                              const KernelList<GemmKernel>& list) {
  TunedSource s{std::move(name), std::move(entries), {}, {}};
  for (const auto& e : s.entries) {
    s.kernels.push_back(list.find(e.kernel));
    s.notes.push_back(
        s.name + ", bucket " + e.bucket.describe() +
        (e.time_s > 0 ? ": " + format_time(e.time_s) : std::string()) +
        (e.split_k > 0 ? " with split-k " + std::to_string(e.split_k) : std::string()) +
        (e.m ? " measured at " + std::to_string(e.m) + "x" + std::to_string(e.n) + "x" +
                   std::to_string(e.k)
             : std::string()));
  }
  return s;
}

bool pick_tuned(const TunedSource& src, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor, Selection<GemmProblem>* out) {
  const TuneBucket want = bucket_of(p);
  // Entries in (distance, index) order, found by repeated scans rather than a sorted copy: the
  // first candidate is nearly always admissible, and a call then allocates nothing.
  std::pair<int, size_t> after{-1, 0};
  for (;;) {
    std::pair<int, size_t> next{INT_MAX, 0};
    for (size_t i = 0; i < src.entries.size(); ++i) {
      if (!src.kernels[i] || !src.entries[i].bucket.same_class(want)) continue;
      const std::pair<int, size_t> here{src.entries[i].bucket.distance(want), i};
      if (here > after && here < next) next = here;
    }
    if (next.first == INT_MAX) return false;
    after = next;
    const auto [dist, i] = next;
    const GemmKernel* k = src.kernels[i];
    if (!admissible(*k, p, ctx, device, allow_vendor)) continue;
    out->kernel = k;
    out->split_k = takes_run_time_split_k(k->info) ? src.entries[i].split_k : 0;
    out->reason = src.notes[i];
    out->reason += dist == 0 ? " (exact)" : " (nearest, log2 distance " + std::to_string(dist) + ")";
    return true;
  }
}

Status select_auto(const KernelList<GemmKernel>& list, const GemmProblem& p, const Context& ctx,
                   const DeviceInfo* device, bool allow_vendor, const char* op,
                   Selection<GemmProblem>* out) {
  const auto tuning = device_tuning(ctx);
  if (pick_tuned(tuning->cache, p, ctx, device, allow_vendor, out)) return Status::ok();
  if (pick_tuned(tuning->shipped, p, ctx, device, allow_vendor, out)) return Status::ok();
  TILEKIT_RETURN_IF_ERROR(select_kernel(list, p, ctx, device, allow_vendor, op, out));
  out->reason = "ranking: " + out->reason;
  return Status::ok();
}

Status tune_cache_info(const Context& ctx, TuneCacheInfo* out) {
  *out = device_tuning(ctx)->info;
  return Status::ok();
}

void reload_tune_caches() {
  std::lock_guard<std::mutex> lock(g_mutex);
  loaded().clear();
}

std::vector<TuneEntry> shipped_tune_table(const TuneDeviceKey& key, std::string* made_on) {
  // Parsed once per process; a table that does not parse is a build defect that
  // ShippedTuneTables.ParseAndNameOwnKernelsOfTheirTypes reports, and is skipped here.
  static const std::vector<TuneCache> tables = [] {
    std::vector<TuneCache> out;
    for (const ShippedTuneTable& t : shipped_tune_tables()) {
      TuneCache c;
      if (parse_tune_cache(t.json, &c)) out.push_back(std::move(c));
    }
    return out;
  }();
  const TuneCache* best = nullptr;
  for (const TuneCache& t : tables) {
    if (t.key.backend != key.backend) continue;
    if (t.key.name == key.name) {
      best = &t;
      break;
    }
    if (!best && t.key.compute_capability == key.compute_capability) best = &t;
  }
  if (made_on) *made_on = best ? best->key.describe() : std::string();
  return best ? best->entries : std::vector<TuneEntry>{};
}

}  // namespace tilekit
