// api.cpp — the exported BLAS symbols: sgemm_ (Fortran ABI) and cblas_sgemm.
//
// Only these two symbols leave the library (exports.map): preloaded over a system BLAS, every
// other routine still comes from the BLAS underneath. Arguments are checked in the reference
// BLAS's order and reported through the process's xerbla_ / cblas_xerbla with the reference
// positions; C is not touched then. The work goes to the GPU or the CPU (route()).
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

#include "blas/config.hpp"
#include "blas/sgemm_call.hpp"

namespace tilekit::blas {
namespace {

// ---- counters for TILEKIT_BLAS_LOG=1 (printed at exit) ------------------------------------------
struct Counters {
  std::atomic<unsigned long long> fortran{0}, cblas{0}, quick{0}, scaled{0}, cpu{0}, gpu{0},
      failed{0}, arg_errors{0};
  // Copied from config() on each call: at exit config()'s own static may already be destroyed.
  std::atomic<int> log_level{0};
  ~Counters() {
    if (log_level.load() < 1) return;
    std::fprintf(stderr,
                 "tilekit_blas: summary: sgemm_ %llu cblas_sgemm %llu | quick %llu scaled %llu "
                 "cpu %llu gpu %llu failed %llu | argument errors %llu\n",
                 fortran.load(), cblas.load(), quick.load(), scaled.load(), cpu.load(), gpu.load(),
                 failed.load(), arg_errors.load());
  }
};
Counters counters;

// A warning printed once per distinct text, whatever TILEKIT_BLAS_LOG says: these mean the
// caller is not getting what they asked for.
void warn_once(const std::string& text) {
  static std::mutex mutex;
  static std::string seen;
  const std::lock_guard<std::mutex> lock(mutex);
  if (seen.find(text + "\n") != std::string::npos) return;
  seen += text + "\n";
  std::fprintf(stderr, "tilekit_blas: %s\n", text.c_str());
}

void log_config_once(int gpus) {
  static std::once_flag once;
  std::call_once(once, [gpus] {
    const Config& c = config();
    std::fprintf(stderr,
                 "tilekit_blas: device=%s gpu_index=%d min_flops=%g compute=%s gpu_kernel=%s "
                 "(usable GPUs: %d)\n",
                 device_mode_name(c.device), c.gpu_index, c.min_flops, compute_name(c.compute),
                 c.gpu_kernel.c_str(), gpus);
  });
}

void log_call(const char* routine, const SgemmCall& call, const std::string& route, double ms) {
  if (config().log < 2) return;
  std::fprintf(stderr,
               "tilekit_blas: %s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g "
               "beta=%g -> %s %.3f ms\n",
               routine, call.op_a == Op::kN ? 'N' : 'T', call.op_b == Op::kN ? 'N' : 'T',
               static_cast<long long>(call.m), static_cast<long long>(call.n),
               static_cast<long long>(call.k), static_cast<long long>(call.lda),
               static_cast<long long>(call.ldb), static_cast<long long>(call.ldc), call.alpha,
               call.beta, route.c_str(), ms);
}

// The GPU when asked for or worth it; the CPU otherwise or when the GPU path cannot run.
// Returns what ran, for the log.
std::string route(const SgemmCall& call) {
  const Config& cfg = config();
  counters.log_level = cfg.log;
  const int gpus = cfg.device == DeviceMode::kCpu ? 0 : gpu_count();
  if (cfg.log >= 1) log_config_once(gpus);
  if (call.m == 0 || call.n == 0 || ((call.alpha == 0.0f || call.k == 0) && call.beta == 1.0f)) {
    ++counters.quick;
    return "quick return";
  }
  // Pointers CUDA knows are used where they live, whatever the size; in cpu mode every pointer
  // is taken to be a host pointer (no CUDA call at all).
  const Residency where = gpus > 0 ? query_residency(call) : Residency{};
  if ((call.alpha == 0.0f || call.k == 0) && !where.c_on_device) {
    scale_c_on_host(call);  // no product to compute: moving data would cost more than this
    ++counters.scaled;
    return "scaled on the host";
  }
  if (cfg.device == DeviceMode::kGpu && gpus == 0)
    warn_once("TILEKIT_BLAS_DEVICE=gpu but no usable GPU (or a build without CUDA): using the CPU");
  std::string note;
  const bool wanted = cfg.device == DeviceMode::kGpu || call.flops() >= cfg.min_flops;
  if (gpus > 0 && (where.any() || wanted)) {
    int device = where.device >= 0 ? where.device : cfg.gpu_index;
    if (device >= gpus) {
      warn_once("TILEKIT_BLAS_DEVICE asks for GPU " + std::to_string(device) + " of " +
                std::to_string(gpus) + ": using GPU 0");
      device = 0;
    }
    bool c_written = false;
    const Status s = run_on_gpu(call, where, device, &note, &c_written);
    if (s) {
      ++counters.gpu;
      return note;
    }
    if (where.any() || c_written) {
      // Device operands cannot go to the CPU, and a half-written C cannot be recomputed.
      ++counters.failed;
      warn_once("sgemm on GPU " + std::to_string(device) + " failed, C is not valid: " +
                s.to_string());
      return "failed";
    }
    warn_once("sgemm on GPU " + std::to_string(device) + " failed, computing on the CPU: " +
              s.to_string());
  }
  const Status s = run_on_cpu(call, &note);
  if (!s) {
    ++counters.failed;
    warn_once("sgemm on the CPU failed: " + s.to_string());
    return "failed";
  }
  ++counters.cpu;
  return note;
}

void compute(const char* routine, const SgemmCall& call) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string what = route(call);
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - t0;
  log_call(routine, call, what, ms.count());
}

// ---- argument checks and error reports, as the reference BLAS does them ------------------------
char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// The reference SGEMM's checks: 0, or the Fortran position of the first bad argument
// (TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13).
int check_fortran(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
  ta = upper(ta);
  tb = upper(tb);
  const bool nota = ta == 'N', notb = tb == 'N';
  const int rows_a = nota ? m : k, rows_b = notb ? k : n;
  if (!nota && ta != 'C' && ta != 'T') return 1;
  if (!notb && tb != 'C' && tb != 'T') return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < (rows_a > 1 ? rows_a : 1)) return 8;
  if (ldb < (rows_b > 1 ? rows_b : 1)) return 10;
  if (ldc < (m > 1 ? m : 1)) return 13;
  return 0;
}

