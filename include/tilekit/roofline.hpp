// roofline.hpp — measured machine ceilings for the roofline: FP32 FMA peak and memory bandwidth.
#pragma once

#include "tilekit/device.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

// Runs an FMA-bound microbenchmark on ctx's backend (every GPU lane, or every CPU thread with
// vector FMAs) and returns the median rate in GFLOP/s (an FMA counts as 2 FLOPs).
Status measure_fp32_peak(const Context& ctx, double* gflops);

// The vendor's figures where tilekit can derive them: FP32 peak = SMs × 128 lanes × 2 × max SM
// clock (sm_80/90/100), DRAM bandwidth = 2 × memory clock × bus width. 0 when not known (CPUs).
double datasheet_fp32_peak_gflops(const DeviceInfo& d);

}  // namespace tilekit
