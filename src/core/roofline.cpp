// roofline.cpp — the backend-independent half of the roofline ceilings.
#include "tilekit/roofline.hpp"

#include "core/backend.hpp"

namespace tilekit {

Status measure_fp32_peak(const Context& ctx, double* gflops) {
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, nullptr));
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  return backend_ops(ctx.backend).measure_fp32_peak(ctx, gflops);
}

double datasheet_fp32_peak_gflops(const DeviceInfo& d) {
  // FP32 lanes per SM by architecture (CUDA Programming Guide, arithmetic instruction throughput).
  int lanes = 0;
  switch (d.sm_version()) {
    case 60: case 70: case 72: case 75: case 80: lanes = 64; break;
    case 61: case 62: case 86: case 87: case 89: case 90: case 100: case 120: lanes = 128; break;
    default: lanes = 0;
  }
  return 2.0 * lanes * d.sm_count * d.sm_clock_khz / 1e6;
}

}  // namespace tilekit
