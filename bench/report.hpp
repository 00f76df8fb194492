// report.hpp — benchmark rows as a terminal table, CSV and JSON, with what reproduces them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm_bench.hpp"

namespace tilekit::bench {

// Where and how the rows were measured: enough to reproduce or distrust them.
struct Environment {
  std::string backend;
  std::string device;         // GPU name or CPU model
  std::string compute_capability;
  int sm_count = 0;
  int sm_clock_mhz = 0;       // maximum SM clock reported by the runtime
  int memory_clock_mhz = 0;
  std::string cuda_runtime, cuda_driver, cublas;
  std::string openblas;
  int cpu_threads = 0;
  std::string timing_method;
  std::string command_line;
  std::string tilekit_version;
  std::string timestamp_utc;
};

Environment describe_environment(const Context& ctx, const std::string& command_line,
                                 const std::string& timing_method);

// The table: GFLOP/s columns for GEMM rows; GB/s, % of the copy ceiling and the kernel's
// resources for memory-bound rows.
void print_bench_table(std::ostream& out, const std::vector<BenchRow>& rows,
                       const std::string& baseline_id, const std::string& ceiling_id = "");
// Every field of every row, and the environment that reproduces them. Written atomically.
Status write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows,
                       const Environment& env);
Status write_bench_json(const std::string& path, const std::vector<BenchRow>& rows,
                        const Environment& env);
// The objects write_bench_json writes, for records that hold more (bench/suite.hpp).
nlohmann::json environment_json(const Environment& env);
nlohmann::json row_json(const BenchRow& row);
// A CSV field: as is, or quoted (quotes doubled) when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);
// Writes text to path whole or not at all, only to a regular file or a new path
// (core/output_file.hpp).
Status write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tilekit::bench
