#include "tilekit/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "core/backend.hpp"
#include "core/strides.hpp"
#include "tilekit/sizes.hpp"

namespace tilekit {

Status compute_gemm_reference(const Context& ctx, const GemmProblem& p, GemmReference* out) {
  TILEKIT_RETURN_IF_ERROR(validate(p));
  int64_t count = 0;
  TILEKIT_RETURN_IF_ERROR(checked_elements(p.m, p.n, "the reference of C", &count));
  // Both arrays are checked as one request: they are allocated together.
  size_t bytes = 0;
  TILEKIT_RETURN_IF_ERROR(checked_bytes(count, 2 * sizeof(double), "the reference of C", &bytes));
  TILEKIT_RETURN_IF_ERROR(check_host_allocation(bytes, "the reference of C"));
  out->m = p.m;
  out->n = p.n;
  TILEKIT_RETURN_IF_ERROR(checked_resize(out->value, count, "the reference of C"));
  TILEKIT_RETURN_IF_ERROR(checked_resize(out->magnitude, count, "the reference magnitudes"));
  if (count == 0) return Status::ok();
  const size_t elements = static_cast<size_t>(count);
  TILEKIT_RETURN_IF_ERROR(check_context(ctx, nullptr));
  DeviceScope scope(ctx);
  TILEKIT_RETURN_IF_ERROR(scope.status());
  const BackendOps& backend = backend_ops(ctx.backend);
  if (ctx.backend == Backend::kCpu)
    return backend.reference_gemm_f64(p, out->value.data(), out->magnitude.data(), ctx);
  TILEKIT_RETURN_IF_ERROR(check_device_allocation(ctx.device, bytes, "the reference of C"));
  DeviceBuffer<double> value, magnitude;  // the backend's memory: device memory on a GPU
  TILEKIT_RETURN_IF_ERROR(value.allocate(elements, "the reference result"));
  TILEKIT_RETURN_IF_ERROR(magnitude.allocate(elements, "the reference magnitudes"));
  TILEKIT_RETURN_IF_ERROR(backend.reference_gemm_f64(p, value.get(), magnitude.get(), ctx));
  TILEKIT_RETURN_IF_ERROR(value.download(out->value.data(), elements, ctx.stream));
  return magnitude.download(out->magnitude.data(), elements, ctx.stream);
}

double dot_error_bound_factor(int64_t n) {
  constexpr double u = 1.0 / 16777216.0, lambda = 6.0;
  const double nd = static_cast<double>(n);
  const double probabilistic = std::expm1(lambda * std::sqrt(nd) * u + nd * u * u / (1.0 - u));
  const double deterministic = nd * u < 0.5 ? gamma_bound(n) : probabilistic;
  return 2.0 * std::min(deterministic, probabilistic);
}

namespace {

// A GemmCheck built up over tiles of C: the per-element rule and the running maxima.
class GemmCheckAccumulator {
 public:
  GemmCheckAccumulator(int64_t k, const CheckOptions& options)
      // Rounding of alpha·sum and of beta·C0 and the final add: k + 2 roundings at most. The
      // tiny absolute term covers results that underflow into the subnormal range.
      // 3xTF32's split and a faithfully rounding vendor kernel add their input error per
      // factor; a bf16 C adds its own rounding.
      : gamma_(options.safety * (gamma_bound(k + 2) + 2.0 * options.input_roundoff)),
        output_u_(options.safety *
                  (options.c_type == DType::kBF16 ? std::ldexp(1.0, -8) : 0.0)),
        underflow_slack_(static_cast<double>(k + 2) * std::numeric_limits<float>::min()),
        exact_(options.exact), round_to_c_(options.c_type == DType::kBF16) {}

