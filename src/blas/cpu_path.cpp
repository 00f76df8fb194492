// cpu_path.cpp — SGEMM on tilekit's CPU backend.
//
// Why tilekit's own blocked OpenMP kernel and not OpenBLAS: preloaded over a system BLAS, any
// BLAS symbol this library calls by name (cblas_sgemm, sgemm_) resolves to *our* exports first,
// so the registry's OpenBLAS entry would call back into this library. A handle on "the BLAS
// underneath" (dlsym RTLD_NEXT) is safe from that loop but is whatever the program linked — the
// reference BLAS under the netlib testers, which would then test netlib's code instead of ours.
// So the CPU path is `auto` with vendors disallowed: tilekit's blocked kernel for compute f32,
// the double-accumulating reference for other modes. No BLAS symbol is involved, so no loop.
#include <string>

#include "blas/config.hpp"
#include "blas/sgemm_call.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit::blas {

// Below this many flops (n ≈ 170) one thread does the work: waking an OpenMP team costs more
// than the product (the netlib testers' 17,000 small calls took 50× longer on all threads).
constexpr double kSerialFlops = 1e7;

Status run_on_cpu(const SgemmCall& call, std::string* note) {
  // Contexts per thread: a context is not shared between threads, and it keeps the kernel's
  // workspace between calls.
  thread_local const Context all_threads = Context::cpu();
  thread_local const Context one_thread = Context::cpu(1);
  const Context& ctx = call.flops() < kSerialFlops ? one_thread : all_threads;
  GemmOptions options;
  options.allow_vendor = false;
  GemmTypes types;
  types.compute = config().compute;
  *note = std::string("cpu (") + compute_name(types.compute) + ")";
  return gemm_ex(ctx, Layout::kColMajor, call.op_a, call.op_b, call.m, call.n, call.k, types,
                 call.alpha, call.a, call.lda, call.b, call.ldb, call.beta, call.c, call.ldc,
                 options);
}

void scale_c_on_host(const SgemmCall& call) {
  for (int64_t j = 0; j < call.n; ++j) {
    float* col = call.c + j * call.ldc;
    if (call.beta == 0.0f) {
      for (int64_t i = 0; i < call.m; ++i) col[i] = 0.0f;
    } else {
      for (int64_t i = 0; i < call.m; ++i) col[i] *= call.beta;
    }
  }
}

}  // namespace tilekit::blas
