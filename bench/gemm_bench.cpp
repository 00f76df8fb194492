#include "gemm_bench.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "kernel_select.hpp"
#include "memory_plan.hpp"
#include "tilekit/sizes.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::bench {

namespace {

std::string reference_key(const Context& ctx, const GemmProblem& p, uint64_t seed) {
  std::ostringstream key;
  key << std::hexfloat;  // alpha and beta to the last bit
  key << static_cast<int>(ctx.backend) << ' ' << ctx.device << ' ' << p.m << 'x' << p.n << 'x'
      << p.k << ' ' << types_tag(p.types) << ' ' << static_cast<int>(p.layout) << ' '
      << static_cast<int>(p.op_a) << static_cast<int>(p.op_b) << ' ' << p.lda << ' ' << p.ldb
      << ' ' << p.ldc << ' ' << p.alpha << ' ' << p.beta << ' ' << seed;
  return key.str();
}

}  // namespace

Status ReferenceCache::get(const Context& ctx, const GemmProblem& p, uint64_t seed,
                           const std::function<void()>& before_computing,
                           const GemmReference** out) {
  const std::string key = reference_key(ctx, p, seed);
  if (const auto it = kept_.find(key); it != kept_.end()) {
    *out = &it->second;
    return Status::ok();
  }
  if (before_computing) before_computing();
  GemmReference ref;
  TILEKIT_RETURN_IF_ERROR(compute_gemm_reference(ctx, p, &ref));
  ++computed_;
  *out = &(kept_[key] = std::move(ref));
  return Status::ok();
}

