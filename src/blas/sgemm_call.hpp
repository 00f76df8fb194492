// sgemm_call.hpp — one SGEMM as the Fortran interface sees it (column-major), after the CBLAS
// row-major case has been turned into its column-major twin, and the paths that compute it.
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/problems.hpp"
#include "tilekit/status.hpp"

namespace tilekit::blas {

// C = alpha·op(A)·op(B) + beta·C, column-major, arguments already checked as the reference
// SGEMM checks them; m, n >= 1.
struct SgemmCall {
  Op op_a = Op::kN, op_b = Op::kN;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  int64_t lda = 1;
  const float* b = nullptr;
  int64_t ldb = 1;
  float* c = nullptr;
  int64_t ldc = 1;

  // The stored shapes: A is rows_a × cols_a (op(A) is m × k), B is rows_b × cols_b.
  int64_t rows_a() const { return op_a == Op::kN ? m : k; }
  int64_t cols_a() const { return op_a == Op::kN ? k : m; }
  int64_t rows_b() const { return op_b == Op::kN ? k : n; }
  int64_t cols_b() const { return op_b == Op::kN ? n : k; }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

// The CPU backend (cpu_path.cpp). `note` receives what ran, for the log.
Status run_on_cpu(const SgemmCall& call, std::string* note);

// C = beta·C on the host (alpha = 0 or k = 0), exactly as the reference: beta = 0 writes zeros
// without reading C.
void scale_c_on_host(const SgemmCall& call);

// Where each operand lives, from CUDA's pointer attributes (gpu_path.cpp); all host without CUDA.
struct Residency {
  bool a_on_device = false, b_on_device = false, c_on_device = false;
  bool a_pinned = false, b_pinned = false, c_pinned = false;  // page-locked host memory
  int device = -1;  // the device of the resident operands; -1 when none is resident
  bool mixed_devices = false;  // resident operands on two different GPUs (refused)
  bool any() const { return a_on_device || b_on_device || c_on_device; }
};

// 0 without a usable GPU (or in a build without CUDA).
int gpu_count();
// Never fails: a pointer CUDA does not know is a host pointer.
Residency query_residency(const SgemmCall& call);
// The GPU path: host operands are staged through pinned buffers and pipelined with the GEMM,
// resident ones used in place. Synchronous (C is final on return). On failure, *c_written says
// whether C was already partly overwritten (so the caller knows whether a CPU retry is safe).
Status run_on_gpu(const SgemmCall& call, const Residency& where, int device, std::string* note,
                  bool* c_written);

}  // namespace tilekit::blas
