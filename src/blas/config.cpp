// config.cpp — the TILEKIT_BLAS_* environment variables.
#include "blas/config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tilekit::blas {
namespace {

void warn(std::string* warnings, const std::string& text) {
  *warnings += "tilekit_blas: " + text + "\n";
}

void parse_device(const char* text, Config* c, std::string* warnings) {
  const std::string s = text;
  if (s.empty() || s == "auto") {
    c->device = DeviceMode::kAuto;
  } else if (s == "cpu") {
    c->device = DeviceMode::kCpu;
  } else if (s == "gpu") {
    c->device = DeviceMode::kGpu;
  } else if (s.rfind("gpu:", 0) == 0 && s.size() > 4 &&
             s.find_first_not_of("0123456789", 4) == std::string::npos && s.size() < 9) {
    c->device = DeviceMode::kGpu;
    c->gpu_index = std::atoi(s.c_str() + 4);
  } else {
    warn(warnings, "TILEKIT_BLAS_DEVICE='" + s + "' is not auto, cpu, gpu or gpu:N; using auto");
  }
}

void parse_min_flops(const char* text, Config* c, std::string* warnings) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v) || v < 0) {
    warn(warnings, std::string("TILEKIT_BLAS_MIN_FLOPS='") + text +
                       "' is not a number >= 0 (e.g. 1e9); using 1e9");
    return;
  }
  c->min_flops = v;
}

void parse_log(const char* text, Config* c, std::string* warnings) {
  const std::string s = text;
  if (s == "0" || s == "1" || s == "2") {
    c->log = s[0] - '0';
  } else {
    warn(warnings, "TILEKIT_BLAS_LOG='" + s + "' is not 0, 1 or 2; using 0");
  }
}

}  // namespace

const char* device_mode_name(DeviceMode mode) {
  switch (mode) {
    case DeviceMode::kCpu: return "cpu";
    case DeviceMode::kGpu: return "gpu";
    default: return "auto";
  }
}

Config parse_config(const char* device, const char* min_flops, const char* compute,
                    const char* log, const char* gpu_kernel, std::string* warnings) {
  Config c;
  if (device) parse_device(device, &c, warnings);
  if (min_flops) parse_min_flops(min_flops, &c, warnings);
  if (compute && *compute) {
    Compute mode = Compute::kF32;
    const Status s = parse_compute(compute, "TILEKIT_BLAS_COMPUTE", &mode);
    if (s) c.compute = mode;
    else warn(warnings, s.message() + "; using f32");
  }
  if (log && *log) parse_log(log, &c, warnings);
  if (gpu_kernel && *gpu_kernel) c.gpu_kernel = gpu_kernel;
  return c;
}

const Config& config() {
  static const Config parsed = [] {
    std::string warnings;
    Config c = parse_config(std::getenv("TILEKIT_BLAS_DEVICE"), std::getenv("TILEKIT_BLAS_MIN_FLOPS"),
                            std::getenv("TILEKIT_BLAS_COMPUTE"), std::getenv("TILEKIT_BLAS_LOG"),
                            std::getenv("TILEKIT_BLAS_GPU_KERNEL"), &warnings);
    if (!warnings.empty()) std::fputs(warnings.c_str(), stderr);
    return c;
  }();
  return parsed;
}

}  // namespace tilekit::blas
