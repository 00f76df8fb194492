// suite.hpp — benchmark suites as data: a named list of bench runs (bench/suites/NAME.json), run
// by `tilekit bench --suite NAME` into one JSON record of every row and what measured it.
//
// A suite file:
//   {"name": "smoke", "description": "...",
//    "parts": [{"op": "gemm", "dtype": "f32", "compute": "tf32", "ops": ["NN", "TN"],
//               "layout": "row", "shapes": [1024, [80, 5000, 5000], "2^12"],
//               "kernels": ["gemm.cuda.sm90*", "auto"], "max_time": 0.5, "min_samples": 10,
//               "interleave": 3, "targets": {"4097": 4.0}},
//              {"op": "copy", "shapes": ["2^28"]}]}
// Only op and shapes are required. A part is one `tilekit bench OP` per entry of ops, with the
// mode's baseline added as `bench` adds it; targets are the least best-own-kernel / baseline
// ratio a size should reach, for the generated tables' verdicts.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_row.hpp"
#include "memory_bench.hpp"
#include "report.hpp"

namespace tilekit::bench {

struct SuitePart {
  std::string op = "gemm";  // gemm, transpose, dot, copy
  // gemm only: the types (compute empty in the file: f32 for f32 inputs, bf16 for 16-bit ones),
  // the ops of A and B, the layout.
  std::string dtype = "f32", compute = "f32";
  GemmTypes types;
  std::vector<std::string> ops = {"NN"};
  std::string layout = "row";
  std::vector<std::string> shapes;         // as written, in the --sizes grammar: "80x5000x5000"
  std::vector<GemmShape> gemm_shapes;      // gemm
  std::vector<MemorySize> memory_sizes;    // transpose, dot, copy
  std::vector<std::string> kernels;        // globs, and "auto" (gemm); empty: every kernel
  double max_time = TimingPolicy{}.max_time_s;
  int min_samples = TimingPolicy{}.min_samples;
  int interleave = 1;                      // gemm: --interleave
  std::map<std::string, double> targets;   // size → least best own kernel / baseline
  double bandwidth_target = 0;             // gemm: least GB/s of auto at every size (0: none)
};

struct Suite {
  std::string name, description, file;
  std::vector<SuitePart> parts;
};

// Parses a suite file's text; `file` names it in errors, which are one line each:
// "bench/suites/x.json: parts[2].shapes: is empty".
Status parse_suite(const std::string& text, const std::string& file, Suite* out);
// Reads and parses the file; its name must be the suite's name plus ".json".
Status load_suite_file(const std::string& path, Suite* out);

// The suites in `dirs` (NAME.json files), sorted, each name once.
std::vector<std::string> suite_names(const std::vector<std::string>& dirs);
// The path of suite `name`: the first dirs/NAME.json that exists. `name` holding a '/' or
// ending in .json is a path itself. Unknown: an error listing the suites.
Status find_suite(const std::string& name, const std::vector<std::string>& dirs,
                  std::string* path);

// What the generated tables group a part's rows by: the compute mode of a gemm part ("bf16",
// "tf32", "f32_3xtf32", or "f16" for f16 inputs), the op of the others ("copy").
std::string part_mode(const SuitePart& part);

// Reads a whole text file; `what` names it in errors ("suite", "record").
Status read_text_file(const std::string& path, const std::string& what, std::string* text);

struct SuiteRunConfig {
  Context ctx;
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
  // After each bench run: its rows and their baseline and ceiling (the CLI prints the table).
  std::function<void(const std::string& title, const std::vector<BenchRow>& rows,
                     const std::string& baseline, const std::string& ceiling)>
      on_run;
};

struct SuiteRun {
  struct Row {
    BenchRow row;
    int part = 0;
    std::string ops;  // gemm: NN, NT, TN, TT
  };
  std::vector<Row> rows;
  std::vector<std::string> baselines, ceilings;  // per part
  std::vector<Status> errors;  // parts that failed; the others ran
  bool complete = false;       // false: interrupted, or stopped by an error the GPU may not survive
};

// Every part's globs select kernels on `backend` (checked before anything runs, so that a typo
// in the last part does not cost the first parts' minutes).
Status check_suite_kernels(const Suite& suite, Backend backend);

// Runs every part in order, keeping the rows of parts that finished. A part that fails is
// recorded in out->errors and the next one runs; Ctrl-C or a CUDA error stops the suite
// (kCancelled, or that error). Returns the first part's error otherwise.
Status run_suite(const Suite& suite, const SuiteRunConfig& cfg, SuiteRun* out);

// The record: suite, commit, command, date, environment, parts and every row.
nlohmann::json suite_record(const Suite& suite, const SuiteRun& run, const Environment& env);

// "nvidia-h200" from "NVIDIA H200": the device in a record's default file name.
std::string device_slug(const std::string& device);

}  // namespace tilekit::bench
