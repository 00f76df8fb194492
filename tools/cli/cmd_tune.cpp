// cmd_tune.cpp — `tilekit tune`: measure every own GEMM kernel per shape, keep the winners in the
// device's tune cache (docs/tuning.md); `--show` prints the cache and what auto would choose;
// `--evaluate` times auto against every own kernel; `--replay` scores auto's selection offline
// on a table's own measurements.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "core/tune_replay.hpp"
#include "gemm_bench.hpp"
#include "report.hpp"
#include "suite.hpp"
#include "sweep_session.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit::cli {
namespace {

constexpr const char* kGpuTuneSizes = "256,512,1024,2048,4096";
constexpr const char* kCpuTuneSizes = "128,256,512";

struct TuneOptions {
  std::string sizes;  // empty: a default set for the backend
  std::string ops = "NN";
  std::string dtype = "f32";
  std::string compute;  // empty: f32 for f32 inputs, bf16 for 16-bit ones
  std::string layout = "row";
  double budget = 600;
  bool show = false;
  bool evaluate = false;
  std::string json;  // --evaluate: also write the rows here
  std::string kernels;  // globs: measure only these own kernels (empty: every own kernel)
  uint64_t seed = 20261122;
  BackendOptions backend;
  // --replay: the table whose entries auto's selection is scored on (read, never written)
  std::string replay;
  std::string types;  // a or a:compute, comma-separated (empty: every type of the table)
  std::vector<std::string> evaluate_json;  // `tune --evaluate --json` files scored too
  double dram_gbps = 4800;  // the table's device's DRAM bandwidth (its record holds none)
  bool gpu_occupancy = false;  // blocks per SM (and bandwidth) from GPU 0 instead
};

// One (types, ops) pass over the shapes.
struct TuneJob {
  GemmTypes types;
  Op op_a = Op::kN, op_b = Op::kN;
  bench::GemmShape shape;
  std::vector<const GemmKernel*> candidates;  // the own kernels of the types (--kernels: named)
  // Where the harness reports its steps within this shape (shape_heartbeat); empty: nowhere.
  std::function<void(int, int, const std::string&)> progress;
  // The references this shape's harness passes share (each pass runs on the same inputs).
  std::shared_ptr<bench::ReferenceCache> references;
};

// Progress within one shape, for shapes that take minutes (a 16384³ job runs every candidate
// on a 1 GB C and verifies it): nothing for the first kHeartbeatQuiet, then the harness's
// current step at most every kHeartbeatEvery. The lines are indented, so the "[i/N]" line of
// each finished shape stays the only kind that starts with '['. The state travels with the
// function (copies share it).
constexpr std::chrono::seconds kHeartbeatQuiet{15}, kHeartbeatEvery{15};

std::function<void(int, int, const std::string&)> shape_heartbeat(std::string label) {
  using Clock = std::chrono::steady_clock;
  struct State {
    std::string label;
    Clock::time_point start = Clock::now(), last = start;
  };
  auto state = std::make_shared<State>();
  state->label = std::move(label);
  return [state](int, int, const std::string& step) {
    const auto now = Clock::now();
    if (now - state->start < kHeartbeatQuiet || now - state->last < kHeartbeatEvery) return;
    state->last = now;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - state->start);
    std::cerr << "  ... " << state->label << " (" << seconds.count() << " s): " << step << "\n";
  };
}

Status split_list(const std::string& text, const std::string& what, std::vector<std::string>* out) {
  out->clear();
  std::stringstream ss(text);
  for (std::string piece; std::getline(ss, piece, ',');) {
    if (piece.empty()) return invalid_argument(what + ": '" + text + "' has an empty item");
    out->push_back(piece);
  }
  if (out->empty()) return invalid_argument(what + ": empty");
  return Status::ok();
}

Status parse_ops(const std::string& text, std::vector<std::pair<Op, Op>>* out) {
  std::vector<std::string> items;
  TILEKIT_RETURN_IF_ERROR(split_list(text, "--ops", &items));
  for (const auto& s : items) {
    if (s.size() != 2 || (s[0] != 'N' && s[0] != 'T') || (s[1] != 'N' && s[1] != 'T'))
      return invalid_argument("--ops: '" + s + "' is not one of NN, NT, TN, TT");
    out->emplace_back(s[0] == 'N' ? Op::kN : Op::kT, s[1] == 'N' ? Op::kN : Op::kT);
  }
  return Status::ok();
}

// Every valid (dtype, compute) pair the two lists name; a pair tilekit does not define is an error.
Status parse_types(const TuneOptions& o, std::vector<GemmTypes>* out) {
  std::vector<std::string> dtypes, modes;
  TILEKIT_RETURN_IF_ERROR(split_list(o.dtype, "--dtype", &dtypes));
  if (!o.compute.empty()) TILEKIT_RETURN_IF_ERROR(split_list(o.compute, "--compute", &modes));
  for (const auto& d : dtypes) {
    DType in;
    TILEKIT_RETURN_IF_ERROR(parse_dtype(d, "--dtype", &in));
    std::vector<Compute> computes;
    if (modes.empty()) computes.push_back(in == DType::kF32 ? Compute::kF32 : Compute::kBF16);
    for (const auto& m : modes) {
      Compute c;
      TILEKIT_RETURN_IF_ERROR(parse_compute(m, "--compute", &c));
      computes.push_back(c);
    }
    for (Compute c : computes) {
      const GemmTypes t{in, in, DType::kF32, c};
      if (!validate(t)) continue;  // e.g. bf16 inputs in tf32 mode: not a GEMM tilekit defines
      out->push_back(t);
    }
  }
  if (out->empty())
    return invalid_argument("--dtype/--compute: no valid combination of '" + o.dtype + "' and '" +
                            o.compute + "'");
  return Status::ok();
}

// Whether `k` is one of tilekit's own kernels on `backend` that `globs` name (every one when
// there are no globs).
bool own_and_named(const GemmKernel& k, Backend backend, const std::vector<std::string>& globs) {
  if (k.info.backend != backend || k.info.role != KernelRole::kOwn) return false;
  return globs.empty() || std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
           return glob_match(g, k.info.id);
         });
}

// tilekit's own kernels on the backend implementing `t`; with `globs`, only those they name.
std::vector<const GemmKernel*> own_kernels(Backend backend, const GemmTypes& t,
                                           const std::vector<std::string>& globs) {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.types == t && own_and_named(k, backend, globs)) out.push_back(&k);
  return out;
}

