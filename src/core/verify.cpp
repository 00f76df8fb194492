#include "tilekit/verify.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "core/backend.hpp"

namespace tilekit {

Status compute_gemm_reference(const Context& ctx, const GemmProblem& p, GemmReference* out) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  out->m = p.m;
  out->n = p.n;
  const size_t count = static_cast<size_t>(p.m * p.n);
  out->value.assign(count, 0.0);
  out->magnitude.assign(count, 0.0);
  if (count == 0) return Status::ok();
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, nullptr));
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  const BackendOps& backend = backend_ops(ctx.backend);
  if (ctx.backend == Backend::kCpu)
    return backend.reference_gemm_f64(p, out->value.data(), out->magnitude.data(), ctx);
  DeviceBuffer<double> value, magnitude;  // the backend's memory: device memory on a GPU
  TILEKIT_RETURN_IF_ERROR(value.allocate(count, "the reference result"));
  TILEKIT_RETURN_IF_ERROR(magnitude.allocate(count, "the reference magnitudes"));
  TILEKIT_RETURN_IF_ERROR(backend.reference_gemm_f64(p, value.get(), magnitude.get(), ctx));
  TILEKIT_RETURN_IF_ERROR(value.download(out->value.data(), count, ctx.stream));
  return magnitude.download(out->magnitude.data(), count, ctx.stream);
}

double dot_error_bound_factor(int64_t n) {
  constexpr double u = 1.0 / 16777216.0, lambda = 6.0;
  const double nd = static_cast<double>(n);
  const double probabilistic = std::expm1(lambda * std::sqrt(nd) * u + nd * u * u / (1.0 - u));
  const double deterministic = nd * u < 0.5 ? gamma_bound(n) : probabilistic;
  return 2.0 * std::min(deterministic, probabilistic);
}

GemmCheck check_gemm_result(const float* c, int64_t ldc, Layout layout, const GemmReference& ref,
                            int64_t k, const CheckOptions& options) {
  GemmCheck r;
  // Rounding of alpha·sum and of beta·C0 and the final add: k + 2 roundings at most. The tiny
  // absolute term covers results that underflow into the subnormal range.
  const double g = options.safety * (gamma_bound(k + 2) + 2.0 * options.input_roundoff);
  const double output_u = options.c_type == DType::kBF16 ? std::ldexp(1.0, -8) : 0.0;
  const double underflow_slack =
      static_cast<double>(k + 2) * std::numeric_limits<float>::min();
  double max_ref = 0.0;
  for (int64_t i = 0; i < ref.m; ++i) {
    for (int64_t j = 0; j < ref.n; ++j) {
      const float got = layout == Layout::kRowMajor ? c[i * ldc + j] : c[j * ldc + i];
      double want = ref.value[static_cast<size_t>(i * ref.n + j)];
      if (options.exact && output_u > 0) want = round_to_bf16(static_cast<float>(want));
      const double mag = ref.magnitude[static_cast<size_t>(i * ref.n + j)];
      ++r.checked;
      bool bad;
      double err = 0.0, ratio = 0.0;
      if (!std::isfinite(want)) {  // user data with Inf/NaN: the result must be non-finite too
        bad = std::isfinite(got);
      } else if (!std::isfinite(got)) {
        bad = true;
        ++r.nonfinite;
      } else if (options.exact) {
        err = std::fabs(static_cast<double>(got) - want);
        bad = static_cast<double>(got) != want;
        ratio = bad ? std::numeric_limits<double>::infinity() : 0.0;
      } else {
        err = std::fabs(static_cast<double>(got) - want);
        const double bound =
            g * mag + options.safety * output_u * std::fabs(want) + underflow_slack;
        ratio = err / bound;
        bad = err > bound;
      }
      if (std::isfinite(want)) max_ref = std::max(max_ref, std::fabs(want));
      r.max_abs_error = std::max(r.max_abs_error, err);
      if (bad) {
        if (r.violations == 0) {
          r.worst_i = i;
          r.worst_j = j;
        }
        ++r.violations;
      } else if (r.violations == 0 && ratio >= r.worst_ratio) {
        r.worst_i = i;
        r.worst_j = j;
      }
      if (std::isfinite(ratio)) r.worst_ratio = std::max(r.worst_ratio, ratio);
    }
  }
  r.max_rel_error = max_ref > 0 ? r.max_abs_error / max_ref : r.max_abs_error;
  r.passed = r.violations == 0;
  return r;
}

CheckOptions check_options_for(const GemmTypes& types, bool exact) {
  CheckOptions o;
  o.exact = exact;
  o.input_roundoff = types.compute == Compute::kF32x3TF32 ? input_unit_roundoff(types.a, types.compute)
                                                           : 0.0;
  o.c_type = types.c;
  return o;
}

std::string GemmCheck::summary() const {
  char buf[256];
  if (passed) {
    std::snprintf(buf, sizeof buf, "PASS max abs %.3g rel %.3g (%.3g of bound, %lld elements)",
                  max_abs_error, max_rel_error, worst_ratio, static_cast<long long>(checked));
  } else {
    std::snprintf(buf, sizeof buf,
                  "FAIL %lld of %lld elements outside the bound (%lld NaN/Inf), first at "
                  "(%lld, %lld); max abs %.3g rel %.3g",
                  static_cast<long long>(violations), static_cast<long long>(checked),
                  static_cast<long long>(nonfinite), static_cast<long long>(worst_i),
                  static_cast<long long>(worst_j), max_abs_error, max_rel_error);
  }
  return buf;
}

void fill_uniform(float* data, size_t count, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (size_t i = 0; i < count; ++i) data[i] = dist(rng);
}

void fill_small_integers(float* data, size_t count, uint64_t seed, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(dist(rng));
}

}  // namespace tilekit