std::string GemmShape::str() const {
  if (m == n && n == k) return std::to_string(m);
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

namespace {

// Decimal digits only (no sign, spaces, octal or hex), at most int64's range.
Status parse_digits(const std::string& text, int64_t* out) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return invalid_argument("is not a whole number >= 0");
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (error == std::errc::result_out_of_range)
    return invalid_argument("does not fit in 64 bits (at most " +
                            std::to_string(std::numeric_limits<int64_t>::max()) + ")");
  if (error != std::errc() || end != text.data() + text.size())
    return invalid_argument("is not a whole number >= 0");
  return Status::ok();
}

// A "MxNxK" piece (or "start:stop:step") split at `separator` into exactly three numbers.
Status parse_three(const std::string& piece, char separator, int64_t v[3]) {
  std::stringstream ps(piece);
  std::string token;
  int count = 0;
  while (std::getline(ps, token, separator)) {
    if (count == 3) return invalid_argument("has more than three numbers");
    TILEKIT_RETURN_IF_ERROR(parse_size_number(token, &v[count]));
    ++count;
  }
  if (count != 3 || piece.back() == separator) return invalid_argument("needs three numbers");
  return Status::ok();
}

// A shape is accepted only when A, B and C have byte sizes that fit in 64 bits, so nothing
// downstream can multiply its way into a wrapped size.
Status check_shape_fits(const GemmShape& s) {
  MemoryPlan plan;
  plan.add("A", s.m, s.k, sizeof(float));
  plan.add("B", s.k, s.n, sizeof(float));
  plan.add("C", s.m, s.n, sizeof(double));  // the reference holds C in double
  return plan.overflow();
}

// Host copies of one problem's operands, (on CUDA) their device copies, and C0 and C.
struct Operands {
  std::vector<float> a, b, c0;
  std::vector<uint16_t> a16, b16;  // A and B in a 16-bit storage type, when the types say so
  DeviceBuffer<unsigned char> d_a, d_b;  // A and B as the kernels read them
  DeviceBuffer<float> d_c, d_c0;
  std::vector<float> c;  // host C (CPU backend runs in it; CUDA downloads into it)

  // A and B as the kernels read them: float32, or encoded once into 16-bit storage.
  void store_inputs(DType type) {
    if (type == DType::kF32) return;
    auto encode = [type](const std::vector<float>& in, std::vector<uint16_t>* out) {
      out->resize(in.size());
      encode_from_f32(in.data(), in.size(), type, out->data());
    };
    encode(a, &a16);
    encode(b, &b16);
  }
  const void* host_a() const { return a16.empty() ? static_cast<const void*>(a.data()) : a16.data(); }
  const void* host_b() const { return b16.empty() ? static_cast<const void*>(b.data()) : b16.data(); }
  size_t a_bytes() const { return a16.empty() ? a.size() * 4 : a16.size() * 2; }
  size_t b_bytes() const { return b16.empty() ? b.size() * 4 : b16.size() * 2; }
};

// The kernel a row runs at this shape: itself, or for the auto row the selector's choice (with
// the run-time split its tuned entry names, as gemm() would run it).
Status resolve_row_kernel(const GemmKernel* kernel, const GemmBenchConfig& cfg,
                          const GemmProblem& p, const GemmKernel** out, std::string* reason,
                          int* split_k) {
  *out = kernel;
  *split_k = p.split_k;
  if (kernel) return Status::ok();
  Selection<GemmProblem> chosen;
  TILEKIT_RETURN_IF_ERROR(select_gemm_kernel(p, cfg.ctx, cfg.allow_vendor, &chosen));
  *out = chosen.kernel;
  *reason = chosen.reason;
  *split_k = with_selection(p, chosen).split_k;
  return Status::ok();
}

// Splits `auto` off the --kernels list: true when it was there.
bool take_auto(std::string* spec) {
  std::stringstream ss(*spec);
  std::string rest;
  bool found = false;
  for (std::string glob; std::getline(ss, glob, ',');) {
    if (glob == "auto") {
      found = true;
      continue;
    }
    rest += (rest.empty() ? "" : ",") + glob;
  }
  if (found) *spec = rest;
  return found;
}

// True when the references of problems of types x and y are the same numbers: the same stored
// inputs, rounded the same way before they are multiplied (f32 and f32_3xtf32 share one).
bool same_reference(const GemmTypes& x, const GemmTypes& y) {
  auto rounding = [](const GemmTypes& t) {
    if (t.compute == Compute::kTF32) return 1;
    return t.compute == Compute::kBF16 && t.a == DType::kF32 ? 2 : 0;
  };
  return baseline_joins(x, y) && rounding(x) == rounding(y);
}

// What one shape holds at once: the operands and C twice (C0 and the kernel's C) in float, and
// `references` references' value and magnitude in double — on the host, and on a GPU its
// device copies (one reference at a time: each is copied back as it is computed).
MemoryPlan shape_memory(const GemmShape& s, bool host, int references) {
  MemoryPlan plan;
  plan.add("A", s.m, s.k, sizeof(float));
  plan.add("B", s.k, s.n, sizeof(float));
  plan.add("C and C0", s.m, s.n, 2 * sizeof(float));
  plan.add(host ? "the reference" : "the reference (on the GPU)", s.m, s.n,
           (host ? references : 1) * 2 * sizeof(double));
  return plan;
}

// Every shape must fit before the first one runs: a sweep must not run for minutes and then
// die at its largest size.
Status check_sweep_memory(const GemmBenchConfig& cfg, int references) {
  for (const GemmShape& shape : cfg.shapes) {
    Status s = shape_memory(shape, true, references).check_host();
    if (s && cfg.ctx.backend == Backend::kCuda)
      s = shape_memory(shape, false, references).check_device(cfg.ctx.device);
    if (!s) return Status(s.code(), "size " + shape.str() + ": " + s.message());
  }
  return Status::ok();
}

// Ok when `kernel` can run `p`: it serves the sweep's types (the same storage types and compute
// mode, or an f32 kernel that `auto` chose for the 3xTF32 mode: serves_types; a kernel of other
// types is skipped with that reason, not run into an error), and its can_implement accepts the
// shape. The globs select only kernels of exactly the sweep's types.
Status can_run(const GemmKernel& kernel, const GemmProblem& p, const DeviceInfo* device) {
  if (!serves_types(kernel.info.types, p.types))
    return not_supported("implements " + types_tag(kernel.info.types) + "; this sweep runs " +
                         types_tag(p.types) + " problems");
  return kernel.can_implement(p, device);
}

Status allocate_operands(const GemmProblem& p, Operands* x) {
  int64_t a_count = 0, b_count = 0, c_count = 0;
  TILEKIT_RETURN_IF_ERROR(checked_elements(p.a_rows(), p.a_cols(), "A", &a_count));
  TILEKIT_RETURN_IF_ERROR(checked_elements(p.b_rows(), p.b_cols(), "B", &b_count));
  TILEKIT_RETURN_IF_ERROR(checked_elements(p.m, p.n, "C", &c_count));
  TILEKIT_RETURN_IF_ERROR(checked_resize(x->a, a_count, "A"));
  TILEKIT_RETURN_IF_ERROR(checked_resize(x->b, b_count, "B"));
  TILEKIT_RETURN_IF_ERROR(checked_resize(x->c0, c_count, "C0"));
  return checked_resize(x->c, c_count, "C");
}

// A verified row and what its timing runs: the kernel on run_p (auto's choice for the auto row).
struct TimedRow {
  BenchRow row;
  const GemmKernel* kernel = nullptr;
  GemmProblem run_p;
  std::vector<double> samples;
};

// Samples of one row under `policy`: checks, workspace and initialize first, outside the timed
// window, which holds only the kernel's launch. (Again before every round: a workspace is valid
// for one call, and another row's call may have taken the pool since.)
Status take_samples(SampleTimer& timer, const Context& ctx, const TimingPolicy& policy,
                    const std::atomic<bool>* cancel, TimedRow* t) {
  Workspace ws;
  TILEKIT_RETURN_IF_ERROR(prepare_gemm_kernel(*t->kernel, ctx, t->run_p, &ws));
  return measure_samples(timer, [&] { return t->kernel->launch(t->run_p, ctx, ws); }, policy,
                         cancel, &t->samples);
}

// The row with its samples summarized.
BenchRow finish_row(const TimedRow& t, const TimingPolicy& policy) {
  BenchRow row = t.row;
  row.timing = summarize(t.samples, policy.target_noise);
  mark_few_samples(&row.timing, policy);
  row.outcome = RowOutcome::kOk;
  mark_noise(&row);
  row.gflops = row.timing.median_s > 0 ? row.flops / row.timing.median_s / 1e9 : 0;
  row.gbps = row.timing.median_s > 0 ? row.bytes / row.timing.median_s / 1e9 : 0;
  return row;
}

// GemmBenchConfig::rounds > 1: the pending rows timed in turns, a round each, then finished; each
// round starts at another row (round_start), since a row late in a round read up to 6% slower
// than the same kernel early in it on the H200. A row whose launch fails becomes an error row and
// leaves the later rounds.
Status time_in_rounds(SampleTimer& timer, const GemmBenchConfig& cfg,
                      std::vector<TimedRow>* pending, std::vector<BenchRow>* rows) {
  std::vector<bool> failed(pending->size(), false);
  const size_t n = pending->size();
  for (int round = 0; round < cfg.rounds; ++round) {
    const TimingPolicy policy = round_policy(cfg.timing, cfg.rounds, round);
    const size_t start = round_start(n, cfg.rounds, round);
    for (size_t turn = 0; turn < n; ++turn) {
      const size_t i = (start + turn) % n;
      if (failed[i]) continue;
      if (Status s = take_samples(timer, cfg.ctx, policy, cfg.cancel, &(*pending)[i]); !s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, (*pending)[i].row, rows));
        failed[i] = true;
      }
    }
  }
  for (size_t i = 0; i < pending->size(); ++i)
    if (!failed[i]) rows->push_back(finish_row((*pending)[i], cfg.timing));
  pending->clear();
  return Status::ok();
}

}  // namespace

