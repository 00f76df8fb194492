#include "cli_common.hpp"

#include <iostream>

namespace tilekit::cli {
namespace {
std::string g_command_line;
}

int exit_code_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kIoError: return kExitUsage;
    case StatusCode::kVerificationFailed: return kExitVerify;
    case StatusCode::kCancelled: return kExitInterrupted;
    default: return kExitRuntime;
  }
}

int fail(const Status& s) {
  std::cerr << "tilekit: error: " << s.message() << "\n";
  return exit_code_for(s);
}

void add_backend_options(CLI::App* cmd, BackendOptions* opts) {
  cmd->add_option("--backend", opts->backend, "auto (the GPU when one is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--device", opts->device, "CUDA device index")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads, "CPU threads (0 = OpenMP default)")
      ->check(non_negative())
      ->capture_default_str();
}

Status resolve_context(const BackendOptions& opts, Context* ctx) {
  const int gpus = cuda_device_count();
  std::string backend = opts.backend;
  if (backend == "auto") backend = gpus > 0 ? "cuda" : "cpu";
  if (backend == "cpu") {
    *ctx = Context::cpu(opts.threads);
    return Status::ok();
  }
  if (!built_with_cuda())
    return invalid_argument("--backend cuda: this tilekit was built without CUDA");
  if (gpus == 0) return invalid_argument("--backend cuda: no CUDA GPU is present");
  if (opts.device >= gpus)
    return invalid_argument("--device " + std::to_string(opts.device) + ": only " +
                            std::to_string(gpus) + " GPU(s) present");
  *ctx = Context::cuda(opts.device);
  ctx->cpu_threads = opts.threads;
  return Status::ok();
}

namespace {
CLI::Validator number_at_least(double min, const char* words) {
  return CLI::Validator(
      [min, words](std::string& value) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(value, &used);
          if (used == value.size() && v >= min && (min <= 0 || v > 0)) return "";
        } catch (const std::exception&) {
        }
        return std::string("must be ") + words + ", got " + value;
      },
      words);
}
}  // namespace

CLI::Validator non_negative() { return number_at_least(0, ">= 0"); }
CLI::Validator positive() { return number_at_least(1e-300, "> 0"); }

void set_command_line(int argc, char** argv) {
  g_command_line.clear();
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find_first_of(" '\"*?$") != std::string::npos) a = "'" + a + "'";
    if (i) g_command_line += ' ';
    g_command_line += a;
  }
}

std::string command_line() { return g_command_line; }

}  // namespace tilekit::cli
