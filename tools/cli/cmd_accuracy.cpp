// cmd_accuracy.cpp — `tilekit accuracy`: each kernel's error against the FP64 product of its FP32
// inputs as k grows (docs/accuracy.md's table; the measures are defined in bench/accuracy.hpp).
#include <iostream>
#include <sstream>

#include "accuracy.hpp"
#include "cli_common.hpp"
#include "gemm_bench.hpp"
#include "sweep_session.hpp"

namespace tilekit::cli {
namespace {

constexpr const char* kDefaultKs = "16,64,256,1024,4096,16384";

struct AccuracyOptions {
  std::string kernels;
  std::string ks = kDefaultKs;
  int64_t m = 256, n = 256;
  uint64_t seed = 20261122;
  std::string csv, json;
  BackendOptions backend;
};

// "16,64,2^10": whole numbers >= 1, in the order given.
Status parse_ks(const std::string& text, std::vector<int64_t>* out) {
  out->clear();
  std::stringstream ss(text);
  for (std::string piece; std::getline(ss, piece, ',');) {
    int64_t k = 0;
    if (Status s = bench::parse_size_number(piece, &k); !s)
      return invalid_argument("--k: '" + piece + "' " + s.message());
    if (k < 1) return invalid_argument("--k: '" + piece + "' is not at least 1");
    out->push_back(k);
  }
  if (out->empty() || text.back() == ',')
    return invalid_argument("--k: '" + text + "' is not a list of k");
  return Status::ok();
}

int run_accuracy_command(const AccuracyOptions& o) {
  bench::AccuracyConfig cfg;
  Status s = resolve_context(o.backend, &cfg.ctx);
  if (!s) return fail(s);
  if (!(s = parse_ks(o.ks, &cfg.ks))) return fail(s);
  cfg.kernels = o.kernels;
  cfg.m = o.m;
  cfg.n = o.n;
  cfg.seed = o.seed;
  // As `bench` runs: a progress line (CPU references at large k take a while), and Ctrl-C that
  // stops before the next kernel with the rows that finished printed and written.
  SweepSession session;
  cfg.progress = session.progress();
  cfg.cancel = session.cancel();
  std::vector<bench::AccuracyRow> rows;
  const Status run = bench::run_accuracy(cfg, &rows);
  session.clear_progress();
  const bool interrupted = run.code() == StatusCode::kCancelled;
  if (!run && !interrupted && rows.empty()) return fail(run);
  bench::print_accuracy_table(std::cout, rows, cfg.ctx.backend);
  if (!o.csv.empty() && !(s = bench::write_accuracy_csv(o.csv, rows, command_line())))
    return fail(s);
  if (!o.json.empty() && !(s = bench::write_accuracy_json(o.json, rows, command_line())))
    return fail(s);
  if (interrupted) return SweepSession::interrupted(rows.size());
  if (!run) return fail(run);
  for (const auto& r : rows)
    if (r.outcome == bench::AccuracyOutcome::kError) return kExitRuntime;
  return kExitOk;
}

}  // namespace

void add_accuracy_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<AccuracyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "accuracy",
      "GEMM error against the FP64 product of the FP32 inputs, per kernel and k (normwise, and "
      "as a fraction of FP32's elementwise bound 4·γ(k+2)·|A||B|)");
  cmd->add_option("--kernels", o->kernels,
                  "globs on kernel ids, comma-separated, each matching a kernel of the backend "
                  "(default: every GEMM kernel of the backend except the references)")
      ->check(non_empty());
  cmd->add_option("--k", o->ks, "the inner dimensions, comma-separated")
      ->check(non_empty())
      ->capture_default_str();
  cmd->add_option("--m", o->m, "rows of C")->transform(integer_in_range(1, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--n", o->n, "columns of C")->transform(integer_in_range(1, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the random inputs (one pair of A, B per k)")
      ->transform(unsigned_value())
      ->capture_default_str();
  cmd->add_option("--csv", o->csv, "also write the rows as CSV")->check(output_path());
  cmd->add_option("--json", o->json, "also write the rows as JSON")->check(output_path());
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_accuracy_command(*o); });
}

}  // namespace tilekit::cli
