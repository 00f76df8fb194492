// tune_replay.cpp — kernel "auto"'s tuned selection scored offline (tune_replay.hpp).
#include "core/tune_replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dispatch.hpp"

namespace tilekit {
namespace {

// m, n, k of an entry's measured shape (its bucket's powers of two where it recorded none), as
// the selector places it.
struct EntryShape {
  int64_t m, n, k;
};
EntryShape shape_of(const TuneEntry& e) {
  const TuneBucket& b = e.bucket;
  return {e.m ? e.m : int64_t{1} << b.log2_m, e.n ? e.n : int64_t{1} << b.log2_n,
          e.k ? e.k : int64_t{1} << b.log2_k};
}

bool usable_time(double s) { return std::isfinite(s) && s > 0; }

// What auto runs for p with `src` as its only tuned source: the tuned choice, else the ranking
// (select_kernel), as select_auto goes on when a source offers nothing. False when nothing can
// run p.
bool choose(const TunedSource& src, const GemmProblem& p, const KernelList<GemmKernel>& list,
            const ReplayDevice& d, Selection<GemmProblem>* out) {
  if (pick_tuned(src, p, d.ctx, d.device_or_null(), /*allow_vendor=*/false, out,
                 /*explain=*/false))
    return true;
  out->split_k = 0;
  return static_cast<bool>(
      select_kernel(list, p, d.ctx, d.device_or_null(), /*allow_vendor=*/false, "gemm", out));
}

}  // namespace

Status replay_device(const TuneDeviceKey& key, double dram_gbps, ReplayDevice* out) {
  *out = ReplayDevice{};
  if (key.backend == "cpu") {
    out->ctx = Context::cpu();
    out->model_device = [](const GemmKernel& k) { return tile_model_device(k, nullptr); };
    return Status::ok();
  }
  if (key.backend != "cuda")
    return invalid_argument("the table's device has backend \"" + key.backend +
                            "\", not cpu or cuda");
  if (key.sm_count <= 0)
    return invalid_argument("the table's device records " + std::to_string(key.sm_count) +
                            " SMs");
  if (!(dram_gbps > 0)) return invalid_argument("the DRAM bandwidth must be above 0");
  out->ctx = Context::cuda(0);
  out->has_device = true;
  out->device.name = key.name;
  out->device.cc_major = key.compute_capability / 10;
  out->device.cc_minor = key.compute_capability % 10;
  out->device.sm_count = key.sm_count;
  out->device.driver_version = key.driver_version;
  TileModelDevice model;
  model.sms = key.sm_count;
  model.blocks_per_sm = 1;
  model.bytes_per_s = kStreamedDramShare * dram_gbps * 1e9;
  out->model_device = [model](const GemmKernel&) { return model; };
  return Status::ok();
}

GemmProblem replay_problem(const TuneBucket& b, int64_t m, int64_t n, int64_t k) {
  alignas(16) static float stand_in[8];  // never read or written
  GemmProblem p;
  p.layout = b.layout;
  p.op_a = b.op_a;
  p.op_b = b.op_b;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = b.types;
  float* base = b.aligned16 ? stand_in : stand_in + 1;
  p.a = base;
  p.b = base;
  p.c = base;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  if (class_of(p).ld16 != b.ld16) {
    if (b.ld16) {  // each stride up to whole 16-byte units
      auto widen = [](int64_t ld, DType t) {
        const int64_t unit = 16 / std::min<int64_t>(16, static_cast<int64_t>(dtype_size(t)));
        return (ld + unit - 1) / unit * unit;
      };
      p.lda = widen(p.lda, p.types.a);
      p.ldb = widen(p.ldb, p.types.b);
      p.ldc = widen(p.ldc, p.types.c);
    } else {  // C's stride one element past whole 16-byte units
      p.ldc += 1;
    }
  }
  return p;
}

ReplayScores replay_leave_one_out(const std::vector<TuneEntry>& entries, const GemmTypes& types,
                                  const KernelList<GemmKernel>& list, const ReplayDevice& d) {
  // The entries of `types` by class, in order of first appearance.
  std::vector<std::vector<size_t>> classes;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].bucket.types != types) continue;
    auto cls = std::find_if(classes.begin(), classes.end(), [&](const std::vector<size_t>& c) {
      return entries[c.front()].bucket.same_class(entries[i].bucket);
    });
    if (cls == classes.end())
      classes.push_back({i});
    else
      cls->push_back(i);
  }
  ReplayScores out;
  std::vector<TuneEntry> others;
  for (const std::vector<size_t>& cls : classes)
    for (const size_t held_out : cls) {
      const TuneEntry& e = entries[held_out];
      // Its registered candidates: the fastest of all, and per kernel the ones that name it.
      std::vector<std::pair<const GemmKernel*, const TuneCandidate*>> measured;
      double fastest = std::numeric_limits<double>::infinity();
      for (const TuneCandidate& c : e.candidates) {
        const GemmKernel* k = list.find(c.kernel);
        if (!k || !usable_time(c.time_s)) continue;
        measured.emplace_back(k, &c);
        fastest = std::min(fastest, c.time_s);
      }
      if (measured.empty()) {
        ++out.unscored;
        continue;
      }
      others.clear();
      for (const size_t i : cls)
        if (i != held_out) others.push_back(entries[i]);
      const TunedSource src =
          make_tuned_source("replay", std::move(others), list, d.model_device);
      others = std::vector<TuneEntry>{};
      const EntryShape at = shape_of(e);
      Selection<GemmProblem> chosen;
      double time = std::numeric_limits<double>::infinity();
      if (choose(src, replay_problem(e.bucket, at.m, at.n, at.k), list, d, &chosen))
        for (const auto& [k, c] : measured) {
          // One choice: the kernel, with the split it runs (none for a kernel that takes no
          // run-time split, whichever split the tuner passed it).
          const bool same = k == chosen.kernel &&
                            (!takes_run_time_split_k(k->info) || c->split_k == chosen.split_k);
          if (same) time = std::min(time, c->time_s);
        }
      out.ratios.push_back(std::isfinite(time) ? time / fastest : kReplayMissingRatio);
    }
  return out;
}

