// config.hpp — libtilekit_blas's settings, read once from the environment (docs/blas.md).
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/types.hpp"

namespace tilekit::blas {

enum class DeviceMode {
  kAuto,  // the GPU when present and 2·m·n·k >= min_flops (or the operands already live there)
  kCpu,   // never the GPU: every pointer must be a host pointer
  kGpu,   // the GPU for every call that multiplies (the threshold is ignored)
};

struct Config {
  DeviceMode device = DeviceMode::kAuto;
  int gpu_index = 0;           // TILEKIT_BLAS_DEVICE=gpu:N
  double min_flops = 1e9;      // TILEKIT_BLAS_MIN_FLOPS
  Compute compute = Compute::kF32;  // TILEKIT_BLAS_COMPUTE (never TF32 unless asked)
  int log = 0;                 // TILEKIT_BLAS_LOG: 0 quiet, 1 a summary at exit, 2 every call
  std::string gpu_kernel = "auto";  // TILEKIT_BLAS_GPU_KERNEL: a registry id or "auto"
};

// The settings, parsed on first use (thread-safe). A value that does not parse is reported once
// on stderr, naming the variable, and its default is used: a BLAS call has no way to fail.
const Config& config();

// Parses one environment's worth of values (exposed for the tests); messages go to *warnings.
Config parse_config(const char* device, const char* min_flops, const char* compute,
                    const char* log, const char* gpu_kernel, std::string* warnings);

const char* device_mode_name(DeviceMode mode);

}  // namespace tilekit::blas