Status parse_size_number(const std::string& text, int64_t* out) {
  const auto caret = text.find('^');
  if (caret == std::string::npos) return parse_digits(text, out);
  int64_t base = 0, exponent = 0;
  TILEKIT_RETURN_IF_ERROR(parse_digits(text.substr(0, caret), &base));
  TILEKIT_RETURN_IF_ERROR(parse_digits(text.substr(caret + 1), &exponent));
  int64_t value = 1;
  for (int64_t i = 0; i < exponent && value != 0; ++i)
    if (!multiply_fits(value, base, &value))
      return invalid_argument("does not fit in 64 bits (at most " +
                              std::to_string(std::numeric_limits<int64_t>::max()) + ")");
  *out = value;
  return Status::ok();
}

Status parse_sizes(const std::string& spec, std::vector<GemmShape>* out) {
  out->clear();
  std::stringstream ss(spec);
  for (std::string piece; std::getline(ss, piece, ',');) {
    auto bad = [&](const std::string& why) {
      return invalid_argument("--sizes: '" + piece + "' " + why);
    };
    if (piece.empty()) return bad("is empty");
    std::vector<GemmShape> shapes;
    if (piece.find(':') != std::string::npos) {
      int64_t v[3];
      if (Status s = parse_three(piece, ':', v); !s) return bad("is not start:stop:step: " + s.message());
      if (v[1] < v[0] || v[2] <= 0) return bad("needs start <= stop and step > 0");
      const int64_t count = (v[1] - v[0]) / v[2] + 1;  // no overflow: 0 <= v[1] - v[0]
      if (count > static_cast<int64_t>(kMaxSizes) - static_cast<int64_t>(out->size()))
        return bad("gives " + std::to_string(count) + " sizes; at most " +
                   std::to_string(kMaxSizes) + " in all");
      for (int64_t i = 0; i < count; ++i) {
        const int64_t size = v[0] + i * v[2];  // <= stop
        shapes.push_back({size, size, size});
      }
    } else if (piece.find('x') != std::string::npos) {
      int64_t v[3];
      if (Status s = parse_three(piece, 'x', v); !s) return bad("is not MxNxK: " + s.message());
      shapes.push_back({v[0], v[1], v[2]});
    } else {
      int64_t v = 0;
      if (Status s = parse_size_number(piece, &v); !s) return bad(s.message());
      shapes.push_back({v, v, v});
    }
    for (const GemmShape& shape : shapes)
      if (Status s = check_shape_fits(shape); !s) return bad("is too large: " + s.message());
    if (out->size() + shapes.size() > kMaxSizes)
      return bad("makes more than " + std::to_string(kMaxSizes) + " sizes");
    out->insert(out->end(), shapes.begin(), shapes.end());
  }
  if (out->empty()) return invalid_argument("--sizes: no sizes given");
  return Status::ok();
}

