// cli_common.hpp — what every `tilekit` subcommand shares: exit codes, errors, backends.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "tilekit/tilekit.hpp"

namespace tilekit::cli {

// Exit codes (README "Exit codes"): 0 ok, 1 runtime failure, 2 usage or bad input,
// 3 verification failed, 130 interrupted by Ctrl-C (finished rows are kept).
enum ExitCode { kExitOk = 0, kExitRuntime = 1, kExitUsage = 2, kExitVerify = 3, kExitInterrupted = 130 };

// Prints "tilekit: error: <message>" to stderr and returns the exit code for the status.
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

// Validators with short messages ("--m: must be >= 0, got -4").
CLI::Validator non_negative();
CLI::Validator positive();

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

}  // namespace tilekit::cli