// --kernels (comma-separated globs; empty: none), each naming at least one own kernel of the
// backend (of any of the types).
Status parse_kernel_globs(const std::string& text, Backend backend, std::vector<std::string>* out) {
  out->clear();
  if (text.empty()) return Status::ok();
  TILEKIT_RETURN_IF_ERROR(split_list(text, "--kernels", out));
  const auto& kernels = Registry::instance().gemm_kernels();
  for (const std::string& g : *out) {
    const bool names_one = std::any_of(kernels.begin(), kernels.end(), [&](const GemmKernel& k) {
      return own_and_named(k, backend, {g});
    });
    if (!names_one)
      return invalid_argument("--kernels: '" + g + "' names no own " + backend_name(backend) +
                              " GEMM kernel (`tilekit list` shows them)");
  }
  return Status::ok();
}

// The problem the harness runs for a job (minimal leading dimensions, aligned buffers), for its
// bucket.
GemmProblem job_problem(const TuneJob& j, Layout layout) {
  GemmProblem p;
  p.layout = layout;
  p.op_a = j.op_a;
  p.op_b = j.op_b;
  p.m = j.shape.m;
  p.n = j.shape.n;
  p.k = j.shape.k;
  p.types = j.types;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

std::string ops_name(Op a, Op b) {
  return std::string(a == Op::kN ? "N" : "T") + (b == Op::kN ? "N" : "T");
}

// "NN 4096x4096x4096 f32": a job as the progress lines name it.
std::string job_label(const TuneJob& j) {
  return ops_name(j.op_a, j.op_b) + " " + j.shape.str() + " " + types_tag(j.types);
}

// A listed job as it runs: with its own progress lines and the reference its passes share.
TuneJob running(const TuneJob& listed) {
  TuneJob j = listed;
  j.progress = shape_heartbeat(job_label(j));
  j.references = std::make_shared<bench::ReferenceCache>();
  return j;
}

std::string ms(double s) {
  std::ostringstream o;
  o << std::setprecision(4) << s * 1e3 << " ms";
  return o.str();
}

struct JobResult {
  bool have_winner = false;
  TuneEntry winner;
  int measured = 0, failed = 0;
};

// Run-time k splits measured for kernels that take one (TileDesc::split_k < 0): powers of two
// up to 128 with slices of at least 16 k, and only where C has fewer than 2^24 elements — above
// that the C tiles alone fill the H200 several times over and a split only adds a reduction.
std::vector<int> split_k_choices(const bench::GemmShape& s) {
  std::vector<int> out;
  if (s.m * s.n >= (int64_t{1} << 24)) return out;
  for (int split = 2; split <= 128 && split * 16 <= s.k; split *= 2) out.push_back(split);
  return out;
}

// The tuner samples less than a benchmark: it ranks kernels, and ties within a few per cent
// are ties either way (`tilekit tune --evaluate` measures what that costs).
bench::TimingPolicy tune_timing(double seconds_per_kernel) {
  bench::TimingPolicy t;
  t.warmup = 1;
  t.min_samples = 5;
  t.target_noise = 0.02;
  t.max_time_s = seconds_per_kernel;
  t.min_time_s = std::min(0.01, seconds_per_kernel);
  return t;
}

// Screening: one timed run per candidate after its verification run. Only candidates within
// kScreenKeep of the fastest screened time are measured fully: a kernel 30% slower on one cold
// sample does not win on a median, and the slow early ladder steps then cost two runs a shape.
constexpr double kScreenKeep = 1.3;
// Screened candidates slower than this × the fastest are not recorded at all.
constexpr double kKeepForModel = 3.0;
bench::TimingPolicy screen_timing() {
  bench::TimingPolicy t;
  t.warmup = 0;
  t.min_samples = t.max_samples = 1;
  t.min_time_s = 0;
  return t;
}

Layout layout_of(const TuneOptions& o) {
  return o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
}

// The harness's configuration for one job: its shape, types, ops and layout, no baseline row,
// `kernels` (ids or `auto`, comma-separated), interruptible by Ctrl-C.
bench::GemmBenchConfig job_config(const TuneJob& j, const TuneOptions& o, const Context& ctx,
                                  std::string kernels) {
  bench::GemmBenchConfig cfg;
  cfg.ctx = ctx;
  cfg.shapes = {j.shape};
  cfg.kernels = std::move(kernels);
  cfg.types = j.types;
  cfg.add_baseline = false;
  cfg.layout = layout_of(o);
  cfg.op_a = j.op_a;
  cfg.op_b = j.op_b;
  cfg.seed = o.seed;
  cfg.cancel = SigintGuard::flag();
  cfg.progress = j.progress;
  cfg.references = j.references.get();
  return cfg;
}

// One candidate: a kernel with the GemmProblem::split_k it runs with.
struct Candidate {
  const GemmKernel* kernel = nullptr;
  int split_k = 0;
  double time_s = 0;
};

// One harness pass: `kernels` at the job's shape with GemmProblem::split_k = split_k; appends
// each verified row as a candidate with its median time.
Status run_pass(const TuneJob& j, const TuneOptions& o, const Context& ctx,
                const std::vector<const GemmKernel*>& kernels, int split_k,
                const bench::TimingPolicy& timing, std::vector<Candidate>* timed, JobResult* out) {
  std::string ids;
  for (const GemmKernel* k : kernels) ids += (ids.empty() ? "" : ",") + k->info.id;
  bench::GemmBenchConfig cfg = job_config(j, o, ctx, ids);
  cfg.split_k = split_k;
  cfg.timing = timing;
  std::vector<bench::BenchRow> rows;
  const Status run = bench::run_gemm_bench(cfg, &rows);
  if (!run) return run;  // interrupted: this job's rows are incomplete, so nothing is kept
  for (const auto& r : rows) {
    if (r.outcome == bench::RowOutcome::kFail) ++out->failed;
    if (r.outcome != bench::RowOutcome::kOk) continue;
    if (const GemmKernel* k = Registry::instance().find_gemm(r.kernel))
      timed->push_back({k, takes_run_time_split_k(k->info) ? split_k : 0, r.timing.median_s});
  }
  return Status::ok();
}

// Every candidate screened (each own kernel as it chooses, and the kernels that take a
// run-time split at each split_k_choices() value they run as asked), the close ones measured
// fully; the fastest verified (kernel, split) wins.
Status run_job(const TuneJob& j, const TuneOptions& o, const Context& ctx,
               const std::vector<const GemmKernel*>& candidates, double seconds_per_kernel,
               JobResult* out) {
  std::vector<Candidate> screened;
  const bench::TimingPolicy screen = screen_timing();
  TILEKIT_RETURN_IF_ERROR(run_pass(j, o, ctx, candidates, 0, screen, &screened, out));
  for (int split : split_k_choices(j.shape)) {
    // A kernel that would clamp this split to fewer slices already ran that count.
    std::vector<const GemmKernel*> splitting;
    for (const GemmKernel* k : candidates)
      if (runs_split_as_asked(k->info, split)) splitting.push_back(k);
    if (!splitting.empty())
      TILEKIT_RETURN_IF_ERROR(run_pass(j, o, ctx, splitting, split, screen, &screened, out));
  }
  double fastest = 0;
  for (const Candidate& c : screened)
    if (fastest == 0 || c.time_s < fastest) fastest = c.time_s;
  // The close ones again, one pass per split value, with the tuner's full sampling.
  std::map<int, std::vector<const GemmKernel*>> close_by_split;
  for (const Candidate& c : screened)
    if (c.time_s <= kScreenKeep * fastest) close_by_split[c.split_k].push_back(c.kernel);
  std::vector<Candidate> measured;
  for (const auto& [split, close] : close_by_split)
    TILEKIT_RETURN_IF_ERROR(
        run_pass(j, o, ctx, close, split, tune_timing(seconds_per_kernel), &measured, out));
  out->measured = static_cast<int>(screened.size());
  std::sort(measured.begin(), measured.end(),
            [](const Candidate& x, const Candidate& y) { return x.time_s < y.time_s; });
  for (const Candidate& c : measured)
    out->winner.candidates.push_back({c.kernel->info.id, c.split_k, c.time_s, false});
  // The rest with their screening time, up to kKeepForModel × the fastest: the selector's tile
  // model may find one of them fastest at another shape (a smaller tile where this shape's tiles
  // fill the GPU and that one's do not); rounds of tiles do not make up more than that.
  std::sort(screened.begin(), screened.end(),
            [](const Candidate& x, const Candidate& y) { return x.time_s < y.time_s; });
  for (const Candidate& c : screened) {
    if (c.time_s > kKeepForModel * fastest) break;
    const bool measured_fully = std::any_of(measured.begin(), measured.end(), [&](const Candidate& f) {
      return f.kernel == c.kernel && f.split_k == c.split_k;
    });
    if (!measured_fully) out->winner.candidates.push_back({c.kernel->info.id, c.split_k, c.time_s, true});
  }
  if (!measured.empty()) {  // the fastest, first after the sort
    out->have_winner = true;
    out->winner.kernel = measured.front().kernel->info.id;
    out->winner.time_s = measured.front().time_s;
    out->winner.split_k = measured.front().split_k;
  }
  const GemmProblem p = job_problem(j, layout_of(o));
  out->winner.bucket = bucket_of(p);
  out->winner.m = p.m;
  out->winner.n = p.n;
  out->winner.k = p.k;
  return Status::ok();
}

Status plan_jobs(const TuneOptions& o, Backend backend, std::vector<TuneJob>* jobs) {
  std::vector<bench::GemmShape> shapes;
  const std::string sizes =
      !o.sizes.empty() ? o.sizes : backend == Backend::kCuda ? kGpuTuneSizes : kCpuTuneSizes;
  TILEKIT_RETURN_IF_ERROR(bench::parse_sizes(sizes, &shapes));
  std::vector<std::pair<Op, Op>> ops;
  TILEKIT_RETURN_IF_ERROR(parse_ops(o.ops, &ops));
  std::vector<GemmTypes> types;
  TILEKIT_RETURN_IF_ERROR(parse_types(o, &types));
  std::vector<std::string> globs;
  TILEKIT_RETURN_IF_ERROR(parse_kernel_globs(o.kernels, backend, &globs));
  for (const auto& t : types) {
    const std::vector<const GemmKernel*> candidates = own_kernels(backend, t, globs);
    if (candidates.empty()) {
      std::cerr << "tilekit: note: no own " << backend_name(backend) << " kernel"
                << (o.kernels.empty() ? "" : " that --kernels names") << " implements "
                << describe(t) << "; left out\n";
      continue;
    }
    for (const auto& [a, b] : ops)
      for (const auto& s : shapes) jobs->push_back({t, a, b, s, candidates, {}, {}});
  }
  if (jobs->empty())
    return invalid_argument(std::string("tune: no own kernel") +
                            (o.kernels.empty() ? "" : " that --kernels names") +
                            " implements the requested types");
  return Status::ok();
}

// The cache file for ctx, after saying once why an existing one is ignored.
Status cache_path(const Context& ctx, TuneDeviceKey* key, std::string* path) {
  TILEKIT_RETURN_IF_ERROR(tune_device_key(ctx, key));
  std::string dir;
  TILEKIT_RETURN_IF_ERROR(tune_cache_dir(&dir));
  *path = tune_cache_file(dir, *key);
  return Status::ok();
}

int run_tune(const TuneOptions& o) {
  Context ctx;
  Status s = resolve_context(o.backend, &ctx);
  if (!s) return fail(s);
  std::vector<TuneJob> jobs;
  if (!(s = plan_jobs(o, ctx.backend, &jobs))) return fail(s);
  TuneDeviceKey key;
  std::string path;
  if (!(s = cache_path(ctx, &key, &path))) return fail(s);
  TuneCacheInfo info;
  if (tune_cache_info(ctx, &info) && !info.warning) {
    // An unreadable cache is never replaced: say so before any measuring.
    if (info.warning.code() == StatusCode::kIoError) return fail(info.warning);
    std::cerr << "tilekit: warning: " << info.warning.message() << " (it will be replaced)\n";
  }

  std::optional<SigintGuard> sigint(std::in_place);  // Ctrl-C ends the loop, keeping what finished
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int written = 0, failed = 0, done = 0;
  for (const TuneJob& listed : jobs) {
    const TuneJob j = running(listed);
    if (elapsed() >= o.budget) {
      std::cerr << "tilekit: budget of " << o.budget << " s spent; " << done << " of "
                << jobs.size() << " shape(s) tuned\n";
      break;
    }
    const auto& candidates = j.candidates;
    // The budget left, shared over the jobs left and their candidates; 2 s at most per kernel.
    const double share = (o.budget - elapsed()) / static_cast<double>((jobs.size() - done) * candidates.size());
    JobResult r;
    s = run_job(j, o, ctx, candidates, std::clamp(share / 3, 0.01, 2.0), &r);
    if (!s) break;
    ++done;
    failed += r.failed;
    std::cerr << "[" << done << "/" << jobs.size() << "] " << job_label(j) << ": "
              << (r.have_winner ? r.winner.kernel +
                                      (r.winner.split_k ? " split-k " + std::to_string(r.winner.split_k) : "") +
                                      " " + ms(r.winner.time_s)
                                : "no verified kernel")
              << " (" << r.measured << " measured" << (r.failed ? ", " + std::to_string(r.failed) + " FAILED" : "")
              << ")\n";
    if (!r.have_winner) continue;
    TuneCache add;
    add.key = key;
    add.entries.push_back(r.winner);
    // Written after every shape, so an interrupted run keeps what finished.
    // Some kernels only: their candidates join the shape's entry, the others' stay.
    const TuneMerge how =
        o.kernels.empty() ? TuneMerge::kReplaceEntries : TuneMerge::kAddCandidates;
    if (Status w = merge_tune_cache(path, add, how); !w) {
      s = w;
      break;
    }
    ++written;
  }
  sigint.reset();
  reload_tune_caches();
  if (!s && s.code() != StatusCode::kCancelled) {
    if (written > 0)
      std::cerr << "tilekit: " << path << " keeps the " << written
                << " shape(s) written before the failure\n";
    return fail(s);
  }
  std::cout << "wrote " << written << " entr" << (written == 1 ? "y" : "ies") << " to " << path << "\n";
  if (s.code() == StatusCode::kCancelled) {
    std::cerr << "tilekit: interrupted; kept the " << written << " finished shape(s)\n";
    return kExitInterrupted;
  }
  return failed ? kExitVerify : kExitOk;
}

// A problem of the entry's measured shape and alignment, pointing at nothing that is read:
// selection only looks at shapes, types and addresses.
GemmProblem entry_problem(const TuneEntry& e) {
  alignas(16) static float dummy[8];
  GemmProblem p;
  const TuneBucket& b = e.bucket;
  p.layout = b.layout;
  p.op_a = b.op_a;
  p.op_b = b.op_b;
  p.m = e.m ? e.m : int64_t{1} << b.log2_m;
  p.n = e.n ? e.n : int64_t{1} << b.log2_n;
  p.k = e.k ? e.k : int64_t{1} << b.log2_k;
  p.types = b.types;
  const float* base = b.aligned16 ? dummy : dummy + 1;
  p.a = base;
  p.b = base;
  p.c = const_cast<float*>(base);
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

int run_show(const TuneOptions& o) {
  Context ctx;
  Status s = resolve_context(o.backend, &ctx);
  if (!s) return fail(s);
  TuneDeviceKey key;
  std::string path;
  if (!(s = cache_path(ctx, &key, &path))) return fail(s);
  TuneCache cache;
  bool found = false;
  s = load_tune_cache(path, key, &cache, &found);
  if (!s) std::cerr << "tilekit: warning: " << s.message() << "\n";
  std::cout << "cache: " << path << (found ? "" : " (none yet)") << "\n"
            << "device: " << key.describe() << ", build " << key.build << "\n"
            << "entries: " << cache.entries.size() << "\n";
  for (const TuneEntry& e : cache.entries) {
    const GemmProblem p = entry_problem(e);
    Selection<GemmProblem> chosen;
    Status sel = select_gemm_kernel(p, ctx, false, &chosen);
    std::cout << "  " << e.bucket.describe() << " (" << e.m << "x" << e.n << "x" << e.k
              << "): " << e.kernel << (e.time_s > 0 ? " " + ms(e.time_s) : "")
              << (e.split_k ? " split-k " + std::to_string(e.split_k) : "") << "\n    auto: "
              << (sel ? chosen.kernel->info.id + " — " + chosen.reason : sel.message()) << "\n";
  }
  return kExitOk;
}

// ---- --evaluate: kernel "auto" against the fastest own kernel, shape by shape ----

struct EvalRow {
  TuneJob job;
  std::string auto_kernel, source, best_kernel;
  // The paired timing (auto beside the sweep's closest contenders, in turns): the figures
  // compared. The sweep's own (one block of samples per row): kept for the record.
  double auto_s = 0, best_s = 0;
  double sweep_auto_s = 0, sweep_best_s = 0;
  std::string sweep_best_kernel;
  double select_us = 0;         // select_gemm_kernel's own time per call at this shape, repeated
  double select_search_us = 0;  // the same, searching every call (a new neighbour each)
  double select_explain_us = 0;  // the same, searching and writing the explanation each call
  // Every own kernel's median at this shape (verified rows only), for trying selection models
  // offline against the same measurements.
  std::vector<std::pair<std::string, double>> kernel_times;
  double ratio() const { return best_s > 0 ? auto_s / best_s : 0; }
};

// The job's problem on stand-in operands with the harness's alignment (selection reads shapes,
// types and addresses only).
GemmProblem selection_problem(const TuneJob& j, const TuneOptions& o) {
  TuneEntry e;
  e.bucket = bucket_of(job_problem(j, layout_of(o)));
  e.m = j.shape.m;
  e.n = j.shape.n;
  e.k = j.shape.k;
  return entry_problem(e);
}

// Where auto's decision for the job's problem comes from: "cache", "shipped table", "ranking".
std::string decision_source(const GemmProblem& p, const Context& ctx) {
  Selection<GemmProblem> chosen;
  if (!select_gemm_kernel(p, ctx, false, &chosen)) return "?";
  for (const char* source : {"cache", "shipped table", "ranking"})
    if (chosen.reason.rfind(source, 0) == 0) return source;
  return "?";
}

// What choosing costs gemm() per call (validation, context checks, lookup, the chosen kernel's
// checks): the mean over many calls, in microseconds. Calls at p alone take the thread's
// remembered choice; with `search`, the calls cycle through 2 × kRememberedTunedShapes neighbours
// of p (its largest size 1, 2, … smaller: ld minimums still hold), more than a thread remembers,
// so every call searches the tables afresh. gemm() does not ask for the explanation; with
// `explain` each call writes it too, as `tilekit gemm --explain` does.
double selection_cost_us(const GemmProblem& p, const Context& ctx, bool search, bool explain) {
  constexpr int kCalls = 5000;
  std::vector<GemmProblem> shapes{p};
  if (search) {
    shapes.clear();
    for (int64_t d = 1; d <= static_cast<int64_t>(2 * kRememberedTunedShapes); ++d) {
      GemmProblem q = p;
      int64_t& largest = q.m >= q.n && q.m >= q.k ? q.m : q.n >= q.k ? q.n : q.k;
      largest = std::max<int64_t>(1, largest - d);
      shapes.push_back(q);
    }
  }
  Selection<GemmProblem> chosen;
  (void)select_gemm_kernel(p, ctx, false, &chosen);  // loads the cache and tables first
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i)
    (void)select_gemm_kernel(shapes[static_cast<size_t>(i) % shapes.size()], ctx, false, &chosen,
                             explain);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
             .count() / kCalls;
}

// The paired timing: the sweep times each row in one block of samples, and the same kernel
// differs by up to 9% between two such blocks on the H200 (bf16 216³: 8.0 and 7.2 µs), as much
// as the choices differ. So auto is timed again beside the own kernels within kContenderWithin
// of the sweep's fastest (at most kContenders, fastest first), in kPairedRounds turns each, and
// its ratio is its paired median over the least paired median of those kernels.
constexpr double kContenderWithin = 1.10;
constexpr size_t kContenders = 4;
constexpr int kPairedRounds = 8;

Status time_paired(const TuneJob& j, const TuneOptions& o, const Context& ctx, EvalRow* out,
                   int* failed) {
  std::vector<std::pair<std::string, double>> close;
  for (const auto& kt : out->kernel_times)
    if (kt.second <= kContenderWithin * out->sweep_best_s) close.push_back(kt);
  std::sort(close.begin(), close.end(),
            [](const auto& x, const auto& y) { return x.second < y.second; });
  if (close.size() > kContenders) close.resize(kContenders);
  std::string ids;
  for (const auto& kt : close) ids += kt.first + ",";
  bench::GemmBenchConfig cfg = job_config(j, o, ctx, ids + "auto");
  cfg.rounds = kPairedRounds;
  cfg.timing.min_samples = 3 * kPairedRounds;
  cfg.timing.max_time_s = 1.0;
  std::vector<bench::BenchRow> rows;
  TILEKIT_RETURN_IF_ERROR(bench::run_gemm_bench(cfg, &rows));
  out->best_s = 0;
  for (const auto& r : rows) {
    if (r.outcome == bench::RowOutcome::kFail) ++*failed;
    if (r.outcome != bench::RowOutcome::kOk) continue;
    if (r.kernel == "auto") {
      out->auto_s = r.timing.median_s;
    } else if (out->best_s == 0 || r.timing.median_s < out->best_s) {
      out->best_s = r.timing.median_s;
      out->best_kernel = r.kernel;
    }
  }
  return Status::ok();
}

// Every own kernel and the auto row, with the benchmark's own sampling, at one shape; then auto
// paired with the closest of them (time_paired).
Status evaluate_job(const TuneJob& j, const TuneOptions& o, const Context& ctx, EvalRow* out,
                    int* failed) {
  std::string ids;
  for (const GemmKernel* k : j.candidates) ids += k->info.id + ",";  // every own kernel
  bench::GemmBenchConfig cfg = job_config(j, o, ctx, ids + "auto");
  // Fewer samples than a benchmark (at least 5, median, L2 flushed), and at most 0.5 s a kernel:
  // the slow early ladder steps are never the fastest, and 48 shapes × 27 kernels must fit a run.
  cfg.timing.min_samples = 5;
  cfg.timing.max_time_s = 0.5;
  std::vector<bench::BenchRow> rows;
  TILEKIT_RETURN_IF_ERROR(bench::run_gemm_bench(cfg, &rows));
  out->job = j;
  for (const auto& r : rows) {
    if (r.outcome == bench::RowOutcome::kFail) ++*failed;
    if (r.outcome != bench::RowOutcome::kOk) continue;
    if (r.kernel == "auto") {
      out->sweep_auto_s = r.timing.median_s;
      out->auto_kernel = r.resolved;
      const auto split = r.detail.find("(split-k ");
      if (split != std::string::npos) out->auto_kernel += " " + r.detail.substr(split);
    } else {
      out->kernel_times.emplace_back(r.kernel, r.timing.median_s);
      if (out->sweep_best_s == 0 || r.timing.median_s < out->sweep_best_s) {
        out->sweep_best_s = r.timing.median_s;
        out->sweep_best_kernel = r.kernel;
      }
    }
  }
  if (out->sweep_auto_s > 0 && out->sweep_best_s > 0)
    TILEKIT_RETURN_IF_ERROR(time_paired(j, o, ctx, out, failed));
  const GemmProblem p = selection_problem(j, o);
  out->source = decision_source(p, ctx);
  out->select_us = selection_cost_us(p, ctx, false, false);
  out->select_search_us = selection_cost_us(p, ctx, true, false);
  out->select_explain_us = selection_cost_us(p, ctx, true, true);
  return Status::ok();
}

// Per type: how many shapes auto runs within 1.05× of the fastest own kernel, and the worst.
void print_evaluation_summary(const std::vector<EvalRow>& rows) {
  std::vector<std::string> tags;
  for (const auto& r : rows)
    if (std::find(tags.begin(), tags.end(), types_tag(r.job.types)) == tags.end())
      tags.push_back(types_tag(r.job.types));
  for (const auto& tag : tags) {
    int shapes = 0, within = 0, within13 = 0;
    double select_max = 0, search_max = 0, explain_max = 0;
    const EvalRow* worst = nullptr;
    for (const auto& r : rows) {
      if (types_tag(r.job.types) != tag || r.auto_s <= 0 || r.best_s <= 0) continue;
      ++shapes;
      select_max = std::max(select_max, r.select_us);
      search_max = std::max(search_max, r.select_search_us);
      explain_max = std::max(explain_max, r.select_explain_us);
      within += r.ratio() <= 1.05;
      within13 += r.ratio() <= 1.3;
      if (!worst || r.ratio() > worst->ratio()) worst = &r;
    }
    if (!worst) continue;
    std::cout << tag << ": " << shapes << " shapes; auto within 1.05x of the fastest own kernel on "
              << within << " (" << std::fixed << std::setprecision(1) << 100.0 * within / shapes
              << "%), within 1.3x on " << within13 << "; worst " << std::setprecision(3)
              << worst->ratio() << "x at " << ops_name(worst->job.op_a, worst->job.op_b) << " "
              << worst->job.shape.str() << "; selection at most " << std::setprecision(2)
              << select_max << " us per call (" << search_max << " us when it searches, "
              << explain_max << " us searching with the explanation)\n";
    std::cout.unsetf(std::ios::fixed);
  }
}

Status write_evaluation_json(const std::string& path, const std::vector<EvalRow>& rows) {
  nlohmann::json out = {{"command", command_line()}, {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) {
    nlohmann::json times = nlohmann::json::object();
    for (const auto& [kernel, seconds] : r.kernel_times) times[kernel] = seconds;
    out["rows"].push_back({{"ops", ops_name(r.job.op_a, r.job.op_b)},
                           {"m", r.job.shape.m}, {"n", r.job.shape.n}, {"k", r.job.shape.k},
                           {"types", types_tag(r.job.types)}, {"auto_kernel", r.auto_kernel},
                           {"source", r.source}, {"auto_s", r.auto_s},
                           {"best_kernel", r.best_kernel}, {"best_s", r.best_s},
                           {"ratio", r.ratio()}, {"sweep_auto_s", r.sweep_auto_s},
                           {"sweep_best_kernel", r.sweep_best_kernel},
                           {"sweep_best_s", r.sweep_best_s}, {"select_us", r.select_us},
                           {"select_search_us", r.select_search_us},
                           {"select_explain_us", r.select_explain_us},
                           {"kernel_times_s", times}});
  }
  return bench::write_file_atomically(path, out.dump(1) + "\n");
}

int run_evaluate(const TuneOptions& o) {
  Context ctx;
  Status s = resolve_context(o.backend, &ctx);
  if (!s) return fail(s);
  std::vector<TuneJob> jobs;
  if (!(s = plan_jobs(o, ctx.backend, &jobs))) return fail(s);
  TuneCacheInfo info;
  if (tune_cache_info(ctx, &info) && !info.warning)
    std::cerr << "tilekit: warning: " << info.warning.message() << "\n";
  std::optional<SigintGuard> sigint(std::in_place);  // Ctrl-C ends the loop, keeping its rows
  std::vector<EvalRow> rows;
  int failed = 0;
  for (const TuneJob& listed : jobs) {
    const TuneJob j = running(listed);
    EvalRow r;
    s = evaluate_job(j, o, ctx, &r, &failed);
    if (!s) break;
    rows.push_back(r);
    std::cerr << "[" << rows.size() << "/" << jobs.size() << "] " << job_label(j) << ": auto "
              << r.auto_kernel << " ("
              << r.source << ") " << ms(r.auto_s) << ", fastest " << r.best_kernel << " "
              << ms(r.best_s) << ", x" << std::setprecision(3) << r.ratio() << " paired (x"
              << (r.sweep_best_s > 0 ? r.sweep_auto_s / r.sweep_best_s : 0)
              << " in the sweep); selection "
              << r.select_us << " us (" << r.select_search_us << " us searching, "
              << r.select_explain_us << " us explaining)\n";
  }
  sigint.reset();
  std::cout << "ops  shape  types  auto (source)  auto ms  fastest own  fastest ms  ratio\n";
  for (const auto& r : rows)
    std::cout << ops_name(r.job.op_a, r.job.op_b) << "  " << r.job.shape.str() << "  "
              << types_tag(r.job.types) << "  " << r.auto_kernel << " (" << r.source << ")  "
              << std::setprecision(4) << r.auto_s * 1e3 << "  " << r.best_kernel << "  "
              << r.best_s * 1e3 << "  " << std::setprecision(3) << r.ratio() << "\n";
  print_evaluation_summary(rows);
  if (!o.json.empty())
    if (Status w = write_evaluation_json(o.json, rows); !w) return fail(w);
  if (s.code() == StatusCode::kCancelled) return kExitInterrupted;
  if (!s) return fail(s);
  return failed ? kExitVerify : kExitOk;
}


// ---- --replay: auto's selection scored offline on a table's own measurements ----

// --types: `a` or `a:compute`, comma-separated (f32, bf16, f32:tf32, f32:f32_3xtf32); `a` alone
// is the mode `tune` gives those inputs (f32 for f32, bf16 for 16-bit ones). C is f32.
Status parse_replay_types(const std::string& text, std::vector<GemmTypes>* out) {
  std::vector<std::string> items;
  TILEKIT_RETURN_IF_ERROR(split_list(text, "--types", &items));
  for (const std::string& item : items) {
    const size_t colon = item.find(':');
    DType in;
    TILEKIT_RETURN_IF_ERROR(parse_dtype(item.substr(0, colon), "--types", &in));
    Compute c = in == DType::kF32 ? Compute::kF32 : Compute::kBF16;
    if (colon != std::string::npos)
      TILEKIT_RETURN_IF_ERROR(parse_compute(item.substr(colon + 1), "--types", &c));
    const GemmTypes t{in, in, DType::kF32, c};
    if (Status v = validate(t); !v)
      return invalid_argument("--types: '" + item + "' is not a GEMM tilekit defines (" +
                              v.message() + ")");
    if (std::find(out->begin(), out->end(), t) == out->end()) out->push_back(t);
  }
  return Status::ok();
}

// The rows of a `tilekit tune --evaluate --json` file whose types are among `types` (the others
// are counted in *other_types): each row's ops, shape and every kernel's sweep median.
Status read_evaluation_rows(const std::string& path, const std::vector<GemmTypes>& types,
                            std::vector<ReplayShape>* out, size_t* other_types) {
  std::string text;
  TILEKIT_RETURN_IF_ERROR(bench::read_text_file(path, "--evaluate-json: file", &text));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return invalid_argument("--evaluate-json: " + path + ": " + why);
  };
  if (j.is_discarded()) return bad("not valid JSON (corrupt or truncated)");
  if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array())
    return bad("not the JSON of `tilekit tune --evaluate --json` (no \"rows\" array)");
  size_t number = 0;
  for (const nlohmann::json& r : j["rows"]) {
    const std::string row = "row " + std::to_string(++number) + ": ";
    if (!r.is_object()) return bad(row + "not an object");
    for (const char* field : {"m", "n", "k"})
      if (!r.contains(field) || !r[field].is_number_integer() || r[field].get<int64_t>() < 1)
        return bad(row + "\"" + field + "\" is missing or not a size");
    if (!r.contains("ops") || !r["ops"].is_string()) return bad(row + "\"ops\" is missing");
    const std::string ops = r["ops"].get<std::string>();
    if (ops.size() != 2 || (ops[0] != 'N' && ops[0] != 'T') || (ops[1] != 'N' && ops[1] != 'T'))
      return bad(row + "\"ops\" is '" + ops + "', not one of NN, NT, TN, TT");
    if (!r.contains("types") || !r["types"].is_string()) return bad(row + "\"types\" is missing");
    if (!r.contains("kernel_times_s") || !r["kernel_times_s"].is_object())
      return bad(row + "\"kernel_times_s\" is missing or not an object");
    ReplayShape s;
    for (const auto& [kernel, seconds] : r["kernel_times_s"].items()) {
      if (!seconds.is_number()) return bad(row + "the time of " + kernel + " is not a number");
      s.kernel_times.emplace_back(kernel, seconds.get<double>());
    }
    const std::string tag = r["types"].get<std::string>();
    const auto t = std::find_if(types.begin(), types.end(),
                                [&](const GemmTypes& x) { return types_tag(x) == tag; });
    if (t == types.end()) {
      ++*other_types;
      continue;
    }
    s.types = *t;
    s.op_a = ops[0] == 'N' ? Op::kN : Op::kT;
    s.op_b = ops[1] == 'N' ? Op::kN : Op::kT;
    s.m = r["m"].get<int64_t>();
    s.n = r["n"].get<int64_t>();
    s.k = r["k"].get<int64_t>();
    out->push_back(std::move(s));
  }
  return Status::ok();
}

