// cli_common.hpp — what every `tilekit` subcommand shares: exit codes, errors, backends.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/npy.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit::cli {

// Exit codes (README "Exit codes"): 0 ok, 1 runtime failure, 2 usage or bad input,
// 3 verification failed, 4 a file could not be read or written, 130 interrupted by Ctrl-C
// (finished rows are kept).
enum ExitCode {
  kExitOk = 0,
  kExitRuntime = 1,
  kExitUsage = 2,
  kExitVerify = 3,
  kExitIo = 4,
  kExitInterrupted = 130
};

// Prints "tilekit: error: <message>" to stderr and returns the exit code for the status:
// 2 for bad input (an invalid argument, a malformed .npy file, an output path that is not a
// regular file), 3 for a failed check, 4 when the system could not open, read or write a file,
// 130 when interrupted, 1 for every other runtime failure (out of memory included).
int fail(const Status& status);
int exit_code_for(const Status& status);

// --backend auto|cpu|cuda: auto is cuda when a GPU is present, else cpu.
struct BackendOptions {
  std::string backend = "auto";
  int device = 0;
  int threads = 0;
};
void add_backend_options(CLI::App* cmd, BackendOptions* opts);
Status resolve_context(const BackendOptions& opts, Context* ctx);

// Validators with short messages ("--m: must be >= 0, got -4"), for ->check().
// Real numbers (seconds): finite and at least 0, or above 0.
CLI::Validator non_negative();
CLI::Validator positive();
// An explicitly given empty value ("--sizes ''") is an error, not the default.
CLI::Validator non_empty();

// Number validators for ->transform(): they parse the text themselves and hand CLI11 a
// canonical decimal form, because CLI11 2.1 clamps out-of-range integers to INT64_MAX, reads
// "010" as octal and lets 1e39 become a float Inf — all without a word.
// A decimal integer in [min, max]; `max_why` explains the upper bound in the message.
CLI::Validator integer_in_range(int64_t min, int64_t max, const std::string& max_why = "");
// A size or count: a decimal integer in [0, INT64_MAX].
CLI::Validator size_value();
// A decimal integer in [0, UINT64_MAX] (seeds).
CLI::Validator unsigned_value();
// A real number that float32 represents: finite, not overflowing float, not a nonzero value
// that rounds to 0 (alpha, beta).
CLI::Validator float32_value();

// A file the command will write: a new path or a regular file (core/output_file.hpp), checked
// when the options are parsed so that a refused path fails before any work.
CLI::Validator output_path();

// --threads: 0 (OpenMP's default) up to kMaxThreadsPerCore per logical core, at most
// kMaxThreads: a typo like 100000 must not start a hundred thousand threads.
constexpr int kMaxThreadsPerCore = 64;
constexpr int kMaxThreads = 4096;
int max_cpu_threads();

// Writes the rows × cols float32 matrix at host pointer `data` (leading dimension ld, stored in
// `layout`) to a .npy file straight from that buffer — C order for row-major, Fortran order for
// column-major — so that writing a result never needs a second copy of it (write_npy_strided:
// only to a regular file or a new path, whole or not at all). Errors name --out.
Status write_npy_result(const std::string& path, const float* data, int64_t rows, int64_t cols,
                        int64_t ld, Layout layout);

// Reads a .npy matrix (or, with `vector`, a vector) named by an option. A file of another
// dtype than float32 is converted, and one line on stderr says so: the GEMM runs on float32.
Status read_npy_input(const std::string& path, bool vector, NpyMatrix* out);

// Where a data folder of tilekit's (`suites`, `scripts`) is: beside an installed tilekit first
// (PREFIX/share/tilekit/NAME, found from PREFIX/bin/tilekit), then in the source tree this binary
// was built from (`source_subdir` there). Folders that do not exist are left out.
std::vector<std::string> data_dirs(const std::string& name, const std::string& source_subdir);
// The plot scripts' folder: $TILEKIT_SCRIPTS when set, else the first of data_dirs("scripts").
std::string scripts_dir();

// `text` as one word for /bin/sh: in single quotes, each ' written as '\'' — so that a path
// holding quotes or `;` reaches a plot script as a path, never as shell code.
std::string shell_quote(const std::string& text);

// The command line as typed, for reproducibility records.
std::string command_line();
void set_command_line(int argc, char** argv);

// Registers the subcommands; each sets *exit_code from its callback.
void add_devices_command(CLI::App& app, int* exit_code);
void add_list_command(CLI::App& app, int* exit_code);
void add_gemm_command(CLI::App& app, int* exit_code);
void add_bench_command(CLI::App& app, int* exit_code);
void add_occupancy_command(CLI::App& app, int* exit_code);
void add_inspect_command(CLI::App& app, int* exit_code);
void add_banks_command(CLI::App& app, int* exit_code);
void add_transpose_command(CLI::App& app, int* exit_code);
void add_dot_command(CLI::App& app, int* exit_code);
void add_report_command(CLI::App& app, int* exit_code);
void add_tune_command(CLI::App& app, int* exit_code);
void add_accuracy_command(CLI::App& app, int* exit_code);
void add_results_command(CLI::App& app, int* exit_code);

}  // namespace tilekit::cli