// XERBLA('SGEMM ', INFO): the program's own when it has one (the testers do), else the BLAS's.
void report_fortran(int info) {
  ++counters.arg_errors;
  using Xerbla = void (*)(const char*, const int*, size_t);
  if (auto xerbla = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"))) {
    xerbla("SGEMM ", &info, 6);  // 6: Fortran's hidden length of the name
    return;
  }
  std::fprintf(stderr, " ** On entry to SGEMM  parameter number %2d had an illegal value\n", info);
}

// cblas_xerbla(info, "cblas_sgemm", ...) as the reference CBLAS calls it: a row-major call is
// checked as its column-major twin (A and B, M and N swapped) and reported in the twin's
// numbering with the global RowMajorStrg = 1, which tells the handler to swap 4↔5 and 9↔11 back
// to the caller's positions. Without RowMajorStrg in the process, the caller's position is passed.
void report_cblas(int info, bool row_major) {
  ++counters.arg_errors;
  auto* row_major_flag = static_cast<int*>(dlsym(RTLD_DEFAULT, "RowMajorStrg"));
  int callers_position = info;
  if (row_major) {
    const int swapped[15] = {0, 1, 2, 3, 5, 4, 6, 7, 8, 11, 10, 9, 12, 13, 14};
    if (info >= 0 && info < 15) callers_position = swapped[info];
  }
  using CblasXerbla = void (*)(int, const char*, const char*, ...);
  if (auto xerbla = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"))) {
    if (row_major_flag) *row_major_flag = row_major ? 1 : 0;
    xerbla(row_major_flag ? info : callers_position, "cblas_sgemm", "");
    if (row_major_flag) *row_major_flag = 0;
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine cblas_sgemm was incorrect\n", callers_position);
}

Op to_op(char t) { return upper(t) == 'N' ? Op::kN : Op::kT; }  // 'C' is 'T' for real data

SgemmCall make_call(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda,
                    const float* b, int ldb, float beta, float* c, int ldc) {
  SgemmCall call;
  call.op_a = to_op(ta);
  call.op_b = to_op(tb);
  call.m = m;
  call.n = n;
  call.k = k;
  call.alpha = alpha;
  call.a = a;
  call.lda = lda;
  call.b = b;
  call.ldb = ldb;
  call.beta = beta;
  call.c = c;
  call.ldc = ldc;
  return call;
}

// Re-entry guard: if anything below ever calls sgemm_/cblas_sgemm by name while this library is
// preloaded (e.g. a vendor CPU kernel), the call goes to the BLAS underneath instead of looping.
thread_local int depth = 0;
struct DepthGuard {
  DepthGuard() { ++depth; }
  ~DepthGuard() { --depth; }
};

template <typename Fn>
Fn next_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

enum { kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113 };

char cblas_trans(int t) {
  return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : '\0';
}

}  // namespace
}  // namespace tilekit::blas

