// cpu_kernels.hpp — the CPU backend's GEMM kernels and helpers (internal).
#pragma once

#include <string>

#include "tilekit/device.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cpu {

// gemm.cpu.reference.f32 — double accumulation, any layout/op: the test oracle.
GemmKernel reference_gemm_kernel();
// gemm.cpu.blocked.f32.* — packed, cache-blocked, OpenMP-parallel; our own CPU GEMM.
GemmKernel blocked_gemm_kernel();
// gemm.cpu.openblas.f32 — OpenBLAS cblas_sgemm, the CPU baseline.
GemmKernel openblas_gemm_kernel();

// Transpose, dot and copy (src/cpu/memory_kernels.cpp).
TransposeKernel transpose_reference_kernel();
TransposeKernel transpose_blocked_kernel();
DotKernel dot_reference_kernel();
DotKernel dot_openmp_kernel();
CopyKernel copy_memcpy_kernel();

// alpha·op(A)·op(B) + beta·C0 in double (`value`), and |alpha|·|op(A)|·|op(B)| + |beta|·|C0|
// (`magnitude`, may be null), both dense row-major m × n. C0 is read from p.c only when
// beta != 0. Host pointers. OpenMP-parallel over rows.
void reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude);

// C = beta · C over the m × n matrix at p.c (beta = 0 writes zeros without reading C).
void scale_c(const GemmProblem& p, const Context& ctx);

// FP32 FMA-bound microbenchmark on ctx.cpu_threads threads (src/cpu/fma_peak.cpp), GFLOP/s.
double fma_peak_gflops(const Context& ctx);

// Threads for an OpenMP region under `ctx` (ctx.cpu_threads, else the OpenMP default).
int thread_count(const Context& ctx);

}  // namespace tilekit::cpu

namespace tilekit::cpu {
// openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
std::string openblas_config();
}  // namespace tilekit::cpu