void mark_noise(BenchRow* row) { row->noisy = row->outcome == RowOutcome::kOk && is_noisy(row->timing); }

Status record_error_row(const Status& s, BenchRow row, std::vector<BenchRow>* rows) {
  if (s.code() == StatusCode::kCancelled || s.code() == StatusCode::kCudaError) return s;
  row.outcome = RowOutcome::kError;
  row.detail = s.message();
  rows->push_back(std::move(row));
  return Status::ok();
}

std::string baseline_kernel_id(Backend backend, const GemmTypes& types) {
  if (backend != Backend::kCuda) return "gemm.cpu.openblas.f32";
  GemmTypes yardstick;  // f32 inputs: pedantic SGEMM unless the mode is tf32
  if (types.a != DType::kF32) {
    yardstick = GemmTypes{types.a, types.a, DType::kF32, Compute::kBF16};
  } else if (types.compute == Compute::kTF32) {
    yardstick.compute = Compute::kTF32;
  }
  return "gemm.cuda.cublas." + types_tag(yardstick);
}

bool baseline_joins(const GemmTypes& baseline, const GemmTypes& sweep) {
  return baseline.a == sweep.a && baseline.b == sweep.b && baseline.c == sweep.c;
}

Status run_gemm_bench(const GemmBenchConfig& cfg, std::vector<BenchRow>* rows) {
  const Context& ctx = cfg.ctx;
  const bool gpu = ctx.backend == Backend::kCuda;
  const Registry& registry = Registry::instance();
  // The run's buffers and launches go to ctx's device; the caller's is restored at the end.
  DeviceScope device_scope(ctx);
  TILEKIT_RETURN_IF_ERROR(device_scope.status());

  // Kernels: what the globs select on this backend in the requested types, plus the baseline
  // (when it computes those types), plus `auto` (a null entry) when asked for.
  TILEKIT_RETURN_IF_ERROR(validate(cfg.types));
  std::string globs = cfg.kernels;
  const bool auto_row = take_auto(&globs);
  std::vector<const GemmKernel*> kernels;
  if (!auto_row || !globs.empty()) {
    TILEKIT_RETURN_IF_ERROR(select_kernels(registry.gemm, globs, "gemm", ctx.backend, &kernels));
    const size_t selected = kernels.size();
    kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                                 [&](const GemmKernel* k) { return k->info.types != cfg.types; }),
                  kernels.end());
    if (selected > 0 && kernels.empty() && !auto_row)
      return not_supported(
          (globs.empty() ? "no " + std::string(backend_name(ctx.backend)) + " kernel"
                         : "--kernels '" + globs + "' selects no kernel") +
          " that implements " + describe(cfg.types) +
          (globs.empty() && !gpu
               ? " (the references run only when named: --kernels 'gemm.cpu.reference*')"
               : ""));
  }
  // The mode's yardstick; it may compute in another mode on the same inputs (SGEMM beside
  // 3xTF32), and then its rows run in its own types against its own reference.
  const std::string base_id = baseline_kernel_id(ctx.backend, cfg.types);
  const GemmKernel* baseline = registry.find_gemm(base_id);
  if (cfg.add_baseline && baseline && baseline_joins(baseline->info.types, cfg.types) &&
      std::find(kernels.begin(), kernels.end(), baseline) == kernels.end())
    kernels.insert(kernels.begin(), baseline);
  const bool baseline_runs =
      baseline && std::find(kernels.begin(), kernels.end(), baseline) != kernels.end();
  const bool baseline_own_reference =
      baseline_runs && !same_reference(baseline->info.types, cfg.types);
  if (auto_row) kernels.push_back(nullptr);
  if (kernels.empty())
    return invalid_argument("--kernels: nothing to run on the " +
                            std::string(backend_name(ctx.backend)) + " backend");
  for (const GemmShape& shape : cfg.shapes)
    if (Status s = check_shape_fits(shape); !s)
      return Status(s.code(), "size " + shape.str() + ": " + s.message());
  TILEKIT_RETURN_IF_ERROR(check_sweep_memory(cfg, baseline_own_reference ? 2 : 1));

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
    p.types = cfg.types;
    p.layout = cfg.layout;
    p.op_a = cfg.op_a;
    p.op_b = cfg.op_b;
    p.m = shape.m;
    p.n = shape.n;
    p.k = shape.k;
    p.alpha = cfg.alpha;
    p.beta = cfg.beta;
    p.split_k = cfg.split_k;
    p.lda = p.min_lda();
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();

    // Fresh random inputs for every size (seed printed with failures). Never zeros: they hide
    // unwritten outputs and run faster on some hardware than real data.
    const uint64_t seed = cfg.seed + si;
    Operands x;
    TILEKIT_RETURN_IF_ERROR(allocate_operands(p, &x));
    fill_uniform(x.a.data(), x.a.size(), seed * 3 + 0);
    fill_uniform(x.b.data(), x.b.size(), seed * 3 + 1);
    fill_uniform(x.c0.data(), x.c0.size(), seed * 3 + 2);
    x.store_inputs(cfg.types.a);
    GemmProblem ref_p = p;  // reads C0, never the C a kernel writes
    if (gpu) {
      TILEKIT_RETURN_IF_ERROR(x.d_a.allocate(x.a_bytes(), "A"));
      TILEKIT_RETURN_IF_ERROR(x.d_b.allocate(x.b_bytes(), "B"));
      TILEKIT_RETURN_IF_ERROR(x.d_c.allocate(x.c.size(), "C"));
      TILEKIT_RETURN_IF_ERROR(x.d_c0.allocate(x.c0.size(), "C0"));
      TILEKIT_RETURN_IF_ERROR(x.d_a.upload(static_cast<const unsigned char*>(x.host_a()),
                                           x.a_bytes(), ctx.stream));
      TILEKIT_RETURN_IF_ERROR(x.d_b.upload(static_cast<const unsigned char*>(x.host_b()),
                                           x.b_bytes(), ctx.stream));
      TILEKIT_RETURN_IF_ERROR(x.d_c0.upload(x.c0.data(), x.c0.size(), ctx.stream));
      p.a = ref_p.a = x.d_a.get();
      p.b = ref_p.b = x.d_b.get();
      p.c = x.d_c.get();
      ref_p.c = x.d_c0.get();
    } else {
      p.a = ref_p.a = x.host_a();
      p.b = ref_p.b = x.host_b();
      p.c = x.c.data();
      ref_p.c = x.c0.data();
    }
    ReferenceCache own_references;  // this run's, when the caller keeps none
    ReferenceCache& references = cfg.references ? *cfg.references : own_references;
    const auto announce = [&](const std::string& what) {
      return [&cfg, done, total, what] {
        if (cfg.progress) cfg.progress(done, total, what);
      };
    };
    const GemmReference* ref = nullptr;
    const GemmReference* base_ref = nullptr;
    TILEKIT_RETURN_IF_ERROR(
        references.get(ctx, ref_p, seed, announce("reference for " + shape.str()), &ref));
    // The baseline's problem: the same operands in its own types (C is f32 in both).
    GemmProblem base_p = p;
    if (baseline_runs) base_p.types = baseline->info.types;
    if (baseline_own_reference) {
      GemmProblem base_ref_p = ref_p;
      base_ref_p.types = base_p.types;
      TILEKIT_RETURN_IF_ERROR(references.get(
          ctx, base_ref_p, seed, announce("reference for " + base_id + " " + shape.str()),
          &base_ref));
    }

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

    std::vector<TimedRow> pending;  // verified rows waiting for their rounds (cfg.rounds > 1)
    for (const GemmKernel* listed : kernels) {
      if (cfg.cancel && cfg.cancel->load())
        return Status(StatusCode::kCancelled, "interrupted");
      const std::string name = listed ? listed->info.id : "auto";
      if (cfg.progress) cfg.progress(done, total, name + " " + shape.str());
      ++done;
      BenchRow row;
      row.kernel = name;
      row.shape = shape;
      row.size = shape.str();
      row.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) *
                      static_cast<double>(p.k) +
                  (cfg.beta != 0.0f ? 3.0 * static_cast<double>(p.m) * static_cast<double>(p.n) : 0.0);
      // What must move once: A and B read, C written (and read when beta != 0).
      const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
      const auto bytes_of = [](DType t) { return static_cast<double>(dtype_size(t)); };
      row.bytes = static_cast<double>(p.k) * (static_cast<double>(p.m) * bytes_of(p.types.a) +
                                              static_cast<double>(p.n) * bytes_of(p.types.b)) +
                  mn * bytes_of(p.types.c) * (cfg.beta != 0.0f ? 2 : 1);

      const GemmKernel* kernel = nullptr;
      std::string reason;
      int split_k = 0;
      Status can = resolve_row_kernel(listed, cfg, p, &kernel, &reason, &split_k);
      const bool is_baseline_row = listed != nullptr && listed == baseline;
      GemmProblem run_p = is_baseline_row ? base_p : p;
      run_p.split_k = split_k;
      const GemmReference& run_ref = is_baseline_row && baseline_own_reference ? *base_ref : *ref;
      if (can) can = can_run(*kernel, run_p, device);
      if (!can) {
        row.outcome = RowOutcome::kSkipped;
        row.detail = can.message();
        rows->push_back(row);
        continue;
      }
      row.is_baseline = kernel->info.is_baseline;
      if (!listed) row.resolved = kernel->info.id;
      // 1. Verify on this exact problem before timing it.
      Status s = reset_c();
      if (s) s = run_gemm_kernel(*kernel, ctx, run_p);
      if (s) s = device_synchronize(ctx);
      if (s && gpu) s = x.d_c.download(x.c.data(), x.c.size(), ctx.stream);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      const GemmCheck check =
          check_gemm_result(x.c.data(), p.ldc, p.layout, run_ref, p.k,
                            check_options_for(run_p.types, false, kernel->info.input_rounding));
      row.verification = check.summary();
      row.max_rel_error = check.max_rel_error;
      if (!check.passed) {
        row.outcome = RowOutcome::kFail;
        row.detail = check.summary() + " (seed " + std::to_string(seed) + ")";
        rows->push_back(row);
        continue;
      }
      row.detail = listed ? check.summary() : kernel->info.id + ": " + check.summary();
      if (run_p.split_k > 0 && takes_run_time_split_k(kernel->info))
        row.detail += " (split-k " + std::to_string(run_p.split_k) + ")";
      // 2. Time it, now or (rounds > 1) in turns with the shape's other rows below.
      TimedRow timed{row, kernel, run_p, {}};
      if (cfg.rounds > 1) {
        pending.push_back(std::move(timed));
        continue;
      }
      s = take_samples(*timer, ctx, cfg.timing, cfg.cancel, &timed);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      rows->push_back(finish_row(timed, cfg.timing));
    }
    TILEKIT_RETURN_IF_ERROR(time_in_rounds(*timer, cfg, &pending, rows));
    // Ratios against the mode's baseline measured at this shape in this run.
    double base = 0;
    for (const auto& r : *rows)
      if (r.kernel == base_id && r.shape.m == shape.m && r.shape.n == shape.n &&
          r.shape.k == shape.k && r.outcome == RowOutcome::kOk)
        base = r.gflops;
    for (auto& r : *rows)
      if (base > 0 && r.outcome == RowOutcome::kOk && r.shape.m == shape.m && r.shape.n == shape.n &&
          r.shape.k == shape.k)
        r.baseline_ratio = r.gflops / base;
  }
  if (cfg.progress) cfg.progress(done, total, "done");
  return Status::ok();
}

}  // namespace tilekit::bench