  // Compares the tile of C whose top-left element is (row0, col0) with its reference, a dense
  // row-major tile of ref.m × ref.n. In parts of kPartElements elements on every core (a 16384²
  // C took 2.2 s on one), merged in element order: the same report as one pass in order.
  void add_tile(const float* c, int64_t ldc, Layout layout, const GemmReference& ref,
                int64_t row0, int64_t col0) {
    constexpr int64_t kPartElements = int64_t{1} << 16;
    const int64_t count = ref.m * ref.n;
    const int64_t parts = (count + kPartElements - 1) / kPartElements;
    std::vector<GemmCheckAccumulator> partial(static_cast<size_t>(parts), fresh());
#pragma omp parallel for schedule(static) if (parts > 1)
    for (int64_t part = 0; part < parts; ++part) {
      const int64_t begin = part * kPartElements, end = std::min(count, begin + kPartElements);
      int64_t ti = begin / ref.n, tj = begin % ref.n;
      for (int64_t at = begin; at < end; ++at) {
        const int64_t i = row0 + ti, j = col0 + tj;
        const float got = layout == Layout::kRowMajor ? c[i * ldc + j] : c[j * ldc + i];
        partial[part].add_element(got, ref.value[at], ref.magnitude[at], i, j);
        if (++tj == ref.n) {
          tj = 0;
          ++ti;
        }
      }
    }
    for (const GemmCheckAccumulator& part : partial) merge(part);
  }

  // The elements after this accumulator's, checked apart: what checking them in order here
  // would have given. The location stays the first violation once there is one; before that it
  // is the last element with the largest ratio so far, so a later part's location wins a tie.
  void merge(const GemmCheckAccumulator& later) {
    const GemmCheck& l = later.r_;
    if (r_.violations == 0 && l.worst_i >= 0 &&
        (l.violations > 0 || l.worst_ratio >= r_.worst_ratio)) {
      r_.worst_i = l.worst_i;
      r_.worst_j = l.worst_j;
    }
    r_.checked += l.checked;
    r_.violations += l.violations;
    r_.nonfinite += l.nonfinite;
    r_.overflowed += l.overflowed;
    r_.max_abs_error = std::max(r_.max_abs_error, l.max_abs_error);
    r_.worst_ratio = std::max(r_.worst_ratio, l.worst_ratio);
    max_ref_ = std::max(max_ref_, later.max_ref_);
  }

  GemmCheck finish() {
    r_.max_rel_error = max_ref_ > 0 ? r_.max_abs_error / max_ref_ : r_.max_abs_error;
    r_.passed = r_.violations == 0;
    return r_;
  }

 private:
  void add_element(float got, double want, double mag, int64_t i, int64_t j) {
    ++r_.checked;
    // Exact mode compares with the exact result as C's type stores it.
    if (exact_ && round_to_c_) want = round_to_bf16(static_cast<float>(want));
    bool bad;
    double err = 0.0, ratio = 0.0;
    if (!std::isfinite(want)) {  // user data with Inf/NaN: the result must be non-finite too
      bad = std::isfinite(got);
    } else if (std::isinf(static_cast<float>(want)) && std::isinf(got)) {
      // The exact result is beyond float32's range: Inf of its sign is the right answer.
      ++r_.overflowed;
      bad = std::signbit(got) != std::signbit(want);
    } else if (!std::isfinite(got)) {
      bad = true;
      ++r_.nonfinite;
    } else if (exact_) {
      err = std::fabs(static_cast<double>(got) - want);
      bad = static_cast<double>(got) != want;
      ratio = bad ? std::numeric_limits<double>::infinity() : 0.0;
    } else {
      err = std::fabs(static_cast<double>(got) - want);
      const double bound = gamma_ * mag + output_u_ * std::fabs(want) + underflow_slack_;
      ratio = err / bound;
      bad = err > bound;
    }
    if (std::isfinite(want)) max_ref_ = std::max(max_ref_, std::fabs(want));
    r_.max_abs_error = std::max(r_.max_abs_error, err);
    if (bad) {
      if (r_.violations == 0) {
        r_.worst_i = i;
        r_.worst_j = j;
      }
      ++r_.violations;
    } else if (r_.violations == 0 && ratio >= r_.worst_ratio) {
      r_.worst_i = i;
      r_.worst_j = j;
    }
    if (std::isfinite(ratio)) r_.worst_ratio = std::max(r_.worst_ratio, ratio);
  }