ReplayScores replay_shapes(const std::vector<TuneEntry>& entries,
                           const std::vector<ReplayShape>& shapes,
                           const KernelList<GemmKernel>& list, const ReplayDevice& d) {
  ReplayScores out;
  if (shapes.empty()) return out;
  const TunedSource src = make_tuned_source("replay", entries, list, d.model_device);
  for (const ReplayShape& s : shapes) {
    double fastest = std::numeric_limits<double>::infinity();
    bool registered = false;
    for (const auto& [id, seconds] : s.kernel_times) {
      if (!usable_time(seconds)) continue;
      fastest = std::min(fastest, seconds);
      registered = registered || list.find(id) != nullptr;
    }
    if (!registered) {
      ++out.unscored;
      continue;
    }
    TuneBucket b;
    b.op_a = s.op_a;
    b.op_b = s.op_b;
    b.types = s.types;
    GemmProblem p = replay_problem(b, s.m, s.n, s.k);
    p.lda = p.min_lda();  // the least strides, whatever they divide into (as the sweep ran)
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();
    Selection<GemmProblem> chosen;
    double time = std::numeric_limits<double>::infinity();
    if (choose(src, p, list, d, &chosen))
      for (const auto& [id, seconds] : s.kernel_times)
        if (usable_time(seconds) && list.find(id) == chosen.kernel)
          time = std::min(time, seconds);
    out.ratios.push_back(std::isfinite(time) ? time / fastest : kReplayMissingRatio);
  }
  return out;
}

ReplaySummary summarize_replay(const std::vector<double>& ratios) {
  ReplaySummary s;
  s.shapes = ratios.size();
  if (ratios.empty()) return s;
  double log_sum = 0;
  for (const double r : ratios) {
    s.within_1_05 += r <= 1.05;
    s.above_1_3 += r > 1.3;
    log_sum += std::log(r);
  }
  s.geomean = std::exp(log_sum / static_cast<double>(ratios.size()));
  return s;
}

}  // namespace tilekit
