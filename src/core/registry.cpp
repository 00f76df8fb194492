
#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/schedules/plan.hpp"
#include "tilekit/registry.hpp"

namespace tilekit {

void register_all(Registry& registry);  // src/register_all.cpp
const BackendOps& unavailable_cuda_backend();  // src/core/device_none.cpp or the CUDA backend

const BackendOps& backend_ops(Backend b) {
  const BackendOps* ops = Registry::instance().backend(b);
  return ops ? *ops : unavailable_cuda_backend();  // only CUDA can be missing (CPU-only build)
}

const char* tile_schedule_name(TileSchedule schedule) { return schedule_name(schedule); }

std::string TileDesc::describe() const {
  if (chosen_at_run_time) return "side chosen at run time";
  std::string s;
  auto add = [&s](const std::string& piece) { s += (s.empty() ? "" : ", ") + piece; };
  auto dims = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  if (block_m) add(dims(block_m, block_n) + (block_k ? "x" + std::to_string(block_k) : ""));
  if (warp_m) add("warp " + dims(warp_m, warp_n));
  if (threads) add(std::to_string(threads) + " threads");
  if (thread_m) add(dims(thread_m, thread_n) + "/thread");
  if (stages) add(std::to_string(stages) + " stages");
  if (cluster_m) add("cluster " + dims(cluster_m, cluster_n));
  if (split_k > 1) add("split-k " + std::to_string(split_k));
  return s;
}

const Registry& Registry::instance() {
  static const Registry registry = [] {
    Registry r;
    register_all(r);
    return r;
  }();
  return registry;
}

std::vector<Registry::Entry> Registry::match_any(const std::string& glob) const {
  std::vector<Entry> out;
  auto collect = [&](const auto& list) {
    for (const auto* k : list.match(glob)) out.push_back({&k->info, &k->resources, &k->launch_notes});
  };
  collect(gemm);
  collect(transpose);
  collect(dot);
  collect(copy);
  return out;
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with backtracking to the last '*'.
  size_t p = 0, t = 0, star = std::string::npos, star_t = 0;
  auto class_match = [&](size_t& pi, char c) {  // pattern[pi] == '['; advances pi past ']'
    size_t i = pi + 1;
    bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
    if (negate) ++i;
    bool found = false;
    size_t first = i;
    for (; i < pattern.size() && (pattern[i] != ']' || i == first); ++i) {
      if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
        if (c >= pattern[i] && c <= pattern[i + 2]) found = true;
        i += 2;
      } else if (pattern[i] == c) {
        found = true;
      }
    }
    if (i >= pattern.size()) return std::make_pair(false, false);  // unterminated: literal '['
    pi = i + 1;
    return std::make_pair(true, found != negate);
  };
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      if (pattern[p] == '[') {
        size_t pi = p;
        auto [valid, ok] = class_match(pi, text[t]);
        if (valid && ok) {
          p = pi;
          ++t;
          continue;
        }
        if (!valid && text[t] == '[') {
          ++p;
          ++t;
          continue;
        }
      } else if (pattern[p] == '?' || pattern[p] == text[t]) {
        ++p;
        ++t;
        continue;
      }
    }
    if (star == std::string::npos) return false;
    p = star + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Status select_gemm_kernel(const GemmProblem& p, const Context& ctx, bool allow_vendor,
                          Selection<GemmProblem>* out, bool explain) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  const DeviceInfo* device = nullptr;
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, &device));
  return select_auto(Registry::instance().gemm, p, ctx, device, allow_vendor, "gemm", out,
                     explain);
}

Status select_gemm_kernel(const GemmProblem& p, const Context& ctx, const GemmKernel** out) {
  Selection<GemmProblem> chosen;
  TILEKIT_RETURN_IF_ERROR(select_gemm_kernel(p, ctx, false, &chosen, /*explain=*/false));
  *out = chosen.kernel;
  return Status::ok();
}

}  // namespace tilekit
