// cuda_kernels.hpp — the CUDA backend's helpers and registration functions (internal,
// host-only).
#pragma once

#include "tilekit/device.hpp"
#include "tilekit/registry.hpp"

namespace tilekit {
class BackendOps;
}

namespace tilekit::cuda {

// The CUDA backend's implementation of the core's needs (common/cuda_backend.cpp).
const BackendOps& backend();

// Ok when ctx names a present device; *info its cached properties (common/device.cpp).
Status check_device_context(const Context& ctx, const DeviceInfo** info);

// C = beta · C on the device (beta = 0 writes zeros without reading C) (common/scale.cu).
Status scale_c(const GemmProblem& p, const Context& ctx);

// The GPU twin of cpu::reference_gemm_f64: double-accumulated value and magnitude, dense
// row-major m × n device arrays, inputs rounded as p.types says. Verifies GPU results at sizes
// where the CPU reference would take minutes (common/reference_gemm.cu).
Status reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude,
                          const Context& ctx);

// The FP32 FMA ceiling of ctx's device, measured (common/fma_peak.cu).
Status measure_fp32_peak(const Context& ctx, double* gflops);

}  // namespace tilekit::cuda
