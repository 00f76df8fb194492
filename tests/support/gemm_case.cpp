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
// Elements before and after C's span: 160 bytes of f32, 80 of a 16-bit type, so that C starts on
// a 16-byte boundary (plus GemmCase::misalign elements).
constexpr int64_t kGuard = 40;
constexpr float kSentinel = -12345.625f;  // exactly representable, unlike any result here
}  // namespace

std::string GemmCase::describe() const {
  std::ostringstream s;
  s << layout_name(layout) << "-major " << op_char(op_a) << op_char(op_b) << " m=" << m
    << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta << " ld_pad=" << ld_pad
    << (misalign ? " misalign=" + std::to_string(misalign) : "") << (exact ? " exact" : "")
    << (split_k ? " split_k=" + std::to_string(split_k) : "");
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

namespace {

// Host bytes of `values` stored as `type` (the inputs a kernel of that type reads), and back.
std::vector<unsigned char> encode(const std::vector<float>& values, DType type) {
  std::vector<unsigned char> out(values.size() * dtype_size(type));
  encode_from_f32(values.data(), values.size(), type, out.data());
  return out;
}

std::vector<float> decode(const std::vector<unsigned char>& bytes, DType type) {
  std::vector<float> out(bytes.size() / dtype_size(type));
  decode_to_f32(bytes.data(), out.size(), type, out.data());
  return out;
}

void fill(std::vector<float>& v, bool exact, uint64_t seed) {
  if (exact) fill_small_integers(v.data(), v.size(), seed);
  else fill_uniform(v.data(), v.size(), seed);
}

// The operand bytes on ctx's backend: the host vector itself, or a device copy.
struct Staged {
  std::vector<unsigned char> host;
  DeviceBuffer<unsigned char> device;
  Status stage(const Context& ctx) {
    if (ctx.backend != Backend::kCuda) return Status::ok();
    TILEKIT_RETURN_IF_ERROR(device.allocate(host.size(), "test operand"));
    return device.upload(host.data(), host.size());
  }
  unsigned char* data(const Context& ctx) {
    return ctx.backend == Backend::kCuda ? device.get() : host.data();
  }
};

}  // namespace

CaseResult run_gemm_case(const GemmCase& c, const Context& ctx, const GemmKernel* kernel) {
  CaseResult r;
  GemmProblem p;
  p.layout = c.layout;
  p.op_a = c.op_a;
  p.op_b = c.op_b;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.types = kernel ? kernel->info.types : c.types;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.split_k = c.split_k;
  p.lda = p.min_lda() + c.ld_pad;
  p.ldb = p.min_ldb() + c.ld_pad;
  p.ldc = p.min_ldc() + c.ld_pad;
  const DType c_type = p.types.c;
  const size_t c_size = dtype_size(c_type);

  // A and B: random everywhere, padding and the misaligning lead included (a kernel must not
  // read them into results); each starts `misalign` elements into its (aligned) buffer.
  const int64_t lead = c.misalign;
  std::vector<float> a(static_cast<size_t>(lead + std::max<int64_t>(p.a_span(), 1)));
  std::vector<float> b(static_cast<size_t>(lead + std::max<int64_t>(p.b_span(), 1)));
  fill(a, c.exact, c.seed * 4 + 0);
  fill(b, c.exact, c.seed * 4 + 1);
  // C: [guard][span][guard]; the span's padding and the guards hold the sentinel, and beta = 0
  // poisons C's elements with NaN (it must not be read).
  const int64_t guard = kGuard + lead;
  const int64_t span = p.c_span();
  std::vector<float> c_init(static_cast<size_t>(span + guard + kGuard), kSentinel);
  std::vector<bool> is_element(c_init.size(), false);
  std::vector<float> c0(static_cast<size_t>(std::max<int64_t>(span, 1)), kSentinel);
  {
    std::vector<float> vals(static_cast<size_t>(p.m * p.n));
    fill(vals, c.exact, c.seed * 4 + 2);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const int64_t off = c.layout == Layout::kRowMajor ? i * p.ldc + j : j * p.ldc + i;
        const float v = vals[static_cast<size_t>(i * p.n + j)];
        c0[static_cast<size_t>(off)] = v;
        c_init[static_cast<size_t>(guard + off)] =
            c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : v;
        is_element[static_cast<size_t>(guard + off)] = true;
      }
  }
  Staged sa{encode(a, p.types.a), {}}, sb{encode(b, p.types.b), {}};
  Staged sc{encode(c_init, c_type), {}}, sc0{encode(c0, c_type), {}};
  const std::vector<unsigned char> c_before = sc.host;
  if (!(r.status = sa.stage(ctx)) || !(r.status = sb.stage(ctx)) || !(r.status = sc.stage(ctx)) ||
      !(r.status = sc0.stage(ctx)))
    return r;
  p.a = sa.data(ctx) + lead * dtype_size(p.types.a);
  p.b = sb.data(ctx) + lead * dtype_size(p.types.b);
  p.c = sc.data(ctx) + guard * c_size;

  // Reference from C0 on the same backend: the CPU oracle, or its GPU twin (tested against
  // the CPU one) so that large GPU cases do not wait minutes for the CPU.
  GemmReference ref;
  {
    GemmProblem ref_p = p;
    ref_p.c = sc0.data(ctx);
    if (!(r.status = compute_gemm_reference(ctx, ref_p, &ref))) return r;
  }
  GemmOptions options;
  r.status = kernel ? run_gemm_kernel(*kernel, ctx, p) : gemm(ctx, p, options);
  if (r.status.code() == StatusCode::kNotSupported && kernel) {
    r.skipped = true;
    return r;
  }
  if (!r.status) return r;
  if (ctx.backend == Backend::kCuda) {
    if (!(r.status = device_synchronize(ctx)) ||
        !(r.status = sc.device.download(sc.host.data(), sc.host.size())))
      return r;
  }
  for (size_t i = 0; i < c_init.size(); ++i)
    if (!is_element[i] && std::memcmp(&sc.host[i * c_size], &c_before[i * c_size], c_size) != 0)
      ++r.guard_violations;
  const std::vector<float> c_out = decode(sc.host, c_type);
  // auto runs tilekit's own kernels, which round inputs to nearest as the reference does.
  const InputRounding input_rounding =
      kernel ? kernel->info.input_rounding : InputRounding::kNearest;
  r.check = check_gemm_result(c_out.data() + guard, p.ldc, p.layout, ref, p.k,
                              check_options_for(p.types, c.exact, input_rounding));
  return r;
}

}  // namespace tilekit::testing
