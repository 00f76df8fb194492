// cmd_tune.cpp — `tilekit tune`: measure every own GEMM kernel per shape, keep the winners in the
// device's tune cache (docs/tuning.md); `--show` prints the cache and what auto would choose.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "gemm_bench.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit::cli {
namespace {

std::atomic<bool> g_tune_interrupted{false};
extern "C" void on_tune_sigint(int) { g_tune_interrupted.store(true); }

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
  uint64_t seed = 20261122;
  BackendOptions backend;
};

// One (types, ops) pass over the shapes.
struct TuneJob {
  GemmTypes types;
  Op op_a = Op::kN, op_b = Op::kN;
  bench::GemmShape shape;
};

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

// tilekit's own kernels on the backend implementing `t`, as an exact-id list for the harness.
std::vector<const GemmKernel*> own_kernels(Backend backend, const GemmTypes& t) {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == backend && k.info.role == KernelRole::kOwn && k.info.types == t)
      out.push_back(&k);
  return out;
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

// Verified-then-timed rows of every candidate; the fastest verified one wins.
Status run_job(const TuneJob& j, const TuneOptions& o, const Context& ctx,
               const std::vector<const GemmKernel*>& candidates, double seconds_per_kernel,
               JobResult* out) {
  bench::GemmBenchConfig cfg;
  cfg.ctx = ctx;
  cfg.shapes = {j.shape};
  for (const GemmKernel* k : candidates) cfg.kernels += (cfg.kernels.empty() ? "" : ",") + k->info.id;
  cfg.types = j.types;
  cfg.add_baseline = false;
  cfg.layout = o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
  cfg.op_a = j.op_a;
  cfg.op_b = j.op_b;
  cfg.seed = o.seed;
  cfg.timing.max_time_s = seconds_per_kernel;
  cfg.timing.min_time_s = std::min(cfg.timing.min_time_s, seconds_per_kernel);
  cfg.cancel = &g_tune_interrupted;
  std::vector<bench::BenchRow> rows;
  const Status run = bench::run_gemm_bench(cfg, &rows);
  if (!run) return run;  // interrupted: this job's rows are incomplete, so nothing is kept
  for (const auto& r : rows) {
    if (r.outcome == bench::RowOutcome::kFail) ++out->failed;
    if (r.outcome != bench::RowOutcome::kOk) continue;
    ++out->measured;
    if (out->have_winner && r.timing.median_s >= out->winner.time_s) continue;
    const GemmKernel* k = Registry::instance().find_gemm(r.kernel);
    if (!k) continue;
    out->have_winner = true;
    out->winner.kernel = r.kernel;
    out->winner.time_s = r.timing.median_s;
    out->winner.split_k = k->info.tiling.split_k > 1 ? k->info.tiling.split_k : 0;
  }
  const GemmProblem p = job_problem(j, cfg.layout);
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
  for (const auto& t : types) {
    if (own_kernels(backend, t).empty()) {
      std::cerr << "tilekit: note: no own " << backend_name(backend) << " kernel implements "
                << describe(t) << "; left out\n";
      continue;
    }
    for (const auto& [a, b] : ops)
      for (const auto& s : shapes) jobs->push_back({t, a, b, s});
  }
  if (jobs->empty()) return invalid_argument("tune: no own kernel implements the requested types");
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
  if (tune_cache_info(ctx, &info) && !info.warning)
    std::cerr << "tilekit: warning: " << info.warning.message() << " (it will be replaced)\n";

  g_tune_interrupted.store(false);
  auto previous = std::signal(SIGINT, on_tune_sigint);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int written = 0, failed = 0, done = 0;
  for (const TuneJob& j : jobs) {
    if (elapsed() >= o.budget) {
      std::cerr << "tilekit: budget of " << o.budget << " s spent; " << done << " of "
                << jobs.size() << " shape(s) tuned\n";
      break;
    }
    const auto candidates = own_kernels(ctx.backend, j.types);
    // The budget left, shared over the jobs left and their candidates; 2 s at most per kernel.
    const double share = (o.budget - elapsed()) / static_cast<double>((jobs.size() - done) * candidates.size());
    JobResult r;
    s = run_job(j, o, ctx, candidates, std::clamp(share / 3, 0.01, 2.0), &r);
    if (!s) break;
    ++done;
    failed += r.failed;
    std::cerr << "[" << done << "/" << jobs.size() << "] " << ops_name(j.op_a, j.op_b) << " "
              << j.shape.str() << " " << types_tag(j.types) << ": "
              << (r.have_winner ? r.winner.kernel + " " + ms(r.winner.time_s) : "no verified kernel")
              << " (" << r.measured << " measured" << (r.failed ? ", " + std::to_string(r.failed) + " FAILED" : "")
              << ")\n";
    if (!r.have_winner) continue;
    TuneCache add;
    add.key = key;
    add.entries.push_back(r.winner);
    // Written after every shape, so an interrupted run keeps what finished.
    if (Status w = merge_tune_cache(path, add); !w) {
      s = w;
      break;
    }
    ++written;
  }
  std::signal(SIGINT, previous);
  reload_tune_caches();
  std::cout << "wrote " << written << " entr" << (written == 1 ? "y" : "ies") << " to " << path << "\n";
  if (s.code() == StatusCode::kCancelled) {
    std::cerr << "tilekit: interrupted; kept the " << written << " finished shape(s)\n";
    return kExitInterrupted;
  }
  if (!s) return fail(s);
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
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = o->show ? run_show(*o) : run_tune(*o); });
}

}  // namespace tilekit::cli
