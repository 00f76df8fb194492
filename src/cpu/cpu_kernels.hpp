// cpu_kernels.hpp — the CPU backend's helpers and registration functions (internal).
#pragma once

#include <string>

#include "tilekit/device.hpp"
#include "tilekit/registry.hpp"

namespace tilekit {
class BackendOps;
}

namespace tilekit::cpu {

// Each kernel file registers its own kernels (src/register_all.cpp lists the files).
void register_gemm_cpu_reference(Registry& r);  // gemm_reference.cpp — the oracles, every mode
void register_gemm_cpu_blocked(Registry& r);    // gemm_blocked.cpp — our own
void register_gemm_cpu_openblas(Registry& r);   // gemm_openblas.cpp — the vendor baseline
void register_memory_cpu(Registry& r);          // memory_kernels.cpp — transpose, dot, copy

// The CPU backend's implementation of the core's needs (cpu_backend.cpp).
const BackendOps& backend();

// alpha·op(A)·op(B) + beta·C0 in double (`value`), and |alpha|·|op(A)|·|op(B)| + |beta|·|C0|
// (`magnitude`, may be null), both dense row-major m × n, inputs rounded as p.types says. C0
// is read from p.c only when beta != 0. Host pointers. OpenMP-parallel over rows.
void reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude);

// C = beta · C over the m × n matrix at p.c (beta = 0 writes zeros without reading C).
void scale_c(const GemmProblem& p, const Context& ctx);

// FP32 FMA-bound microbenchmark on ctx.cpu_threads threads (src/cpu/fma_peak.cpp), GFLOP/s.
double fma_peak_gflops(const Context& ctx);

// Threads for an OpenMP region under `ctx` (ctx.cpu_threads, else the OpenMP default).
int thread_count(const Context& ctx);

// openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
std::string openblas_config();

}  // namespace tilekit::cpu