  // The same rule with nothing checked yet.
  GemmCheckAccumulator fresh() const {
    GemmCheckAccumulator empty = *this;
    empty.r_ = GemmCheck{};
    empty.max_ref_ = 0.0;
    return empty;
  }

  const double gamma_, output_u_, underflow_slack_;
  const bool exact_, round_to_c_;
  double max_ref_ = 0.0;
  GemmCheck r_;
};

// The part of `p` that computes rows [row0, row0 + rows) and columns [col0, col0 + cols) of C:
// the same leading dimensions, pointers moved to the tile's first row of op(A), first column
// of op(B) and first element of C.
GemmProblem tile_of(const GemmProblem& p, int64_t row0, int64_t rows, int64_t col0,
                    int64_t cols) {
  GemmProblem t = p;
  t.m = rows;
  t.n = cols;
  auto advance = [](auto* base, int64_t elements, DType type) {
    using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(base)>>,
                                    const unsigned char, unsigned char>;
    return static_cast<Byte*>(base) + elements * static_cast<int64_t>(dtype_size(type));
  };
  t.a = advance(p.a, row0 * op_strides(p.layout, p.op_a, p.lda).row, p.types.a);
  t.b = advance(p.b, col0 * op_strides(p.layout, p.op_b, p.ldb).col, p.types.b);
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  t.c = advance(p.c, row0 * sc.row + col0 * sc.col, p.types.c);
  return t;
}

}  // namespace

GemmCheck check_gemm_result(const float* c, int64_t ldc, Layout layout, const GemmReference& ref,
                            int64_t k, const CheckOptions& options) {
  GemmCheckAccumulator check(k, options);
  check.add_tile(c, ldc, layout, ref, 0, 0);
  return check.finish();
}

Status verify_gemm_result(const Context& ctx, const GemmProblem& inputs, const float* c,
                          const CheckOptions& options, GemmCheck* out) {
  TILEKIT_RETURN_IF_ERROR(validate(inputs));
  // Full-width row bands while a row fits in a tile (the CPU reference is parallel over rows),
  // else one row at a time in column pieces.
  const int64_t tile_cols = std::max<int64_t>(1, std::min(inputs.n, kVerifyTileElements));
  const int64_t tile_rows = std::max<int64_t>(1, kVerifyTileElements / tile_cols);
  GemmCheckAccumulator check(inputs.k, options);
  GemmReference ref;
  for (int64_t row0 = 0; row0 < inputs.m; row0 += tile_rows)
    for (int64_t col0 = 0; col0 < inputs.n; col0 += tile_cols) {
      const int64_t rows = std::min(tile_rows, inputs.m - row0);
      const int64_t cols = std::min(tile_cols, inputs.n - col0);
      TILEKIT_RETURN_IF_ERROR(
          compute_gemm_reference(ctx, tile_of(inputs, row0, rows, col0, cols), &ref));
      check.add_tile(c, inputs.ldc, inputs.layout, ref, row0, col0);
    }
  *out = check.finish();
  return Status::ok();
}

CheckOptions check_options_for(const GemmTypes& types, bool exact, InputRounding rounding) {
  CheckOptions o;
  o.exact = exact;
  o.input_roundoff = reference_input_gap(types.a, types.compute, rounding);
  o.c_type = types.c;
  return o;
}

std::string GemmCheck::summary() const {
  char buf[320];
  if (passed) {
    std::snprintf(buf, sizeof buf, "PASS max abs %.3g rel %.3g (%.3g of bound, %lld elements)",
                  max_abs_error, max_rel_error, worst_ratio, static_cast<long long>(checked));
    if (overflowed > 0) {
      const size_t used = std::strlen(buf);
      std::snprintf(buf + used, sizeof buf - used,
                    "; %lld elements overflow float32 (the exact product is beyond 3.4e38: Inf is "
                    "the right result there, the finite ones were compared)",
                    static_cast<long long>(overflowed));
    }
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

bool same_element(float got, float want) {
  if (std::isnan(got) && std::isnan(want)) return true;
  return std::memcmp(&got, &want, sizeof(float)) == 0;
}

int64_t count_transpose_mismatches(const float* a, int64_t rows, int64_t cols, int64_t lda,
                                   const float* b, int64_t ldb) {
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (!same_element(b[c * ldb + r], a[r * lda + c])) ++wrong;
  return wrong;
}

DotReference dot_reference(const float* x, const float* y, int64_t n) {
  DotReference ref;
  for (int64_t i = 0; i < n; ++i) {
    const double product = static_cast<double>(x[i]) * static_cast<double>(y[i]);
    ref.value += product;
    ref.magnitude += std::fabs(product);
  }
  return ref;
}

DotCheck check_dot_result(float result, const DotReference& reference, int64_t n) {
  DotCheck check;
  check.result = result;
  check.reference = reference.value;
  if (!std::isfinite(reference.value)) {
    check.passed = std::isnan(reference.value) ? std::isnan(result)
                                               : static_cast<double>(result) == reference.value;
    return check;
  }
  // Float accumulation in any order (or double), then one rounding to float.
  check.bound = dot_error_bound_factor(n) * reference.magnitude +
                std::fabs(reference.value) / 16777216.0 + std::numeric_limits<float>::min();
  if (!std::isfinite(result)) {
    // Correct only as the overflow of a reference beyond float's range.
    check.error = std::numeric_limits<double>::infinity();
    check.passed = std::isinf(result) && static_cast<float>(reference.value) == result;
    return check;
  }
  check.error = std::fabs(static_cast<double>(result) - reference.value);
  check.passed = check.error <= check.bound;
  return check;
}

std::string DotCheck::summary() const {
  char buf[200];
  if (!std::isfinite(reference) || !std::isfinite(result)) {
    std::snprintf(buf, sizeof buf, "%s %g where the reference is %.17g", passed ? "PASS" : "FAIL",
                  static_cast<double>(result), reference);
  } else {
    std::snprintf(buf, sizeof buf, "%s |err| %.3g %s bound %.3g (reference %.17g)",
                  passed ? "PASS" : "FAIL", error, passed ? "<=" : ">", bound, reference);
  }
  return buf;
}

namespace {

// SplitMix64's output function: a bijection of 64-bit words whose outputs for consecutive
// inputs pass the usual statistical tests (Steele, Lea and Flood, 2014).
uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

// Counter-based: element i is a function of (seed, i) alone, so the fill runs on every core and
// gives the same array whatever the thread count. A sequential std::mt19937_64 took 4–6 s for
// each of a 16384² GEMM's three operands, in every benchmark pass over that shape.
void fill_uniform(float* data, size_t count, uint64_t seed, float lo, float hi) {
  constexpr int64_t kParallelFrom = int64_t{1} << 20;
  const uint64_t key = mix64(seed);
  // 24 random bits scaled to [lo, hi): every value a multiple of (hi − lo) / 2^24 from lo.
  // The clamp: lo + x·step can round up to hi when hi − lo is small beside |lo|.
  const float step = (hi - lo) / 16777216.0f, below_hi = std::nextafter(hi, lo);
  const int64_t n = static_cast<int64_t>(count);
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = mix64(key + static_cast<uint64_t>(i));
    data[i] = std::min(lo + static_cast<float>(bits >> 40) * step, below_hi);
  }
}

void fill_small_integers(float* data, size_t count, uint64_t seed, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(dist(rng));
}

}  // namespace tilekit
