#include "support/gemm_case.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace tilekit::testing {
namespace {
constexpr int64_t kGuard = 37;            // elements before and after C's span
constexpr float kSentinel = -12345.625f;  // exactly representable, unlike any result here
}  // namespace

std::string GemmCase::describe() const {
  std::ostringstream s;
  s << layout_name(layout) << "-major " << op_char(op_a) << op_char(op_b) << " m=" << m
    << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta << " ld_pad=" << ld_pad
    << (exact ? " exact" : "");
  if (seed) s << " seed=" << seed;
  return s.str();
}

std::string CaseResult::message() const {
  std::ostringstream s;
  if (!status) s << "status: " << status.to_string() << "; ";
  s << check.summary();
  if (guard_violations) s << "; " << guard_violations << " padding/guard elements of C changed";
  return s.str();
}

uint64_t test_seed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char* env = std::getenv("TILEKIT_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    return static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007);
  }();
  return seed;
}

CaseResult run_gemm_case(const GemmCase& c, const Context& ctx, const GemmKernel* kernel) {
  CaseResult r;
  GemmProblem p;
  p.layout = c.layout;
  p.op_a = c.op_a;
  p.op_b = c.op_b;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.lda = p.min_lda() + c.ld_pad;
  p.ldb = p.min_ldb() + c.ld_pad;
  p.ldc = p.min_ldc() + c.ld_pad;

  // A and B: random everywhere, padding included (a kernel must not read padding into results).
  std::vector<float> a(static_cast<size_t>(std::max<int64_t>(p.a_span(), 1)));
  std::vector<float> b(static_cast<size_t>(std::max<int64_t>(p.b_span(), 1)));
  if (c.exact) {
    fill_small_integers(a.data(), a.size(), c.seed * 4 + 0);
    fill_small_integers(b.data(), b.size(), c.seed * 4 + 1);
  } else {
    fill_uniform(a.data(), a.size(), c.seed * 4 + 0);
    fill_uniform(b.data(), b.size(), c.seed * 4 + 1);
  }
  // C: [guard][span][guard]; the span's padding and the guards hold the sentinel.
  const int64_t span = p.c_span();
  std::vector<float> c_buf(static_cast<size_t>(span + 2 * kGuard), kSentinel);
  std::vector<bool> is_element(c_buf.size(), false);
  std::vector<float> c0(static_cast<size_t>(std::max<int64_t>(span, 1)), kSentinel);
  {
    std::vector<float> vals(static_cast<size_t>(p.m * p.n));
    if (c.exact) fill_small_integers(vals.data(), vals.size(), c.seed * 4 + 2);
    else fill_uniform(vals.data(), vals.size(), c.seed * 4 + 2);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const int64_t off = c.layout == Layout::kRowMajor ? i * p.ldc + j : j * p.ldc + i;
        const float v = vals[static_cast<size_t>(i * p.n + j)];
        c0[static_cast<size_t>(off)] = v;
        // beta = 0 must not read C: poison it.
        c_buf[static_cast<size_t>(kGuard + off)] =
            c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : v;
        is_element[static_cast<size_t>(kGuard + off)] = true;
      }
  }

  // Run on the requested backend.
  GemmOptions options;
  const bool gpu = ctx.backend == Backend::kCuda;
  DeviceBuffer<float> d_a, d_b, d_c;
  if (gpu) {
    if (!(r.status = d_a.allocate(a.size(), "A")) || !(r.status = d_b.allocate(b.size(), "B")) ||
        !(r.status = d_c.allocate(c_buf.size(), "C")) ||
        !(r.status = d_a.upload(a.data(), a.size())) ||
        !(r.status = d_b.upload(b.data(), b.size())) ||
        !(r.status = d_c.upload(c_buf.data(), c_buf.size())))
      return r;
    p.a = d_a.get();
    p.b = d_b.get();
    p.c = d_c.get() + kGuard;
  } else {
    p.a = a.data();
    p.b = b.data();
    p.c = c_buf.data() + kGuard;
  }
  // Reference from C0 on the same backend: the CPU oracle, or its GPU twin (tested against
  // the CPU one) so that large GPU cases do not wait minutes for the CPU.
  GemmReference ref;
  {
    GemmProblem ref_p = p;
    DeviceBuffer<float> d_c0;
    ref_p.c = c0.data();
    if (gpu) {
      if (!(r.status = d_c0.allocate(c0.size(), "C0")) ||
          !(r.status = d_c0.upload(c0.data(), c0.size())))
        return r;
      ref_p.c = d_c0.get();
    }
    r.status = compute_gemm_reference(ctx, ref_p, &ref);
    if (!r.status) return r;
  }
  r.status = kernel ? run_gemm_kernel(*kernel, ctx, p) : gemm(ctx, p, options);
  if (r.status.code() == StatusCode::kNotSupported && kernel) {
    r.skipped = true;
    return r;
  }
  if (!r.status) return r;
  if (gpu) {
    if (!(r.status = device_synchronize(ctx)) ||
        !(r.status = d_c.download(c_buf.data(), c_buf.size())))
      return r;
  }
  for (size_t i = 0; i < c_buf.size(); ++i)
    if (!is_element[i] && std::memcmp(&c_buf[i], &kSentinel, sizeof(float)) != 0)
      ++r.guard_violations;
  CheckOptions opts;
  opts.exact = c.exact;
  r.check = check_gemm_result(c_buf.data() + kGuard, p.ldc, p.layout, ref, p.k, opts);
  return r;
}

}  // namespace tilekit::testing
