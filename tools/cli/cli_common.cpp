#include "cli_common.hpp"

#include "core/output_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <thread>

#include <unistd.h>

#ifndef TILEKIT_INSTALL_DATADIR
#define TILEKIT_INSTALL_DATADIR "share"
#endif

namespace tilekit::cli {
namespace {
std::string g_command_line;
}

int exit_code_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotSupported: return kExitUsage;  // a request this build, device or kernel cannot serve
    case StatusCode::kIoError: return kExitIo;
    case StatusCode::kVerificationFailed: return kExitVerify;
    case StatusCode::kCancelled: return kExitInterrupted;
    default: return kExitRuntime;
  }
}

int fail(const Status& s) {
  // "out of memory: C needs 160 GB, ..." says what kind of failure it is; other messages do.
  const char* kind = s.code() == StatusCode::kOutOfMemory ? "out of memory: " : "";
  std::cerr << "tilekit: error: " << kind << s.message() << "\n";
  return exit_code_for(s);
}

void add_backend_options(CLI::App* cmd, BackendOptions* opts) {
  cmd->add_option("--backend", opts->backend, "auto (the GPU when one is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--device", opts->device, "CUDA device index")
      ->transform(integer_in_range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads,
                  "CPU threads, 1 to " + std::to_string(max_cpu_threads()) +
                      " (0 = the OpenMP default)")
      ->transform(integer_in_range(0, max_cpu_threads(),
                                   std::to_string(kMaxThreadsPerCore) + " per logical core here"))
      ->capture_default_str();
}

int max_cpu_threads() {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::min<int64_t>(kMaxThreads, kMaxThreadsPerCore * cores));
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
  // The CLI's own buffers (DeviceBuffer::allocate) go to the device asked for.
  return make_device_current(*ctx);
}

namespace {

CLI::Validator number_at_least(double min, const char* words) {
  return CLI::Validator(
      [min, words](std::string& value) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(value, &used);
          if (used == value.size() && std::isfinite(v) && v >= min && (min <= 0 || v > 0))
            return "";
        } catch (const std::exception&) {
        }
        return std::string("must be ") + words + ", got " + value;
      },
      words);
}

// [+-]digits, nothing else: no octal, hex, spaces or exponents.
bool is_decimal_integer(const std::string& text) {
  const size_t first = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (first == text.size()) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(first), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// Parses a decimal integer; false (with *out_of_range set) when it does not fit in T.
template <typename T>
bool parse_decimal(const std::string& text, T* out, bool* out_of_range) {
  *out_of_range = false;
  if (!is_decimal_integer(text)) return false;
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), *out);
  if (error == std::errc::result_out_of_range) *out_of_range = true;
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

CLI::Validator non_negative() { return number_at_least(0, ">= 0"); }
CLI::Validator positive() { return number_at_least(1e-300, "> 0"); }

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return value.empty() ? "must not be empty (leave the option out for the default)" : "";
      },
      "NONEMPTY");
}

CLI::Validator integer_in_range(int64_t min, int64_t max, const std::string& max_why) {
  const std::string why = max_why.empty() ? "" : " (" + max_why + ")";
  return CLI::Validator(
      [min, max, why](std::string& value) -> std::string {
        int64_t v = 0;
        bool out_of_range = false;
        if (!parse_decimal(value, &v, &out_of_range) && !out_of_range)
          return "must be a whole number, got " + value;
        const bool negative = value[0] == '-';
        if ((out_of_range && negative) || (!out_of_range && v < min))
          return "must be >= " + std::to_string(min) + ", got " + value;
        if (out_of_range || v > max)
          return "must be <= " + std::to_string(max) + why + ", got " + value;
        value = std::to_string(v);  // what CLI11 converts is exactly what was checked
        return "";
      },
      max >= std::numeric_limits<int>::max()
          ? ">= " + std::to_string(min)
          : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

CLI::Validator size_value() {
  return integer_in_range(0, std::numeric_limits<int64_t>::max(), "the largest 64-bit size");
}

CLI::Validator unsigned_value() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        uint64_t v = 0;
        bool out_of_range = false;
        if (value[0] == '-' || !parse_decimal(value, &v, &out_of_range))
          return "must be a whole number from 0 to " +
                 std::to_string(std::numeric_limits<uint64_t>::max()) + ", got " + value;
        value = std::to_string(v);
        return "";
      },
      "");
}

CLI::Validator float32_value() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = value.empty() || std::isspace(static_cast<unsigned char>(value[0]))
                             ? 0.0
                             : std::strtod(value.c_str(), &end);
        if (end == nullptr || *end != '\0' || end == value.c_str())
          return "must be a number, got " + value;
        if (!std::isfinite(v)) return "must be finite, got " + value;
        const float f = static_cast<float>(v);
        if (!std::isfinite(f))
          return "is outside float32's range (|x| <= 3.4e38), got " + value;
        if (f == 0.0f && v != 0.0) return "rounds to 0 in float32, got " + value;
        char exact[32];
        std::snprintf(exact, sizeof exact, "%.9g", static_cast<double>(f));  // round-trips
        value = exact;
        return "";
      },
      "");
}

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const Status s = check_output_path(value);
        return s ? "" : s.message();
      },
      "FILE");
}

Status write_npy_result(const std::string& path, const float* data, int64_t rows, int64_t cols,
                        int64_t ld, Layout layout) {
  const Status s = write_npy_strided(path, data, rows, cols, ld, layout == Layout::kColMajor);
  return s ? s : Status(s.code(), "--out " + s.message());
}

Status read_npy_input(const std::string& path, bool vector, NpyMatrix* out) {
  TILEKIT_RETURN_IF_ERROR(vector ? read_npy_vector(path, out) : read_npy_matrix(path, out));
  if (out->source_dtype != "float32")
    std::cerr << "tilekit: note: " << path << " holds " << out->source_dtype
              << "; converted to float32\n";
  return Status::ok();
}

std::vector<std::string> data_dirs(const std::string& name, const std::string& source_subdir) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / TILEKIT_INSTALL_DATADIR / "tilekit" / name;
    if (fs::is_directory(installed, ec)) dirs.push_back(installed.string());
  }
  const fs::path source = fs::path(TILEKIT_SOURCE_DIR) / source_subdir;
  if (fs::is_directory(source, ec)) dirs.push_back(source.string());
  return dirs;
}

std::string scripts_dir() {
  if (const char* env = std::getenv("TILEKIT_SCRIPTS"); env && *env) return env;
  const std::vector<std::string> dirs = data_dirs("scripts", "scripts");
  return dirs.empty() ? std::string(TILEKIT_SOURCE_DIR "/scripts") : dirs.front();
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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
