// report_runner.hpp — `tilekit report`: the courses' analysis for the machine it runs on.
//
// Measures the ceilings (FP32 peak from an FMA-bound microbenchmark, bandwidth from a device
// copy), sweeps every GEMM kernel of the backend over a size set beside a multi-core CPU BLAS,
// models each ladder step's global-memory traffic, and writes a folder: report.md, rows.csv,
// rows.json, report.json (ceilings, traffic model, occupancy curves) and the PNG plots drawn by
// scripts/plot_report.py.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "gemm_bench.hpp"

namespace tilekit::bench {

struct ReportConfig {
  Context ctx;
  std::string out_dir;
  std::vector<GemmShape> sizes;
  bool quick = false;
  bool cpu_blas = true;  // a GPU report also times OpenBLAS on this machine's CPU
  TimingPolicy timing;
  std::string command_line;
  std::string scripts_dir;  // where plot_report.py lives
  // Draws the PNG plots from the folder's CSV/JSON with `script` (the CLI runs python3); sets
  // *message to what it wrote or why it could not. Unset: the report says how to draw them.
  std::function<Status(const std::string& script, const std::string& out_dir,
                       std::string* message)> draw_plots;
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// The report's default sizes: ≥ 20 from 256 to 2049 with the odd neighbours of powers of two;
// --quick: a handful of small ones that the CPU backend finishes in seconds.
std::vector<GemmShape> default_report_sizes(bool quick);

struct ReportOutcome {
  int rows = 0;
  bool interrupted = false;
  bool plotted = false;
  std::string plot_message;  // why plots are missing, or which were written
};

// Writes the folder even when interrupted (with the rows that finished).
Status run_report(const ReportConfig& config, ReportOutcome* outcome);

}  // namespace tilekit::bench
