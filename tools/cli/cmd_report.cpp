// cmd_report.cpp — `tilekit report`: sweeps, best configurations, speedups, roofline, traffic.
#include <iostream>

#include <cstdlib>

#include "cli_common.hpp"
#include "report_runner.hpp"

namespace tilekit::cli {

int run_report_with_session(const bench::ReportConfig& cfg);  // cmd_bench.cpp

namespace {

struct ReportOptions {
  std::string out;
  std::string sizes;
  bool quick = false;
  bool no_cpu_blas = false;
  BackendOptions backend;
};

// The report's plots: python3 with matplotlib runs scripts/plot_report.py on the folder.
Status draw_report_plots(const std::string& script, const std::string& out_dir,
                         std::string* message) {
  if (std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    *message = "python3 with matplotlib is needed (scripts/setup.sh installs it), then run "
               "`python3 " + script + " " + out_dir + "`";
    return not_supported(*message);
  }
  const std::string cmd = "python3 " + shell_quote(script) + " " + shell_quote(out_dir);
  if (std::system(cmd.c_str()) != 0) {
    *message = "the plot script failed: " + cmd;
    return Status(StatusCode::kInternal, *message);
  }
  *message = "plots written by " + script;
  return Status::ok();
}

int run_report_cmd(const ReportOptions& o) {
  bench::ReportConfig cfg;
  Status s = resolve_context(o.backend, &cfg.ctx);
  if (!s) return fail(s);
  cfg.out_dir = o.out;
  cfg.quick = o.quick;
  cfg.cpu_blas = !o.no_cpu_blas;
  if (o.sizes.empty()) {
    cfg.sizes = bench::default_report_sizes(o.quick);
  } else if (!(s = bench::parse_sizes(o.sizes, &cfg.sizes))) {
    return fail(s);
  }
  // A report is many measurements: fewer samples each than `bench`, same stopping rule.
  cfg.timing.min_samples = o.quick ? 3 : 5;
  cfg.timing.max_time_s = o.quick ? 0.05 : 0.5;
  cfg.timing.warmup = 1;
  cfg.command_line = command_line();
  cfg.scripts_dir = scripts_dir();
  cfg.draw_plots = draw_report_plots;
  return run_report_with_session(cfg);
}

}  // namespace

void add_report_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Measure and write the courses' analysis: sweeps, speedups, roofline, traffic");
  cmd->add_option("--out", o->out, "folder to write report.md, plots, CSV and JSON into")->required();
  cmd->add_option("--sizes", o->sizes,
                  "sizes as for `bench gemm` (default: 21 sizes from 256 to 2049, or a few small "
                  "ones with --quick)");
  cmd->add_flag("--quick", o->quick, "a small, fast report (works on the CPU backend; for CI)");
  cmd->add_flag("--no-cpu-blas", o->no_cpu_blas, "on a GPU, skip timing OpenBLAS on the CPU");
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_report_cmd(*o); });
}

}  // namespace tilekit::cli