// 4800, 4915.2: a bandwidth as the header line gives it.
std::string number_text(double x) {
  std::ostringstream o;
  o << std::setprecision(5) << x;
  return o.str();
}

// "f32 leave-one-out   260 shapes  within 1.05x  181 (69.6%)  above 1.3x  29  geomean 1.156"
void print_replay_line(const std::string& label, const ReplayScores& scores, const char* what) {
  const ReplaySummary s = summarize_replay(scores.ratios);
  char line[256];
  if (s.shapes == 0)
    std::snprintf(line, sizeof line, "%-34s    0 shapes%s", label.c_str(),
                  scores.unscored == 0 ? " (none of these types)" : "");
  else
    std::snprintf(line, sizeof line,
                  "%-34s %4zu shapes  within 1.05x %4zu (%5.1f%%)  above 1.3x %3zu  geomean %.3f",
                  label.c_str(), s.shapes, s.within_1_05,
                  100.0 * static_cast<double>(s.within_1_05) / static_cast<double>(s.shapes),
                  s.above_1_3, s.geomean);
  std::cout << line;
  if (scores.unscored > 0)
    std::cout << "  (" << scores.unscored << " " << what << " of no kernel in this build left out)";
  std::cout << "\n";
}

int run_replay(const TuneOptions& o) {
  std::string text;
  Status s = bench::read_text_file(o.replay, "--replay: tune table", &text);
  if (!s) return fail(s);
  TuneCache table;
  if (!(s = parse_tune_cache(text, &table)))
    return fail(invalid_argument("--replay: " + o.replay + ": " + s.message()));
  std::vector<GemmTypes> types;
  if (!o.types.empty()) {
    if (!(s = parse_replay_types(o.types, &types))) return fail(s);
  } else {
    for (const TuneEntry& e : table.entries)
      if (std::find(types.begin(), types.end(), e.bucket.types) == types.end())
        types.push_back(e.bucket.types);
  }
  ReplayDevice device;
  if (!(s = replay_device(table.key, o.dram_gbps, &device)))
    return fail(invalid_argument("--replay: " + o.replay + ": " + s.message()));
  std::string blocks = table.key.backend == "cpu"
                           ? "the CPU backend's (the tile model's defaults, as auto has them there)"
                           : std::to_string(table.key.sm_count) +
                                 " SMs (the record's), 1 block per SM for every kernel (no GPU "
                                 "occupancy), DRAM " + number_text(o.dram_gbps) +
                                 " GB/s";
  if (o.gpu_occupancy) {
    DeviceInfo gpu;
    if (table.key.backend != "cuda")
      return fail(invalid_argument("--gpu-occupancy: " + o.replay + " is a CPU table"));
    if (cuda_device_count() == 0 || !query_device(0, &gpu))
      return fail(not_supported(std::string("--gpu-occupancy: no GPU") +
                                (built_with_cuda() ? "" : " (a build without the CUDA backend)")));
    if (gpu.sm_version() != table.key.compute_capability)
      return fail(not_supported("--gpu-occupancy: GPU 0 (" + gpu.name + ") is sm_" +
                                std::to_string(gpu.sm_version()) + ", the table's device sm_" +
                                std::to_string(table.key.compute_capability)));
    gpu.sm_count = table.key.sm_count;
    auto seen = std::make_shared<std::map<const GemmKernel*, TileModelDevice>>();
    device.model_device = [gpu, seen](const GemmKernel& k) {
      auto it = seen->find(&k);
      if (it == seen->end()) it = seen->emplace(&k, tile_model_device(k, &gpu)).first;
      return it->second;
    };
    blocks = std::to_string(table.key.sm_count) + " SMs (the record's), blocks per SM and DRAM " +
             number_text(gpu.peak_dram_gbps()) + " GB/s as the selector has them on " +
             "GPU 0 (" + gpu.name + ")";
  }
  std::vector<ReplayShape> rows;
  size_t other_types = 0;
  for (const std::string& path : o.evaluate_json)
    if (!(s = read_evaluation_rows(path, types, &rows, &other_types))) return fail(s);
  // The table as auto reads it: 3xTF32 entries with their shapes' f32 candidates. Candidates
  // whose kernels this build lacks are left out, as auto leaves them.
  add_f32_candidates_to_3xtf32(&table.entries);
  const KernelList<GemmKernel>& list = Registry::instance().gemm;
  size_t named = 0, registered = 0, entries = 0;
  for (const TuneEntry& e : table.entries) {
    if (std::find(types.begin(), types.end(), e.bucket.types) == types.end()) continue;
    ++entries;
    for (const TuneCandidate& c : e.candidates) {
      ++named;
      registered += list.find(c.kernel) != nullptr;
    }
  }
  if (named > 0 && registered == 0)
    return fail(not_supported(
        "--replay: no kernel that " + o.replay + "'s entries name is registered in this build" +
        (table.key.backend == "cuda" && !built_with_cuda()
             ? " (a build without the CUDA backend has no CUDA kernel)"
             : "")));
  if (registered < named)
    std::cerr << "tilekit: note: " << named - registered << " of " << named
              << " candidates name kernels this build does not register; left out, as auto "
                 "leaves them\n";
  if (other_types > 0)
    std::cerr << "tilekit: note: " << other_types
              << " evaluation rows of other types than those replayed left out\n";
  std::cout << "table: " << o.replay << ", " << entries << " of " << table.entries.size()
            << " entries, made on " << table.key.describe() << " by build " << table.key.build
            << "\nmodel: " << blocks << "\n";
  for (const GemmTypes& t : types) {
    const std::string tag = types_tag(t);
    print_replay_line(tag + " leave-one-out", replay_leave_one_out(table.entries, t, list, device),
                      "entries with times");
    if (o.evaluate_json.empty()) continue;
    std::vector<ReplayShape> of_type;
    for (const ReplayShape& r : rows)
      if (r.types == t) of_type.push_back(r);
    print_replay_line(tag + " evaluation (sweep)",
                      replay_shapes(table.entries, of_type, list, device), "rows with times");
  }
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Measure every own GEMM kernel per shape and keep the fastest in the device's tune cache");
  cmd->add_option("--sizes", o->sizes, "shapes: 1024,4096 | 256:2048:256 | 512x256x128 (default: "
                  + std::string(kCpuTuneSizes) + " on the CPU, " + kGpuTuneSizes + " on a GPU)")
      ->check(non_empty());
  cmd->add_option("--ops", o->ops, "ops of A and B, comma-separated: NN,NT,TN,TT")
      ->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "storage types of A and B, comma-separated: f32,bf16,f16")
      ->capture_default_str();
  cmd->add_option("--compute", o->compute,
                  "compute modes, comma-separated: f32,f32_3xtf32,tf32,bf16 (default: f32 for f32 "
                  "inputs, bf16 for 16-bit ones)");
  cmd->add_option("--layout", o->layout, "row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "seconds for the whole run; shapes not reached are left out")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the random inputs")
      ->transform(unsigned_value())
      ->capture_default_str();
  cmd->add_flag("--show", o->show, "print the cache's entries and what auto chooses for each");
  cmd->add_flag("--evaluate", o->evaluate,
                "write nothing: time auto against every own kernel at each shape and print how "
                "close it comes to the fastest");
  cmd->add_option("--json", o->json, "--evaluate: also write the rows as JSON")
      ->check(output_path());
  cmd->add_option("--kernels", o->kernels,
                  "globs on own kernel ids, comma-separated: measure only these; their candidates "
                  "join each shape's cache entry, the other kernels' stay (default: every own "
                  "kernel, and each shape's entry is replaced)")
      ->check(non_empty());
  CLI::Option* replay = cmd->add_option(
      "--replay", o->replay,
      "write nothing: score auto's selection offline on this tune table (a cache or a shipped "
      "table, read only) by leave-one-out: each entry chosen for by the selector's own code "
      "from the other entries of its class, at its shape, scored against the fastest candidate it "
      "measured (a choice it did not measure counts 3x). Prints per type: shapes, how many "
      "within 1.05x of the fastest, how many above 1.3x, the geometric mean. The device is the "
      "table's record: its SMs, and 1 block per SM for every kernel, as the selector counts "
      "where a kernel's resources are not visible (no GPU): exact for kernels that fit one "
      "block per SM (the sm90 family), not for the SIMT kernels, which fit several, so f32 "
      "figures are indicative (--gpu-occupancy). Needs a build that registers the table's "
      "kernels (a CUDA table: the CUDA backend; no GPU)")
      ->check(non_empty());
  cmd->add_option("--types", o->types,
                  "--replay: the types to score, comma-separated: f32, bf16, f32:tf32, "
                  "f32:f32_3xtf32 (a or a:compute; default: every type of the table)")
      ->needs(replay)
      ->check(non_empty());
  cmd->add_option("--evaluate-json", o->evaluate_json,
                  "--replay: also choose over the whole table at the shapes of these `tune "
                  "--evaluate --json` files (taken as row-major, 16-byte aligned, least ld: the "
                  "files do not record them) and score each by its row's sweep medians")
      ->needs(replay);
  cmd->add_option("--dram-gbps", o->dram_gbps,
                  "--replay: the DRAM bandwidth of the table's device in GB/s, which its record "
                  "lacks (the model streams split-K reductions at 3/4 of it)")
      ->needs(replay)
      ->check(positive())
      ->capture_default_str();
  cmd->add_flag("--gpu-occupancy", o->gpu_occupancy,
                "--replay: blocks per SM and DRAM bandwidth as the selector has them on GPU 0 "
                "(which must be of the table's compute capability), not 1 and --dram-gbps")
      ->needs(replay);
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] {
    if (!o->kernels.empty() && (o->show || o->evaluate)) {
      *exit_code =
          fail(invalid_argument("--kernels: only for a tuning run, not with --show or --evaluate"));
      return;
    }
    if (!o->replay.empty() && (o->show || o->evaluate || !o->kernels.empty() || !o->json.empty())) {
      *exit_code = fail(invalid_argument(
          "--replay: scores a table offline; not with --show, --evaluate, --kernels or --json"));
      return;
    }
    *exit_code = !o->replay.empty() ? run_replay(*o)
                 : o->show          ? run_show(*o)
                 : o->evaluate      ? run_evaluate(*o)
                                    : run_tune(*o);
  });
}

}  // namespace tilekit::cli
