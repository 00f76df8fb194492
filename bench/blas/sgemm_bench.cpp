// sgemm_bench.cpp — times the Fortran sgemm_ of whatever BLAS this process gets, with operands
// in ordinary (pageable) host memory, the way an unchanged program calls it.
//
// It is linked against OpenBLAS; run it plainly for OpenBLAS, or with LD_PRELOAD set to
// libtilekit_blas.so or libnvblas.so to time those on the same program
// (scripts/maintainer/gpu-blas-check.sh). Each size: `--warmup` untimed calls, then `--reps` timed ones
// (wall clock around the call: sgemm_ returns with C final); the median is reported. C is
// restored before each call, and the last result is checked at `--samples` random entries
// against a double-precision dot product, within the FP32 accumulation bound.
//
//   tilekit_blas_bench --sizes 4096,8192 --reps 5 [--trans NN] [--alpha 1] [--beta 0]
//                      [--label NAME]
// One line per size: blas-bench label=.. lib=.. n=.. median_ms=.. gflops=.. check=pass|FAIL ..
// Exit 0, 2 for bad usage, 3 when a check failed.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const float* alpha, const float* a, const int* lda,
                       const float* b, const int* ldb, const float* beta, float* c,
                       const int* ldc, size_t transa_len, size_t transb_len);

namespace {

struct Options {
  std::vector<int> sizes{1024};
  int reps = 5, warmup = 1, samples = 64;
  char ta = 'N', tb = 'N';
  float alpha = 1.0f, beta = 0.0f;
  std::string label = "run";
};

bool parse_sizes(const char* text, std::vector<int>* out) {
  out->clear();
  std::string s = text;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 46340) return false;  // n·n fits an int
    out->push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return !out->empty();
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (arg == "--sizes") {
      if (!parse_sizes(v, &o->sizes)) return false;
    } else if (arg == "--reps") {
      o->reps = std::atoi(v);
    } else if (arg == "--warmup") {
      o->warmup = std::atoi(v);
    } else if (arg == "--samples") {
      o->samples = std::atoi(v);
    } else if (arg == "--trans" && std::strlen(v) == 2) {
      o->ta = v[0];
      o->tb = v[1];
    } else if (arg == "--alpha") {
      o->alpha = std::strtof(v, nullptr);
    } else if (arg == "--beta") {
      o->beta = std::strtof(v, nullptr);
    } else if (arg == "--label") {
      o->label = v;
    } else {
      return false;
    }
  }
  return o->reps >= 1 && o->warmup >= 0 && o->samples >= 1;
}

void fill(std::vector<float>* v, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& f : *v) {  // xorshift64: fast enough for 8192² matrices
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f = static_cast<float>(static_cast<double>(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
}

// The library that defines the sgemm_ this process calls.
std::string sgemm_provider() {
  Dl_info info{};
  void* sym = dlsym(RTLD_DEFAULT, "sgemm_");
  if (sym && dladdr(sym, &info) && info.dli_fname) return info.dli_fname;
  return "unknown";
}

// Largest error at `samples` entries of C (n × n, column-major) over its bound
// 2·(k + 2)·2⁻²⁴·(|alpha|·Σ|a||b| + |beta||c0|): <= 1 passes.
double check(const Options& o, int n, const std::vector<float>& a, const std::vector<float>& b,
             const std::vector<float>& c0, const std::vector<float>& c) {
  double worst = 0;
  uint64_t x = 12345;
  for (int s = 0; s < o.samples; ++s) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int i = s == 0 ? 0 : s == 1 ? n - 1 : static_cast<int>((x >> 33) % static_cast<uint64_t>(n));
    const int j = s == 0 ? 0 : s == 1 ? n - 1 : static_cast<int>((x >> 13) % static_cast<uint64_t>(n));
    double dot = 0, mag = 0;
    for (int l = 0; l < n; ++l) {
      const size_t ai = o.ta == 'N' ? static_cast<size_t>(l) * n + i : static_cast<size_t>(i) * n + l;
      const size_t bi = o.tb == 'N' ? static_cast<size_t>(j) * n + l : static_cast<size_t>(l) * n + j;
      dot += static_cast<double>(a[ai]) * b[bi];
      mag += std::fabs(static_cast<double>(a[ai]) * b[bi]);
    }
    const size_t ci = static_cast<size_t>(j) * n + i;
    const double ref = o.alpha * dot + (o.beta == 0.0f ? 0.0 : o.beta * static_cast<double>(c0[ci]));
    const double bound = 2.0 * (n + 2) * std::ldexp(1.0, -24) *
                         (std::fabs(o.alpha) * mag + std::fabs(o.beta) * std::fabs(c0[ci])) + 1e-30;
    const double err = std::fabs(static_cast<double>(c[ci]) - ref);
    worst = std::max(worst, std::isfinite(c[ci]) ? err / bound : INFINITY);
  }
  return worst;
}

bool run_size(const Options& o, int n, const std::string& lib) {
  const size_t count = static_cast<size_t>(n) * static_cast<size_t>(n);
  std::vector<float> a(count), b(count), c0(count), c(count);
  fill(&a, 1);
  fill(&b, 2);
  fill(&c0, 3);
  std::vector<double> ms;
  for (int r = 0; r < o.warmup + o.reps; ++r) {
    std::memcpy(c.data(), c0.data(), count * sizeof(float));
    const auto t0 = std::chrono::steady_clock::now();
    sgemm_(&o.ta, &o.tb, &n, &n, &n, &o.alpha, a.data(), &n, b.data(), &n, &o.beta, c.data(), &n,
           1, 1);
    const std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
    if (r >= o.warmup) ms.push_back(dt.count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms.size() % 2 ? ms[ms.size() / 2]
                                      : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  const double gflops = 2.0 * n * static_cast<double>(n) * n / (median * 1e6);
  const double ratio = check(o, n, a, b, c0, c);
  const bool pass = ratio <= 1.0;
  std::printf("blas-bench label=%s lib=%s n=%d trans=%c%c alpha=%g beta=%g reps=%d median_ms=%.3f "
              "min_ms=%.3f max_ms=%.3f gflops=%.1f check=%s max_err_over_bound=%.3g\n",
              o.label.c_str(), lib.c_str(), n, o.ta, o.tb, o.alpha, o.beta, o.reps, median,
              ms.front(), ms.back(), gflops, pass ? "pass" : "FAIL", ratio);
  std::fflush(stdout);
  return pass;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: tilekit_blas_bench [--sizes N,N..] [--reps R] [--warmup W] [--samples S] "
                 "[--trans NN|NT|TN|TT] [--alpha A] [--beta B] [--label NAME]\n");
    return 2;
  }
  const std::string lib = sgemm_provider();
  bool ok = true;
  for (int n : o.sizes) ok = run_size(o, n, lib) && ok;
  return ok ? 0 : 3;
}
