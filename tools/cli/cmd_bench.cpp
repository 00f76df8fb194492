// cmd_bench.cpp — `tilekit bench gemm`: kernels × sizes, verified, timed, in one table; and
// `tilekit bench --suite NAME`: a suite of such runs (bench/suites) into one JSON record.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>

#include "cli_common.hpp"
#include "core/output_file.hpp"
#include "gemm_bench.hpp"
#include "gemm_dist_bench.hpp"
#include "memory_bench.hpp"
#include "report_runner.hpp"
#include "report.hpp"
#include "suite.hpp"
#include "suite_markdown.hpp"
#include "sweep_session.hpp"

namespace tilekit::cli {
namespace {

// Default sizes. The CPU set is what a 2-core machine finishes in well under a minute, including
// the double-precision reference each size is verified against (at 2048 that alone takes about
// two minutes there).
constexpr const char* kGpuGemmSizes = "1024,2048,4096";
constexpr const char* kCpuGemmSizes = "256,512,1024";

struct BenchOptions {
  std::string sizes;  // empty: a default set for the backend
  std::string kernels;
  std::string dtype = "f32", compute;  // gemm: storage of A and B, compute mode
  bool allow_vendor = false;           // gemm: the auto row may choose vendor kernels
  std::string csv, json;
  std::string layout = "row";
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 20261122;
  bool no_baseline = false;
  bool no_flush = false;
  int min_samples = 10;
  double max_time = 2.0;
  int interleave = 1;  // bench gemm: rounds in which each size's rows take their samples in turn
  BackendOptions backend;
  // --gpus N: one GEMM over N GPUs through NCCL (bench/gemm_dist_bench.hpp, docs/multigpu.md).
  int gpus = 0;
  std::string split = "auto", source = "blocks";
  int panels = 4;
  int nccl_ctas = DistributedConfig{}.nccl_max_ctas;  // 0: NCCL's choice, GEMMs unlimited
  std::string rounds = "all-gather";                   // all-gather (where sizes allow) or broadcasts
  std::string copy_engines = "on";                     // all-gathers on the copy engines
  int lead_gemms = 0;                                  // own GEMMs enqueued before the transfers
  bool no_host = false;
};

// `bench`'s session: the progress line and Ctrl-C of every sweep (sweep_session.hpp), and the
// table, CSV and JSON of the rows that finished.
class BenchSession : public SweepSession {
 public:
  // Prints and writes what finished; returns the exit code for the run's status and rows.
  int finish(const Status& run, const std::vector<bench::BenchRow>& rows, const Context& ctx,
             const std::string& baseline, const std::string& ceiling, bool flush,
             const std::string& csv, const std::string& json) {
    clear_progress();
    if (rows.empty() && !run && run.code() != StatusCode::kCancelled) return fail(run);
    const bool gpu = ctx.backend == Backend::kCuda;
    bench::print_bench_table(std::cout, rows, baseline, ceiling);
    const bench::Environment env = bench::describe_environment(
        ctx, command_line(),
        gpu ? (flush ? "cuda-events, L2 flushed" : "cuda-events, warm L2") : "steady_clock");
    std::cout << "device: " << env.device;
    if (gpu)
      std::cout << " (cc " << env.compute_capability << ", " << env.sm_count << " SMs, max "
                << env.sm_clock_mhz << " MHz), CUDA " << env.cuda_runtime << ", cuBLAS "
                << env.cublas;
    else
      std::cout << ", " << env.cpu_threads << " threads, " << env.openblas;
    std::cout << "\n";
    Status s;
    if (!csv.empty() && !(s = bench::write_bench_csv(csv, rows, env))) return fail(s);
    if (!json.empty() && !(s = bench::write_bench_json(json, rows, env))) return fail(s);
    if (run.code() == StatusCode::kCancelled) return interrupted(rows.size());
    if (!run) return fail(run);
    for (const auto& r : rows)
      if (r.outcome == bench::RowOutcome::kFail) return kExitVerify;
    for (const auto& r : rows)
      if (r.outcome == bench::RowOutcome::kError) return kExitRuntime;
    return kExitOk;
  }
};

// What every `bench` subcommand takes the same way: seed, baseline, flush and stopping rule.
template <typename Config>
void apply_common(const BenchOptions& o, Config* cfg) {
  cfg->kernels = o.kernels;
  cfg->add_baseline = !o.no_baseline;
  cfg->seed = o.seed;
  cfg->timing.flush_l2 = !o.no_flush;
  cfg->timing.min_samples = o.min_samples;
  cfg->timing.max_time_s = o.max_time;
}

// `bench gemm --gpus N`: its own table (per-GPU and aggregate TFLOP/s, scaling, communication).
int run_bench_gemm_gpus(const BenchOptions& o) {
  if (o.interleave != 1)
    return fail(invalid_argument("--interleave times one GPU's rows in turns; --gpus times a "
                                 "distributed GEMM per row: leave --interleave out"));
  bench::DistBenchConfig cfg;
  cfg.gpus = o.gpus;
  Status s = bench::parse_sizes(o.sizes.empty() ? "16384" : o.sizes, &cfg.shapes);
  if (!s) return fail(s);
  DType in = DType::kF32;
  if (!(s = parse_dtype(o.dtype, "--dtype", &in))) return fail(s);
  Compute compute = in == DType::kF32 ? Compute::kF32 : Compute::kBF16;
  if (!o.compute.empty() && !(s = parse_compute(o.compute, "--compute", &compute))) return fail(s);
  cfg.types = GemmTypes{in, in, DType::kF32, compute};
  cfg.options.split = o.split == "rows"      ? DistSplit::kRows
                      : o.split == "columns" ? DistSplit::kColumns
                                             : DistSplit::kAuto;
  cfg.options.source = o.source == "root"         ? ReplicaSource::kRoot
                       : o.source == "every-rank" ? ReplicaSource::kEveryRank
                                                  : ReplicaSource::kBlocks;
  cfg.options.panels_per_block = o.panels;
  cfg.options.allow_vendor = o.allow_vendor;
  cfg.dist_config.nccl_max_ctas = o.nccl_ctas;
  cfg.dist_config.copy_engines = o.copy_engines == "on";
  cfg.options.all_gather_rounds = o.rounds == "all-gather";
  cfg.options.lead_gemms = o.lead_gemms;
  // --kernels with --gpus: one kernel id (or auto) that every rank's GEMMs and the one-GPU
  // yardstick run; globs and lists belong to the one-GPU sweep.
  if (!o.kernels.empty()) {
    if (o.kernels.find_first_of(",*?[") != std::string::npos)
      return fail(invalid_argument("--gpus takes one kernel id (or auto) in --kernels, not '" +
                                   o.kernels + "'"));
    cfg.options.kernel = o.kernels;
  }
  cfg.host_operands = !o.no_host;
  cfg.baseline = !o.no_baseline;
  cfg.seed = o.seed;
  cfg.timing.min_samples = o.min_samples;
  cfg.timing.max_time_s = o.max_time;
  if (!(s = bench::check_dist_bench(cfg))) return fail(s);  // exit 2: this build or machine cannot
  BenchSession session;
  cfg.progress = session.progress();
  cfg.cancel = session.cancel();
  std::vector<bench::DistBenchRow> rows;
  const Status run = bench::run_dist_bench(cfg, &rows);
  session.clear_progress();
  bench::print_dist_table(std::cout, rows);
  std::cout << "NCCL_NVLS_ENABLE=" << (std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "(unset)")
            << "; per GPU: each rank's GEMMs over its compute-stream time; comm ms: the slowest "
               "rank's transfer stream (overlapped with its GEMMs)\n";
  if (!o.csv.empty() && !(s = bench::write_dist_csv(o.csv, rows))) return fail(s);
  if (run.code() == StatusCode::kCancelled) return kExitInterrupted;
  if (!run) return fail(run);
  for (const auto& r : rows)
    if (r.verdict.rfind("error", 0) == 0) return kExitRuntime;
  return kExitOk;
}

int run_bench_gemm(const BenchOptions& o) {
  if (o.gpus > 0) return run_bench_gemm_gpus(o);
  bench::GemmBenchConfig cfg;
  Status s = resolve_context(o.backend, &cfg.ctx);
  if (!s) return fail(s);
  const bool gpu = cfg.ctx.backend == Backend::kCuda;
  const std::string sizes = !o.sizes.empty() ? o.sizes : gpu ? kGpuGemmSizes : kCpuGemmSizes;
  if (!(s = bench::parse_sizes(sizes, &cfg.shapes))) return fail(s);
  DType in = DType::kF32;
  if (!(s = parse_dtype(o.dtype, "--dtype", &in))) return fail(s);
  Compute compute = in == DType::kF32 ? Compute::kF32 : Compute::kBF16;
  if (!o.compute.empty() && !(s = parse_compute(o.compute, "--compute", &compute))) return fail(s);
  cfg.types = GemmTypes{in, in, DType::kF32, compute};
  cfg.allow_vendor = o.allow_vendor;
  apply_common(o, &cfg);
  cfg.layout = o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
  cfg.op_a = o.trans_a ? Op::kT : Op::kN;
  cfg.op_b = o.trans_b ? Op::kT : Op::kN;
  cfg.alpha = o.alpha;
  cfg.beta = o.beta;
  cfg.rounds = o.interleave;
  BenchSession session;
  cfg.progress = session.progress();
  cfg.cancel = session.cancel();
  std::vector<bench::BenchRow> rows;
  const Status run = bench::run_gemm_bench(cfg, &rows);
  return session.finish(run, rows, cfg.ctx,
                        bench::baseline_kernel_id(cfg.ctx.backend, cfg.types), "",
                        !o.no_flush, o.csv, o.json);
}

int run_bench_memory(bench::MemoryOp op, const BenchOptions& o) {
  bench::MemoryBenchConfig cfg;
  Status s = resolve_context(o.backend, &cfg.ctx);
  if (!s) return fail(s);
  const bool gpu = cfg.ctx.backend == Backend::kCuda;
  std::string sizes = o.sizes;
  if (sizes.empty()) {
    if (op == bench::MemoryOp::kTranspose) sizes = gpu ? "16384" : "2048";
    else sizes = gpu ? "2^28" : "2^24";
  }
  if (!(s = bench::parse_memory_sizes(op, sizes, &cfg.sizes))) return fail(s);
  cfg.op = op;
  apply_common(o, &cfg);
  BenchSession session;
  cfg.progress = session.progress();
  cfg.cancel = session.cancel();
  std::vector<bench::BenchRow> rows;
  const Status run = bench::run_memory_bench(cfg, &rows);
  return session.finish(run, rows, cfg.ctx, bench::memory_baseline_id(op, cfg.ctx.backend),
                        bench::memory_ceiling_id(cfg.ctx.backend), !o.no_flush, o.csv, o.json);
}

// ---- bench --suite ----------------------------------------------------------------------------

struct SuiteOptions {
  std::string suite, out;
  bool markdown = false;
  BackendOptions backend;
};

// Where suites are found: beside an installed tilekit, then in the source tree (data_dirs).
std::vector<std::string> suite_dirs() { return data_dirs("suites", "bench/suites"); }

// results/SUITE-DEVICE.json under the current folder, made if missing.
Status default_record_path(const std::string& suite, const std::string& device, std::string* out) {
  std::error_code ec;
  std::filesystem::create_directory("results", ec);
  if (ec) return io_error("--out: cannot make the folder results: " + ec.message());
  *out = "results/" + suite + "-" + bench::device_slug(device) + ".json";
  return Status::ok();
}

// One bench run's table, printed after the suite (the progress line owns stderr until then).
struct SuiteTable {
  std::string title, baseline, ceiling;
  std::vector<bench::BenchRow> rows;
};

void print_suite_tables(const std::vector<SuiteTable>& tables, const bench::SuiteRun& run) {
  for (const SuiteTable& t : tables) {
    std::cout << "== " << t.title << "\n";
    bench::print_bench_table(std::cout, t.rows, t.baseline, t.ceiling);
    std::cout << "\n";
  }
  for (const Status& e : run.errors) std::cerr << "tilekit: error: " << e.message() << "\n";
}

// The exit code of a suite that ran: as `bench` for its rows, else the first failed part's.
int suite_exit_code(const Status& ran, const bench::SuiteRun& run) {
  if (ran.code() == StatusCode::kCancelled) return SweepSession::interrupted(run.rows.size());
  if (!run.errors.empty()) return exit_code_for(run.errors.front());
  if (!ran) return fail(ran);
  for (const auto& r : run.rows)
    if (r.row.outcome == bench::RowOutcome::kFail) return kExitVerify;
  for (const auto& r : run.rows)
    if (r.row.outcome == bench::RowOutcome::kError) return kExitRuntime;
  return kExitOk;
}

int run_bench_suite(const SuiteOptions& o) {
  std::string path;
  Status s = bench::find_suite(o.suite, suite_dirs(), &path);
  bench::Suite suite;
  if (s) s = bench::load_suite_file(path, &suite);
  bench::SuiteRunConfig cfg;
  if (s) s = resolve_context(o.backend, &cfg.ctx);
  if (s) s = bench::check_suite_kernels(suite, cfg.ctx.backend);
  if (!s) return fail(s);
  const bool gpu = cfg.ctx.backend == Backend::kCuda;
  const bench::Environment env = bench::describe_environment(
      cfg.ctx, command_line(), gpu ? "cuda-events, L2 flushed" : "steady_clock");
  std::string out = o.out;
  if (out.empty() && !(s = default_record_path(suite.name, env.device, &out))) return fail(s);
  if (!(s = check_output_path(out, "--out"))) return fail(s);  // before the run, not after it
  std::vector<SuiteTable> tables;
  bench::SuiteRun run;
  Status ran;
  {
    SweepSession session;
    cfg.progress = session.progress();
    cfg.cancel = session.cancel();
    cfg.on_run = [&tables](const std::string& title, const std::vector<bench::BenchRow>& rows,
                           const std::string& baseline, const std::string& ceiling) {
      tables.push_back({title, baseline, ceiling, rows});
    };
    ran = bench::run_suite(suite, cfg, &run);
    session.clear_progress();
  }
  print_suite_tables(tables, run);
  const nlohmann::json record = bench::suite_record(suite, run, env);
  // The command line and paths are the user's bytes: invalid UTF-8 is replaced, not thrown.
  s = write_output_file(out, record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                        "--out");
  if (!s) return fail(s);
  bench::SuiteRecord parsed;
  if ((s = bench::parse_suite_record(record, out, &parsed)))
    std::cout << (o.markdown ? bench::suite_markdown(parsed) + "\n" : bench::suite_summary(parsed));
  std::cout << "wrote " << out << " (" << run.rows.size() << " rows)\n";
  return suite_exit_code(ran, run);
}

// `tilekit bench` takes a subcommand, or --suite and what goes with it.
void add_suite_options(CLI::App* bench, int* exit_code) {
  auto o = std::make_shared<SuiteOptions>();
  CLI::Option* suite = bench->add_option(
      "--suite", o->suite,
      "run a suite of bench/suites (its name, or a suite file's path) into one JSON record")
      ->check(non_empty());
  std::vector<CLI::Option*> suite_only = {
      suite,
      bench->add_option("--out", o->out, "--suite: the record (default results/SUITE-DEVICE.json)")
          ->check(output_path()),
      bench->add_flag("--markdown", o->markdown,
                      "--suite: print the record's tables as markdown (`tilekit results`)")};
  for (size_t i = 1; i < suite_only.size(); ++i) suite_only[i]->needs(suite);
  add_backend_options(bench, &o->backend);
  for (const char* name : {"--backend", "--device", "--threads"})
    suite_only.push_back(bench->get_option(name));
  // Options before a subcommand would be the suite's, not the subcommand's: refuse them.
  for (CLI::App* sub : bench->get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : suite_only) sub->excludes(opt);
  bench->callback([exit_code, o, bench] {
    if (!bench->get_subcommands().empty()) return;  // a subcommand ran
    if (!o->suite.empty()) {
      *exit_code = run_bench_suite(*o);
      return;
    }
    const std::vector<std::string> names = bench::suite_names(suite_dirs());
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    *exit_code = fail(invalid_argument("bench: give a subcommand (gemm, copy, transpose, dot) or "
                                       "--suite NAME (suites: " + (list.empty() ? "none found" : list) + ")"));
  });
}

}  // namespace

// `tilekit report` runs under the same progress line and Ctrl-C handling as `bench`.
int run_report_with_session(const bench::ReportConfig& config) {
  SweepSession session;
  bench::ReportConfig cfg = config;
  cfg.progress = session.progress();
  cfg.cancel = session.cancel();
  bench::ReportOutcome outcome;
  const Status s = bench::run_report(cfg, &outcome);
  session.clear_progress();
  if (!s) return fail(s);
  std::cout << "wrote " << cfg.out_dir << "/report.md (" << outcome.rows << " rows), rows.csv, "
            << "rows.json, report.json\n" << outcome.plot_message << "\n";
  if (outcome.interrupted) {
    std::cerr << "tilekit: interrupted; the report holds the rows that finished\n";
    return kExitInterrupted;
  }
  return kExitOk;
}

void add_bench_command(CLI::App& app, int* exit_code) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmark kernels beside the vendor baselines");
  bench->require_subcommand(0, 1);
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = bench->add_subcommand("gemm", "Benchmark GEMM kernels over a set of sizes");
  cmd->add_option("--sizes", o->sizes,
                  "list '1024,4096', range '256:2048:64' (stop included), or 'MxNxK' triples; "
                  "default " + std::string(kGpuGemmSizes) + " on a GPU, " + kCpuGemmSizes +
                      " on the CPU")
      ->check(non_empty());
  cmd->add_option("--kernels", o->kernels,
                  "globs on kernel ids, comma-separated, each matching a kernel of the backend, "
                  "e.g. 'gemm.cuda.cublas*'; the word auto adds a row for what kernel auto "
                  "chooses (default: every kernel of the backend except the slow reference)")
      ->check(non_empty());
  cmd->add_option("--dtype", o->dtype, "storage of A and B: f32, bf16 or f16 (C is f32)")
      ->capture_default_str();
  cmd->add_option("--compute", o->compute,
                  "f32, f32_3xtf32, tf32 or bf16 (default: f32 for f32 inputs, bf16 for 16-bit)");
  cmd->add_flag("--allow-vendor", o->allow_vendor,
                "the auto row may choose vendor kernels when no own kernel can run");
  cmd->add_option("--csv", o->csv, "also write the rows as CSV")->check(output_path());
  cmd->add_option("--json", o->json, "also write the rows as JSON")->check(output_path());
  cmd->add_option("--layout", o->layout, "row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_flag("--trans-a", o->trans_a, "use Aᵀ");
  cmd->add_flag("--trans-b", o->trans_b, "use Bᵀ");
  cmd->add_option("--alpha", o->alpha, "alpha")->transform(float32_value())->capture_default_str();
  cmd->add_option("--beta", o->beta, "beta (nonzero adds 3mn to the FLOP count)")
      ->transform(float32_value())
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the random inputs")
      ->transform(unsigned_value())
      ->capture_default_str();
  cmd->add_flag("--no-baseline", o->no_baseline,
                "do not add the backend's baseline (cuBLAS / OpenBLAS) when --kernels leaves it out");
  cmd->add_flag("--no-flush", o->no_flush, "GPU: keep L2 warm between samples");
  cmd->add_option("--min-samples", o->min_samples, "samples at least")
      ->transform(integer_in_range(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  cmd->add_option("--max-time", o->max_time, "seconds of samples at most, per kernel and size")
      ->check(positive())
      ->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->add_option("--interleave", o->interleave,
                  "time each size's rows in N rounds, in turn, so that they see the GPU's slow "
                  "drifts alike (samples and times per row as without it)")
      ->transform(integer_in_range(1, 100))
      ->capture_default_str();
  cmd->add_option("--gpus", o->gpus,
                  "one GEMM over GPUs 0..N-1 through NCCL, beside one GPU and cuBLASXt "
                  "(default sizes 16384; docs/multigpu.md)")
      ->transform(integer_in_range(1, 1024));
  cmd->add_option("--split", o->split, "--gpus: rows, columns or auto (fewer bytes moved)")
      ->check(CLI::IsMember({"auto", "rows", "columns"}))
      ->capture_default_str();
  cmd->add_option("--source", o->source,
                  "--gpus: where the travelling operand starts: blocks (all-gather), root "
                  "(broadcast), every-rank")
      ->check(CLI::IsMember({"blocks", "root", "every-rank"}))
      ->capture_default_str();
  cmd->add_option("--panels", o->panels, "--gpus: transfers per rank's block (overlap granularity)")
      ->transform(integer_in_range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--nccl-ctas", o->nccl_ctas,
                  "--gpus: the most SMs an NCCL collective may hold (ncclConfig_t maxCTAs); the "
                  "GEMMs beside it get the rest (0: NCCL's choice, GEMMs take every SM)")
      ->transform(integer_in_range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--rounds", o->rounds,
                  "--gpus: a round of equal panels as one all-gather, or always as broadcasts")
      ->check(CLI::IsMember({"all-gather", "broadcasts"}))
      ->capture_default_str();
  cmd->add_option("--copy-engines", o->copy_engines,
                  "--gpus: all-gathers on the copy engines, holding no SMs (NCCL 2.28+ symmetric "
                  "windows; off: NCCL's kernels on --nccl-ctas SMs)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd->add_option("--lead-gemms", o->lead_gemms,
                  "--gpus: GEMMs of a rank's own resident panels enqueued before the transfers, "
                  "so that the GPU multiplies while the host enqueues the collectives")
      ->transform(integer_in_range(0, 4096))
      ->capture_default_str();
  cmd->add_flag("--no-host", o->no_host, "--gpus: skip the host-operand row (transfers included)");
  cmd->callback([exit_code, o] { *exit_code = run_bench_gemm(*o); });

  // copy, transpose, dot: the memory-bound families, in GB/s against the copy ceiling.
  const std::pair<bench::MemoryOp, const char*> families[] = {
      {bench::MemoryOp::kCopy, "Benchmark copy kernels against cudaMemcpy (GB/s)"},
      {bench::MemoryOp::kTranspose, "Benchmark transpose kernels against the copy ceiling (GB/s)"},
      {bench::MemoryOp::kDot, "Benchmark dot-product kernels against the copy ceiling (GB/s)"}};
  for (const auto& [op, help] : families) {
    auto m = std::make_shared<BenchOptions>();
    CLI::App* sub = bench->add_subcommand(bench::memory_op_name(op), help);
    sub->add_option("--sizes", m->sizes,
                    op == bench::MemoryOp::kTranspose
                        ? "list of N (square) or ROWSxCOLS; default 16384 on a GPU, 2048 on the CPU"
                        : "list of element counts, e.g. 2^28,1000000; default 2^28 on a GPU, 2^24 on the CPU")
        ->check(non_empty());
    sub->add_option("--kernels", m->kernels,
                    "globs on kernel ids, comma-separated, each matching a kernel of the backend "
                    "(default: every kernel of the family)")
        ->check(non_empty());
    sub->add_option("--csv", m->csv, "also write the rows as CSV")->check(output_path());
    sub->add_option("--json", m->json, "also write the rows as JSON")->check(output_path());
    sub->add_option("--seed", m->seed, "seed of the random inputs")
        ->transform(unsigned_value())
        ->capture_default_str();
    sub->add_flag("--no-baseline", m->no_baseline, "do not add the family's baseline");
    sub->add_flag("--no-flush", m->no_flush, "GPU: keep L2 warm between samples");
    sub->add_option("--min-samples", m->min_samples, "samples at least")
        ->transform(integer_in_range(1, std::numeric_limits<int>::max()))
        ->capture_default_str();
    sub->add_option("--max-time", m->max_time, "seconds of samples at most, per kernel and size")
        ->check(positive())
        ->capture_default_str();
    add_backend_options(sub, &m->backend);
    sub->callback([exit_code, m, op = op] { *exit_code = run_bench_memory(op, *m); });
  }
  add_suite_options(bench, exit_code);
}

}  // namespace tilekit::cli
