// cmd_bench.cpp — `tilekit bench gemm`: kernels × sizes, verified, timed, in one table.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <iostream>

#include "cli_common.hpp"
#include "gemm_bench.hpp"
#include "report.hpp"

namespace tilekit::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

struct BenchGemmOptions {
  std::string sizes;  // empty: a default set for the backend
  std::string kernels;
  std::string csv, json;
  std::string layout = "row";
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 20261122;
  bool no_baseline = false;
  bool no_flush = false;
  int min_samples = 10;
  double max_time = 2.0;
  BackendOptions backend;
};

int run_bench_gemm(const BenchGemmOptions& o) {
  bench::GemmBenchConfig cfg;
  Status s = resolve_context(o.backend, &cfg.ctx);
  if (!s) return fail(s);
  const bool gpu = cfg.ctx.backend == Backend::kCuda;
  const std::string sizes = !o.sizes.empty() ? o.sizes : gpu ? "1024,2048,4096" : "256,512,1024";
  if (!(s = bench::parse_sizes(sizes, &cfg.shapes))) return fail(s);
  cfg.kernels = o.kernels;
  cfg.add_baseline = !o.no_baseline;
  cfg.layout = o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
  cfg.op_a = o.trans_a ? Op::kT : Op::kN;
  cfg.op_b = o.trans_b ? Op::kT : Op::kN;
  cfg.alpha = o.alpha;
  cfg.beta = o.beta;
  cfg.seed = o.seed;
  cfg.timing.flush_l2 = !o.no_flush;
  cfg.timing.min_samples = o.min_samples;
  cfg.timing.max_time_s = o.max_time;

  // Progress on stderr once the sweep has run a few seconds; overwritten in place on a terminal.
  const auto start = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDERR_FILENO);
  bool printed = false;
  cfg.progress = [&](int done, int total, const std::string& what) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed < 3.0) return;
    std::cerr << (tty ? "\r\033[K" : "") << "[" << done << "/" << total << ", "
              << static_cast<int>(elapsed) << " s] " << what << (tty ? "" : "\n") << std::flush;
    printed = true;
  };
  g_interrupted.store(false);
  cfg.cancel = &g_interrupted;
  auto previous = std::signal(SIGINT, on_sigint);

  std::vector<bench::BenchRow> rows;
  Status run = bench::run_gemm_bench(cfg, &rows);
  std::signal(SIGINT, previous);
  if (printed && tty) std::cerr << "\r\033[K" << std::flush;
  if (run.code() == StatusCode::kInvalidArgument || run.code() == StatusCode::kNotSupported) {
    if (rows.empty()) return fail(run);
  }

  const std::string baseline = bench::baseline_kernel_id(cfg.ctx.backend);
  bench::print_gemm_table(std::cout, rows, baseline);
  const bench::Environment env = bench::describe_environment(
      cfg.ctx, command_line(),
      gpu ? (o.no_flush ? "cuda-events, warm L2" : "cuda-events, L2 flushed") : "steady_clock");
  std::cout << "device: " << env.device;
  if (gpu)
    std::cout << " (cc " << env.compute_capability << ", " << env.sm_count << " SMs, max "
              << env.sm_clock_mhz << " MHz), CUDA " << env.cuda_runtime << ", cuBLAS "
              << env.cublas;
  else
    std::cout << ", " << env.cpu_threads << " threads, " << env.openblas;
  std::cout << "\n";

  if (!o.csv.empty() && !(s = bench::write_gemm_csv(o.csv, rows, env))) return fail(s);
  if (!o.json.empty() && !(s = bench::write_gemm_json(o.json, rows, env))) return fail(s);

  if (run.code() == StatusCode::kCancelled) {
    std::cerr << "tilekit: interrupted; kept the " << rows.size() << " finished row(s)\n";
    return kExitInterrupted;
  }
  if (!run) return fail(run);
  for (const auto& r : rows)
    if (r.outcome == "FAIL") return kExitVerify;
  for (const auto& r : rows)
    if (r.outcome == "error") return kExitRuntime;
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, int* exit_code) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmark kernels beside the vendor baselines");
  bench->require_subcommand(1);
  auto o = std::make_shared<BenchGemmOptions>();
  CLI::App* cmd = bench->add_subcommand("gemm", "Benchmark GEMM kernels over a set of sizes");
  cmd->add_option("--sizes", o->sizes,
                  "list '1024,4096', range '256:2048:64' (stop included), or 'MxNxK' triples; "
                  "default 1024,2048,4096 on a GPU, 256,512,1024 on the CPU");
  cmd->add_option("--kernels", o->kernels,
                  "glob on kernel ids, e.g. 'gemm.cuda.cublas*' (default: every kernel of the "
                  "backend except the slow reference)");
  cmd->add_option("--csv", o->csv, "also write the rows as CSV");
  cmd->add_option("--json", o->json, "also write the rows as JSON");
  cmd->add_option("--layout", o->layout, "row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_flag("--trans-a", o->trans_a, "use Aᵀ");
  cmd->add_flag("--trans-b", o->trans_b, "use Bᵀ");
  cmd->add_option("--alpha", o->alpha, "alpha")->capture_default_str();
  cmd->add_option("--beta", o->beta, "beta (nonzero adds 3mn to the FLOP count)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  cmd->add_flag("--no-baseline", o->no_baseline,
                "do not add the backend's baseline (cuBLAS / OpenBLAS) when --kernels leaves it out");
  cmd->add_flag("--no-flush", o->no_flush, "GPU: keep L2 warm between samples");
  cmd->add_option("--min-samples", o->min_samples, "samples at least")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--max-time", o->max_time, "seconds of samples at most, per kernel and size")
      ->check(positive())
      ->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_bench_gemm(*o); });
}

}  // namespace tilekit::cli
