#include "support/memory_case.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "tilekit/verify.hpp"

namespace tilekit::testing {
namespace {

constexpr int64_t kGuard = 29;
constexpr float kSentinel = -777.25f;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Host buffers in, a kernel run on ctx's backend, host buffer out.
struct Staged {
  std::vector<DeviceBuffer<float>> device;
  Status upload(const Context& ctx, std::vector<float>& host, float** ptr) {
    if (ctx.backend == Backend::kCpu) {
      *ptr = host.data();
      return Status::ok();
    }
    device.emplace_back();
    TILEKIT_RETURN_IF_ERROR(device.back().allocate(host.size(), "test buffer"));
    TILEKIT_RETURN_IF_ERROR(device.back().upload(host.data(), host.size()));
    *ptr = device.back().get();
    return Status::ok();
  }
  Status download(const Context& ctx, std::vector<float>& host, const float* ptr) {
    if (ctx.backend == Backend::kCpu) return Status::ok();
    TILEKIT_RETURN_IF_ERROR(device_synchronize(ctx));
    return copy_device_to_host(host.data(), ptr, host.size() * sizeof(float));
  }
};

}  // namespace

std::string TransposeCase::name() const {
  std::ostringstream s;
  s << rows << "x" << cols;
  if (lda_pad || ldb_pad) s << "_pad" << lda_pad << "_" << ldb_pad;
  return s.str();
}

std::string DotCase::name() const {
  std::ostringstream s;
  s << "n" << n << (inputs == kMixedSign ? "_mixed" : inputs == kPositive ? "_positive" : "_ints");
  if (offset) s << "_off" << offset;
  return s.str();
}

std::string MemoryResult::message() const {
  std::ostringstream s;
  if (!status) s << "status: " << status.to_string() << "; ";
  if (mismatches) s << mismatches << " elements wrong; ";
  if (guard_violations) s << guard_violations << " padding/guard elements changed; ";
  if (bound > 0) s << "value " << value << " reference " << reference << " bound " << bound;
  return s.str();
}

MemoryResult run_transpose_case(const TransposeCase& c, const Context& ctx,
                                const TransposeKernel* kernel, uint64_t seed) {
  MemoryResult r;
  const int64_t lda = std::max<int64_t>(1, c.cols) + c.lda_pad;
  const int64_t ldb = std::max<int64_t>(1, c.rows) + c.ldb_pad;
  std::vector<float> a(static_cast<size_t>(std::max<int64_t>(1, c.rows * lda)));
  fill_uniform(a.data(), a.size(), seed);
  const int64_t b_span = c.cols * ldb;
  std::vector<float> b(static_cast<size_t>(b_span + 2 * kGuard), kSentinel);
  Staged staged;
  float *d_a = nullptr, *d_b = nullptr;
  if (!(r.status = staged.upload(ctx, a, &d_a)) || !(r.status = staged.upload(ctx, b, &d_b)))
    return r;
  TransposeProblem p{c.rows, c.cols, d_a, lda, d_b + kGuard, ldb};
  if (kernel) {
    r.status = run_transpose_kernel(*kernel, ctx, p);
    if (r.status.code() == StatusCode::kNotSupported) {
      r.skipped = true;
      return r;
    }
  } else {
    r.status = transpose(ctx, p.rows, p.cols, p.a, p.lda, p.b, p.ldb);
  }
  if (!r.status || !(r.status = staged.download(ctx, b, d_b))) return r;
  for (int64_t i = 0; i < static_cast<int64_t>(b.size()); ++i) {
    const int64_t off = i - kGuard;
    const bool element = off >= 0 && off < b_span && off % ldb < c.rows;
    if (!element) {
      if (!same_bits(b[static_cast<size_t>(i)], kSentinel)) ++r.guard_violations;
      continue;
    }
    const int64_t col = off / ldb, row = off % ldb;  // B[col][row] = A[row][col]
    if (!same_bits(b[static_cast<size_t>(i)], a[static_cast<size_t>(row * lda + col)])) ++r.mismatches;
  }
  return r;
}

MemoryResult run_dot_case(const DotCase& c, const Context& ctx, const DotKernel* kernel,
                          uint64_t seed) {
  MemoryResult r;
  std::vector<float> x(static_cast<size_t>(c.n + c.offset + 1)), y(x.size());
  if (c.inputs == DotCase::kSmallIntegers) {
    fill_small_integers(x.data(), x.size(), seed * 2);
    fill_small_integers(y.data(), y.size(), seed * 2 + 1);
  } else {
    const float lo = c.inputs == DotCase::kPositive ? 0.0f : -1.0f;
    fill_uniform(x.data(), x.size(), seed * 2, lo, 1.0f);
    fill_uniform(y.data(), y.size(), seed * 2 + 1, lo, 1.0f);
  }
  std::vector<float> out = {std::numeric_limits<float>::quiet_NaN()};
  Staged staged;
  float *d_x = nullptr, *d_y = nullptr, *d_out = nullptr;
  if (!(r.status = staged.upload(ctx, x, &d_x)) || !(r.status = staged.upload(ctx, y, &d_y)) ||
      !(r.status = staged.upload(ctx, out, &d_out)))
    return r;
  DotProblem p{c.n, d_x + c.offset, d_y + c.offset, d_out};
  if (kernel) {
    r.status = run_dot_kernel(*kernel, ctx, p);
    if (r.status.code() == StatusCode::kNotSupported) {
      r.skipped = true;
      return r;
    }
  } else {
    r.status = dot(ctx, p.n, p.x, p.y, p.result);
  }
  if (!r.status || !(r.status = staged.download(ctx, out, d_out))) return r;
  const DotReference ref = dot_reference(x.data() + c.offset, y.data() + c.offset, c.n);
  r.reference = ref.value;
  r.value = out[0];
  // Small integers: every product and partial sum is an integer below 2^24, exact in float, so
  // the result must equal the reference; otherwise the library's one dot bound decides.
  if (c.inputs == DotCase::kSmallIntegers) {
    r.bound = std::numeric_limits<double>::min();  // shown in the message
    if (static_cast<double>(r.value) != r.reference) r.mismatches = 1;
  } else {
    const DotCheck check = check_dot_result(r.value, ref, c.n);
    r.bound = check.bound;
    if (!check.passed) r.mismatches = 1;
  }
  return r;
}

MemoryResult run_copy_case(int64_t n, const Context& ctx, const CopyKernel& kernel, uint64_t seed,
                           bool aligned) {
  MemoryResult r;
  const int64_t guard = aligned ? 32 : 33;  // floats before the destination
  std::vector<float> x(static_cast<size_t>(std::max<int64_t>(n, 1)));
  fill_uniform(x.data(), x.size(), seed);
  std::vector<float> y(static_cast<size_t>(n + 2 * guard), kSentinel);
  Staged staged;
  float *d_x = nullptr, *d_y = nullptr;
  if (!(r.status = staged.upload(ctx, x, &d_x)) || !(r.status = staged.upload(ctx, y, &d_y)))
    return r;
  r.status = run_copy_kernel(kernel, ctx, CopyProblem{n, d_x, d_y + guard});
  if (r.status.code() == StatusCode::kNotSupported) {
    r.skipped = true;
    return r;
  }
  if (!r.status || !(r.status = staged.download(ctx, y, d_y))) return r;
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    const int64_t off = i - guard;
    if (off >= 0 && off < n) {
      if (!same_bits(y[static_cast<size_t>(i)], x[static_cast<size_t>(off)])) ++r.mismatches;
    } else if (!same_bits(y[static_cast<size_t>(i)], kSentinel)) {
      ++r.guard_violations;
    }
  }
  return r;
}

}  // namespace tilekit::testing