using namespace tilekit::blas;

extern "C" {

// The Fortran SGEMM. gfortran passes each CHARACTER argument's length as a hidden trailing
// size_t; only the first character matters, so the lengths are accepted and never read (C
// callers that omit them are therefore safe too).
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t /*transa_len*/,
            size_t /*transb_len*/) {
  if (depth > 0) {
    using Fn = void (*)(const char*, const char*, const int*, const int*, const int*,
                        const float*, const float*, const int*, const float*, const int*,
                        const float*, float*, const int*, size_t, size_t);
    if (auto next = next_symbol<Fn>("sgemm_"))
      next(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
    else warn_once("sgemm_ re-entered and no BLAS underneath: call dropped");
    return;
  }
  const DepthGuard guard;
  ++counters.fortran;
  if (const int info = check_fortran(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc)) {
    report_fortran(info);
    return;
  }
  compute("sgemm_", make_call(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                              *ldc));
}

// CBLAS: enums as ints (CblasRowMajor 101, CblasColMajor 102; CblasNoTrans 111, CblasTrans 112,
// CblasConjTrans 113), the ABI every cblas.h shares. A row-major call is its column-major twin:
// Cᵀ = op(B)ᵀ·op(A)ᵀ, the same memory with A and B, M and N swapped.
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  if (depth > 0) {
    using Fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                        float, float*, int);
    if (auto next = next_symbol<Fn>("cblas_sgemm"))
      next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else warn_once("cblas_sgemm re-entered and no BLAS underneath: call dropped");
    return;
  }
  const DepthGuard guard;
  ++counters.cblas;
  if (layout != kRowMajor && layout != kColMajor) {
    report_cblas(1, false);
    return;
  }
  const bool row = layout == kRowMajor;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (ta == '\0') {
    report_cblas(2, row);
    return;
  }
  if (tb == '\0') {
    report_cblas(3, row);
    return;
  }
  // The Fortran position plus one (the layout argument) is the CBLAS position of the twin.
  if (!row) {
    if (const int info = check_fortran(ta, tb, m, n, k, lda, ldb, ldc)) {
      report_cblas(info + 1, false);
      return;
    }
    compute("cblas_sgemm", make_call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
    return;
  }
  if (const int info = check_fortran(tb, ta, n, m, k, ldb, lda, ldc)) {
    report_cblas(info + 1, true);
    return;
  }
  compute("cblas_sgemm", make_call(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc));
}

}  // extern "C"
