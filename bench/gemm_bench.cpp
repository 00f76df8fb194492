#include "gemm_bench.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "tilekit/verify.hpp"

namespace tilekit::bench {

std::string GemmShape::str() const {
  if (m == n && n == k) return std::to_string(m);
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

namespace {

bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  const long long x = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return false;
  *v = x;
  return true;
}

// Host and (on CUDA) device copies of one problem's operands.
struct Operands {
  std::vector<float> a, b, c0;
  DeviceBuffer<float> d_a, d_b, d_c, d_c0;
  std::vector<float> c;  // host C (CPU backend runs in it; CUDA downloads into it)
};

}  // namespace

Status parse_sizes(const std::string& spec, std::vector<GemmShape>* out) {
  out->clear();
  std::stringstream ss(spec);
  for (std::string piece; std::getline(ss, piece, ',');) {
    auto bad = [&](const std::string& why) {
      return invalid_argument("--sizes: '" + piece + "' " + why);
    };
    if (piece.empty()) return bad("is empty");
    if (piece.find(':') != std::string::npos) {
      int64_t v[3];
      std::stringstream ps(piece);
      std::string tok;
      int i = 0;
      for (; i < 3 && std::getline(ps, tok, ':'); ++i)
        if (!parse_int(tok, &v[i])) return bad("is not start:stop:step");
      if (i != 3 || std::getline(ps, tok)) return bad("is not start:stop:step");
      if (v[0] < 0 || v[1] < v[0] || v[2] <= 0)
        return bad("needs 0 <= start <= stop and step > 0");
      for (int64_t s = v[0]; s <= v[1]; s += v[2]) out->push_back({s, s, s});
    } else if (piece.find('x') != std::string::npos) {
      int64_t v[3];
      std::stringstream ps(piece);
      std::string tok;
      int i = 0;
      for (; i < 3 && std::getline(ps, tok, 'x'); ++i)
        if (!parse_int(tok, &v[i]) || v[i] < 0) return bad("is not MxNxK with sizes >= 0");
      if (i != 3 || std::getline(ps, tok)) return bad("is not MxNxK");
      out->push_back({v[0], v[1], v[2]});
    } else {
      int64_t v;
      if (!parse_int(piece, &v) || v < 0) return bad("is not a size >= 0");
      out->push_back({v, v, v});
    }
  }
  if (out->empty()) return invalid_argument("--sizes: no sizes given");
  return Status::ok();
}

Status record_error_row(const Status& s, BenchRow row, std::vector<BenchRow>* rows) {
  if (s.code() == StatusCode::kCancelled || s.code() == StatusCode::kCudaError) return s;
  row.outcome = "error";
  row.detail = s.message();
  rows->push_back(std::move(row));
  return Status::ok();
}

std::string baseline_kernel_id(Backend backend) {
  return backend == Backend::kCuda ? "gemm.cuda.cublas.f32" : "gemm.cpu.openblas.f32";
}

Status run_gemm_bench(const GemmBenchConfig& cfg, std::vector<BenchRow>* rows) {
  const Context& ctx = cfg.ctx;
  const bool gpu = ctx.backend == Backend::kCuda;
  const Registry& registry = Registry::instance();

  // Kernels: the glob's matches on this backend (references only when named), plus the baseline.
  std::vector<const GemmKernel*> kernels;
  const std::string glob =
      cfg.kernels.empty() ? std::string("gemm.") + backend_name(ctx.backend) + ".*" : cfg.kernels;
  for (const GemmKernel* k : registry.match_gemm(glob)) {
    if (k->info.backend != ctx.backend) continue;
    if (k->info.is_reference && cfg.kernels.empty()) continue;  // slow oracle: only on request
    kernels.push_back(k);
  }
  const GemmKernel* baseline = registry.find_gemm(baseline_kernel_id(ctx.backend));
  if (cfg.add_baseline && baseline &&
      std::find(kernels.begin(), kernels.end(), baseline) == kernels.end())
    kernels.insert(kernels.begin(), baseline);
  if (kernels.empty())
    return invalid_argument("--kernels: '" + glob + "' matches no " + backend_name(ctx.backend) +
                            " kernel (`tilekit list` shows them)");

  std::unique_ptr<SampleTimer> timer;
  if (gpu) {
    TILEKIT_RETURN_IF_ERROR(make_gpu_timer(ctx, cfg.timing.flush_l2, &timer));
  } else {
    timer = make_cpu_timer();
  }
  const DeviceInfo* device = nullptr;
  DeviceInfo device_info;
  if (gpu) {
    TILEKIT_RETURN_IF_ERROR(query_device(ctx.device, &device_info));
    device = &device_info;
  }

  const int total = static_cast<int>(cfg.shapes.size() * kernels.size());
  int done = 0;
  for (size_t si = 0; si < cfg.shapes.size(); ++si) {
    const GemmShape shape = cfg.shapes[si];
    GemmProblem p;
    p.layout = cfg.layout;
    p.op_a = cfg.op_a;
    p.op_b = cfg.op_b;
    p.m = shape.m;
    p.n = shape.n;
    p.k = shape.k;
    p.alpha = cfg.alpha;
    p.beta = cfg.beta;
    p.lda = p.min_lda();
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();

    // Fresh random inputs for every size (seed printed with failures). Never zeros: they hide
    // unwritten outputs and run faster on some hardware than real data.
    const uint64_t seed = cfg.seed + si;
    Operands x;
    x.a.resize(static_cast<size_t>(p.a_span()));
    x.b.resize(static_cast<size_t>(p.b_span()));
    x.c0.resize(static_cast<size_t>(p.c_span()));
    fill_uniform(x.a.data(), x.a.size(), seed * 3 + 0);
    fill_uniform(x.b.data(), x.b.size(), seed * 3 + 1);
    fill_uniform(x.c0.data(), x.c0.size(), seed * 3 + 2);
    x.c.resize(x.c0.size());
    GemmProblem ref_p = p;  // reads C0, never the C a kernel writes
    if (gpu) {
      TILEKIT_RETURN_IF_ERROR(x.d_a.allocate(x.a.size(), "A"));
      TILEKIT_RETURN_IF_ERROR(x.d_b.allocate(x.b.size(), "B"));
      TILEKIT_RETURN_IF_ERROR(x.d_c.allocate(x.c.size(), "C"));
      TILEKIT_RETURN_IF_ERROR(x.d_c0.allocate(x.c0.size(), "C0"));
      TILEKIT_RETURN_IF_ERROR(x.d_a.upload(x.a.data(), x.a.size(), ctx.stream));
      TILEKIT_RETURN_IF_ERROR(x.d_b.upload(x.b.data(), x.b.size(), ctx.stream));
      TILEKIT_RETURN_IF_ERROR(x.d_c0.upload(x.c0.data(), x.c0.size(), ctx.stream));
      p.a = ref_p.a = x.d_a.get();
      p.b = ref_p.b = x.d_b.get();
      p.c = x.d_c.get();
      ref_p.c = x.d_c0.get();
    } else {
      p.a = ref_p.a = x.a.data();
      p.b = ref_p.b = x.b.data();
      p.c = x.c.data();
      ref_p.c = x.c0.data();
    }
    if (cfg.progress) cfg.progress(done, total, "reference for " + shape.str());
    GemmReference ref;
    TILEKIT_RETURN_IF_ERROR(compute_gemm_reference(ctx, ref_p, &ref));

    // C before a run: C0 when beta != 0, else NaN (a kernel must neither read it nor skip any
    // element; both show up as NaN in the check).
    auto reset_c = [&]() -> Status {
      if (cfg.beta != 0.0f) {
        x.c = x.c0;
      } else {
        std::fill(x.c.begin(), x.c.end(), std::numeric_limits<float>::quiet_NaN());
      }
      if (gpu) return x.d_c.upload(x.c.data(), x.c.size(), ctx.stream);
      return Status::ok();
    };

    for (const GemmKernel* kernel : kernels) {
      if (cfg.cancel && cfg.cancel->load())
        return Status(StatusCode::kCancelled, "interrupted");
      if (cfg.progress) cfg.progress(done, total, kernel->info.id + " " + shape.str());
      ++done;
      BenchRow row;
      row.kernel = kernel->info.id;
      row.is_baseline = kernel->info.is_baseline;
      row.shape = shape;
      row.size = shape.str();
      row.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) *
                      static_cast<double>(p.k) +
                  (cfg.beta != 0.0f ? 3.0 * static_cast<double>(p.m * p.n) : 0.0);

      Status can = kernel->can_implement(p, device);
      if (!can) {
        row.outcome = "skipped";
        row.detail = can.message();
        rows->push_back(row);
        continue;
      }
      // 1. Verify on this exact problem before timing it.
      Status s = reset_c();
      if (s) s = run_gemm_kernel(*kernel, ctx, p);
      if (s) s = device_synchronize(ctx);
      if (s && gpu) s = x.d_c.download(x.c.data(), x.c.size(), ctx.stream);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      const GemmCheck check = check_gemm_result(x.c.data(), p.ldc, p.layout, ref, p.k);
      row.verification = check.summary();
      row.max_rel_error = check.max_rel_error;
      if (!check.passed) {
        row.outcome = "FAIL";
        row.detail = check.summary() + " (seed " + std::to_string(seed) + ")";
        rows->push_back(row);
        continue;
      }
      // 2. Time it.
      s = measure(*timer, [&] { return run_gemm_kernel(*kernel, ctx, p); }, cfg.timing,
                  cfg.cancel, &row.timing);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      row.outcome = "ok";
      row.detail = check.summary();
      row.gflops = row.timing.median_s > 0 ? row.flops / row.timing.median_s / 1e9 : 0;
      rows->push_back(row);
    }
    // Ratios against the baseline measured at this shape in this run.
    const std::string base_id = baseline_kernel_id(ctx.backend);
    double base = 0;
    for (const auto& r : *rows)
      if (r.kernel == base_id && r.shape.m == shape.m && r.shape.n == shape.n &&
          r.shape.k == shape.k && r.outcome == "ok")
        base = r.gflops;
    for (auto& r : *rows)
      if (base > 0 && r.outcome == "ok" && r.shape.m == shape.m && r.shape.n == shape.n &&
          r.shape.k == shape.k)
        r.baseline_ratio = r.gflops / base;
  }
  if (cfg.progress) cfg.progress(done, total, "done");
  return Status::ok();
}

}  // namespace tilekit::bench
